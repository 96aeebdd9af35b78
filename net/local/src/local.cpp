#include "shufflempc/net/local.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/verifiable.hpp"

#include <sodium.h>

#include <algorithm>
#include <stdexcept>

namespace shufflempc::net {

std::string party_key_file(const std::string& dir, PartyId id) { return dir + "/party-" + std::to_string(id) + ".key"; }

std::string party_key_bundle_file(const std::string& dir, PartyId first, PartyId last) {
  return dir + "/parties-" + std::to_string(first) + "-" + std::to_string(last) + ".keys";
}

std::string mix_server_key_file(const std::string& dir, std::size_t hop) { return dir + "/mix-server-" + std::to_string(hop) + ".key"; }

LocalDeployment LocalDeployment::create(std::size_t parties, Rng& rng, SessionConfig base, std::size_t servers, std::size_t parties_per_key) {
  (void)ChainSpec::make(servers, base.mix);
  if (parties_per_key < 1) throw std::invalid_argument("parties per key must be at least 1, got 0");
  LocalDeployment d;
  d.config = std::move(base);
  rng.fill(d.config.session);
  d.config.parties = parties;
  d.shuffler = KeyPair::generate(rng);
  d.analyzer = KeyPair::generate(rng);
  d.config.shuffler_key = d.shuffler.public_key();
  d.config.shuffler_signer = signing_key_of(d.shuffler).public_key();  // its admission receipts' key
  d.config.analyzer_key = d.analyzer.public_key();
  d.config.party_keys.clear();
  d.config.party_keys.reserve(parties);
  // The secrets drawn in party order, one for each block of parties_per_key parties (the keys
  // KeyPair::generate would make), the public keys computed on every core.
  std::vector<SecretKey> secrets((parties + parties_per_key - 1) / parties_per_key);
  for (auto& s : secrets) rng.fill(s);
  const std::vector<KeyPair> keys = key_pairs_from(secrets);
  sodium_memzero(secrets.data(), secrets.size() * secret_key_bytes);
  d.parties.reserve(parties);
  for (std::size_t p = 0; p < parties; ++p) d.parties.push_back(keys[p / parties_per_key]);
  for (const auto& k : d.parties) d.config.party_keys.push_back(k.public_key());
  d.config.mix_chain.clear();
  if (servers > 1) {
    d.config.mix_chain.push_back({d.shuffler.public_key(), signing_key_of(d.shuffler).public_key()});
    for (std::size_t h = 1; h < servers; ++h) {
      d.further_server_keys.push_back(KeyPair::generate(rng));
      d.config.mix_chain.push_back({d.further_server_keys.back().public_key(), signing_key_of(d.further_server_keys.back()).public_key()});
    }
  }
  d.config.analyzer_elgamal.reset();
  if (d.config.mix == MixKind::verifiable) {
    d.config.analyzer_elgamal = verifiable_key_of(d.analyzer, rng);
    d.config.mix_chain[0].elgamal = verifiable_key_of(d.shuffler, rng);
    for (std::size_t h = 1; h < servers; ++h) d.config.mix_chain[h].elgamal = verifiable_key_of(d.further_server_keys[h - 1], rng);
  }
  return d;
}

std::vector<Identity> LocalDeployment::all_identities() const {
  std::vector<Identity> ids;
  ids.reserve(parties.size() + 1);
  for (std::size_t i = 0; i < parties.size(); ++i) ids.push_back({static_cast<PartyId>(i), parties[i]});
  ids.push_back({analyzer_id, analyzer});
  return ids;
}

void LocalDeployment::save(const std::string& dir, std::size_t parties_per_bundle) const {
  shuffler.save(dir + "/" + shuffler_key_file);
  analyzer.save(dir + "/" + analyzer_key_file);
  if (parties_per_bundle == 0) {
    for (std::size_t i = 0; i < parties.size(); ++i) parties[i].save(party_key_file(dir, static_cast<PartyId>(i)));
  } else {
    for (std::size_t first = 0; first < parties.size(); first += parties_per_bundle) {
      KeyBundle b;
      b.first = static_cast<PartyId>(first);
      b.keys.assign(parties.begin() + static_cast<std::ptrdiff_t>(first),
                    parties.begin() + static_cast<std::ptrdiff_t>(std::min(parties.size(), first + parties_per_bundle)));
      b.save(party_key_bundle_file(dir, b.first, b.last()));
    }
  }
  for (std::size_t h = 0; h < further_server_keys.size(); ++h) further_server_keys[h].save(mix_server_key_file(dir, h + 1));
  config.save(dir + "/" + session_config_file);
}

}  // namespace shufflempc::net
