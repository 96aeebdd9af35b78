#include "shufflempc/net/local.hpp"

namespace shufflempc::net {

std::string party_key_file(const std::string& dir, PartyId id) { return dir + "/party-" + std::to_string(id) + ".key"; }

LocalDeployment LocalDeployment::create(std::size_t parties, Rng& rng, SessionConfig base) {
  LocalDeployment d;
  d.config = std::move(base);
  rng.fill(d.config.session);
  d.config.parties = parties;
  d.shuffler = KeyPair::generate(rng);
  d.analyzer = KeyPair::generate(rng);
  d.config.shuffler_key = d.shuffler.public_key();
  d.config.analyzer_key = d.analyzer.public_key();
  d.config.party_keys.clear();
  d.config.party_keys.reserve(parties);
  d.parties.reserve(parties);
  for (std::size_t i = 0; i < parties; ++i) {
    d.parties.push_back(KeyPair::generate(rng));
    d.config.party_keys.push_back(d.parties.back().public_key());
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

void LocalDeployment::save(const std::string& dir) const {
  shuffler.save(dir + "/" + shuffler_key_file);
  analyzer.save(dir + "/" + analyzer_key_file);
  for (std::size_t i = 0; i < parties.size(); ++i) parties[i].save(party_key_file(dir, static_cast<PartyId>(i)));
  config.save(dir + "/" + session_config_file);
}

}  // namespace shufflempc::net
