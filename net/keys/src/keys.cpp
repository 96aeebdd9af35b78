#include "shufflempc/net/keys.hpp"

#include "shufflempc/files.hpp"
#include "shufflempc/json.hpp"
#include "shufflempc/mixnet/group.hpp"
#include "shufflempc/mixnet/server_keys.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/parallel.hpp"
#include "shufflempc/net/sealing.hpp"

#include <sodium.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>

namespace shufflempc::net {

void KeyPair::save(const std::string& path) const {
  write_private_file(path, Value{{"public_key", to_hex(public_)}, {"secret_key", to_hex(secret_)}}.dump() + "\n", "key file");
}

KeyPair KeyPair::load(const std::string& path) {
  check_private_file(path, "key file");
  const Value v = Value::parse(read_text_file(path, "key file", 1 << 16), nullptr, false);
  if (v.is_discarded() || !v.is_object() || !v.contains("secret_key") || !v["secret_key"].is_string())
    throw std::invalid_argument("key file " + path + " is not a shufflempc key (JSON with secret_key)");
  std::array<std::uint8_t, secret_key_bytes> secret{};
  from_hex(v["secret_key"].get<std::string>(), secret, path + ": secret_key");
  KeyPair k = from_secret(secret);
  sodium_memzero(secret.data(), secret.size());
  if (v.contains("public_key") && parse_public_key(v["public_key"].get<std::string>(), path + ": public_key") != k.public_)
    throw std::invalid_argument("key file " + path + ": public_key does not belong to secret_key");
  return k;
}

std::vector<KeyPair> key_pairs_from(std::span<const SecretKey> secrets) {
  ensure_sodium();
  // In runs of 256 whose public keys share one field inversion (sealing::ephemeral_public_keys, the
  // seal's own: libsodium's fixed-base table on Edwards25519, then u = (1 + y) / (1 - y)), from
  // clamped copies of the secrets: X25519 clamps its scalar, so the public keys are
  // crypto_scalarmult_base's. The key pairs keep the secrets as given.
  constexpr std::size_t run = 256;
  const std::size_t count = secrets.size(), runs = (count + run - 1) / run;
  std::vector<KeyPair> keys(count);
  parallel_for(runs, count >= 1024 ? hardware_threads() : 1, [&](std::size_t r) {
    const std::size_t first = r * run, k = std::min(run, count - first);
    std::array<SecretKey, run> clamped;
    std::array<PublicKey, run> publics;
    for (std::size_t i = 0; i < k; ++i) {
      clamped[i] = secrets[first + i];
      sealing::clamp(clamped[i]);
    }
    sealing::ephemeral_public_keys(std::span(clamped.data(), k), std::span(publics.data(), k));
    sodium_memzero(clamped.data(), sizeof clamped);
    for (std::size_t i = 0; i < k; ++i) keys[first + i] = KeyPair::from_stored(secrets[first + i], publics[i]);
  });
  return keys;
}

const KeyPair& KeyBundle::of(PartyId id) const {
  if (keys.empty() || id < first || id > last())
    throw std::invalid_argument("party " + std::to_string(id) + " is not in the key bundle (it holds parties " + std::to_string(first) +
                                "-" + std::to_string(last()) + ")");
  return keys[id - first];
}

void KeyBundle::save(const std::string& path) const {
  if (keys.empty()) throw std::invalid_argument("a key bundle holds at least one key");
  if (keys.size() > 1 && shares_one_key()) return save_one_key(path, first, keys.size(), keys.front());
  std::string text = "{\"first\":" + std::to_string(first) + ",\"secret_keys\":[";
  text.reserve(text.size() + keys.size() * (2 * (2 * secret_key_bytes + 4)) + 32);
  for (std::size_t i = 0; i < keys.size(); ++i) text += (i ? ",\"" : "\"") + to_hex(keys[i].secret_key()) + "\"";
  text += "],\"public_keys\":[";
  for (std::size_t i = 0; i < keys.size(); ++i) text += (i ? ",\"" : "\"") + to_hex(keys[i].public_key()) + "\"";
  text += "]}\n";
  write_private_file(path, text, "key bundle");
  sodium_memzero(text.data(), text.size());
}

void KeyBundle::save_one_key(const std::string& path, PartyId first, std::size_t parties, const KeyPair& key) {
  // {"first": F, "parties": N, "secret_key": hex, "public_key": hex}
  std::string text = "{\"first\":" + std::to_string(first) + ",\"parties\":" + std::to_string(parties) + ",\"secret_key\":\"" +
                     to_hex(key.secret_key()) + "\",\"public_key\":\"" + to_hex(key.public_key()) + "\"}\n";
  write_private_file(path, text, "key bundle");
  sodium_memzero(text.data(), text.size());
}

bool KeyBundle::shares_one_key() const {
  return std::all_of(keys.begin(), keys.end(), [&](const KeyPair& k) { return k == keys.front(); });
}

KeyBundle KeyBundle::load(const std::string& path) {
  check_private_file(path, "key bundle");
  std::string text = read_text_file(path, "key bundle");
  const Value v = Value::parse(text, nullptr, false);
  sodium_memzero(text.data(), text.size());
  if (v.is_discarded() || !v.is_object() || !v.contains("first") || !v["first"].is_number_unsigned())
    throw std::invalid_argument("key bundle " + path + " is not a shufflempc key bundle (JSON with first and a non-empty secret_keys)");
  const auto first = v["first"].get<std::uint64_t>();
  if (v.contains("parties")) {  // one key for every party of the bundle
    constexpr std::uint64_t most = max_session_parties;
    if (!v["parties"].is_number_integer() || v["parties"].get<std::int64_t>() < 1 || v["parties"].get<std::uint64_t>() > most ||
        !v.contains("secret_key") || !v["secret_key"].is_string() || !v.contains("public_key") || !v["public_key"].is_string())
      throw std::invalid_argument("key bundle " + path + ": one key for many parties needs parties in [1, " + std::to_string(most) +
                                  "], secret_key and public_key");
    const auto n = v["parties"].get<std::uint64_t>();
    if (first + n - 1 >= analyzer_id)
      throw std::invalid_argument("key bundle " + path + ": parties " + std::to_string(first) + " onwards are out of range");
    SecretKey secret{};
    from_hex(v["secret_key"].get<std::string>(), secret, path + ": secret key");
    const KeyPair k = KeyPair::from_stored(secret, parse_public_key(v["public_key"].get<std::string>(), path + ": public key"));
    sodium_memzero(secret.data(), secret.size());
    KeyBundle b;
    b.first = static_cast<PartyId>(first);
    b.keys.assign(static_cast<std::size_t>(n), k);
    return b;
  }
  if (!v.contains("secret_keys") || !v["secret_keys"].is_array() || v["secret_keys"].empty())
    throw std::invalid_argument("key bundle " + path + " is not a shufflempc key bundle (JSON with first and a non-empty secret_keys)");
  const auto& list = v["secret_keys"];
  if (first + list.size() - 1 >= analyzer_id)
    throw std::invalid_argument("key bundle " + path + ": parties " + std::to_string(first) + " onwards are out of range");
  KeyBundle b;
  b.first = static_cast<PartyId>(first);
  std::vector<SecretKey> secrets(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) throw std::invalid_argument("key bundle " + path + ": secret key " + std::to_string(i) + " is not a string");
    from_hex(list[i].get<std::string>(), secrets[i], path + ": secret key " + std::to_string(i));
  }
  if (!v.contains("public_keys")) {
    b.keys = key_pairs_from(secrets);
  } else {
    const auto& stored = v["public_keys"];
    if (!stored.is_array() || stored.size() != list.size())
      throw std::invalid_argument("key bundle " + path + ": public_keys must be an array with one key per secret key (" +
                                  std::to_string(list.size()) + ")");
    b.keys.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!stored[i].is_string()) throw std::invalid_argument("key bundle " + path + ": public key " + std::to_string(i) + " is not a string");
      b.keys.push_back(KeyPair::from_stored(secrets[i], parse_public_key(stored[i].get<std::string>(), path + ": public key " + std::to_string(i))));
    }
  }
  sodium_memzero(secrets.data(), secrets.size() * secret_key_bytes);
  return b;
}

PublicKey parse_public_key(const std::string& hex, const std::string& what) {
  PublicKey k{};
  from_hex(hex, k, what);
  return k;
}

std::vector<std::size_t> key_runs(std::span<const PublicKey> keys) {
  std::vector<std::size_t> starts;
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (i == 0 || keys[i] != keys[i - 1]) starts.push_back(i);
  return starts;
}

namespace {

// The fields of a session config, each read with the error that names it.
struct ConfigFields {
  const Value& j;
  const Value& field(const char* name) const {
    if (!j.contains(name)) throw std::invalid_argument(std::string("session config: missing field '") + name + "'");
    return j[name];
  }
  std::string text(const char* name) const {
    const Value& v = field(name);
    if (!v.is_string()) throw std::invalid_argument(std::string("session config: '") + name + "' must be a string");
    return v.get<std::string>();
  }
  std::uint64_t count(const char* name, std::uint64_t lo, std::uint64_t hi) const {
    const Value& v = field(name);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < lo || v.get<std::uint64_t>() > hi)
      throw std::invalid_argument(std::string("session config: '") + name + "' must be an integer in [" + std::to_string(lo) + ", " +
                                  std::to_string(hi) + "]");
    return v.get<std::uint64_t>();
  }
};

std::vector<RoundShape> rounds_from_json(const Value& rounds) {
  if (!rounds.is_array() || rounds.empty() || rounds.size() > max_session_rounds)
    throw std::invalid_argument("session config: 'rounds' must list between 1 and " + std::to_string(max_session_rounds) +
                                " round shapes (write the config with shufflempc session)");
  const Limits limits;
  std::vector<RoundShape> out;
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    const std::string where = "session config: rounds[" + std::to_string(r) + "]";
    const Value& shape = rounds[r];
    if (!shape.is_object()) throw std::invalid_argument(where + " must be an object");
    const auto number = [&](const char* name, std::uint64_t hi) {
      if (!shape.contains(name) || !shape[name].is_number_unsigned() || shape[name].get<std::uint64_t>() > hi)
        throw std::invalid_argument(where + "." + name + " must be an integer in [0, " + std::to_string(hi) + "]");
      return static_cast<std::size_t>(shape[name].get<std::uint64_t>());
    };
    RoundShape s;
    s.width = number("width", limits.max_width);
    s.min_messages = number("min_messages", limits.max_count);
    s.max_messages = number("max_messages", limits.max_count);
    if (s.min_messages > s.max_messages) throw std::invalid_argument(where + ": min_messages exceeds max_messages");
    if (shape.contains("record_width")) s.record_width = number("record_width", mixnet::max_record_bytes);
    const Value& delivery = shape.contains("delivery") ? shape["delivery"] : Value();
    if (delivery == to_string(Delivery::analyzer_only)) s.delivery = Delivery::analyzer_only;
    else if (delivery == to_string(Delivery::all_parties)) s.delivery = Delivery::all_parties;
    else
      throw std::invalid_argument(where + ".delivery must be \"" + to_string(Delivery::analyzer_only) + "\" or \"" +
                                  to_string(Delivery::all_parties) + "\"");
    out.push_back(s);
  }
  return out;
}

// 'mix_chain': 0 or 2 to max_mix_servers servers, the shuffler first, each with keys of its own.
void chain_from_json(const Value& chain, SessionConfig& c) {
  if (!chain.is_array() || chain.size() == 1 || chain.size() > max_mix_servers)
    throw std::invalid_argument("session config: 'mix_chain' must list 0 or 2 to " + std::to_string(max_mix_servers) +
                                " mix servers (KEY:SIGNING_KEY, the shuffler first)");
  for (std::size_t i = 0; i < chain.size(); ++i) {
    const std::string where = "session config: mix_chain[" + std::to_string(i) + "]";
    if (!chain[i].is_string()) throw std::invalid_argument(where + " must be a string KEY:SIGNING_KEY");
    c.mix_chain.push_back(parse_mix_server_keys(chain[i].get<std::string>(), where));
    if (c.mix_chain.back().key == c.analyzer_key)
      throw std::invalid_argument(where + " is the analyzer's key: a mix server and the analyzer need keys of their own");
    for (std::size_t k = 0; k < i; ++k)
      if (c.mix_chain[k].key == c.mix_chain[i].key || c.mix_chain[k].signer == c.mix_chain[i].signer)
        throw std::invalid_argument(where + " repeats mix_chain[" + std::to_string(k) + "]: each server of the chain needs its own keys");
  }
  if (!c.mix_chain.empty() && c.mix_chain.front().key != c.shuffler_key)
    throw std::invalid_argument("session config: mix_chain[0] must be the shuffler (the entry of the chain): its key is not shuffler_key");
}

// A verifiable mix: a chain, the analyzer's ElGamal key and every server's, each with its proof of
// possession, none repeated.
void check_verifiable_chain(const SessionConfig& c) {
  if (c.mix_chain.empty())
    throw std::invalid_argument("session config: a verifiable mix needs a chain of mix servers ('mix_chain', 2 to " +
                                std::to_string(max_mix_servers) + ")");
  if (!c.analyzer_elgamal)
    throw std::invalid_argument("session config: a verifiable mix needs 'analyzer_elgamal_key' (keygen --verifiable prints it)");
  if (auto why = check_verifiable_key(*c.analyzer_elgamal, c.analyzer_key); !why.empty())
    throw std::invalid_argument("session config: 'analyzer_elgamal_key': " + why);
  for (std::size_t i = 0; i < c.mix_chain.size(); ++i) {
    const std::string where = "session config: mix_chain[" + std::to_string(i) + "]";
    if (!c.mix_chain[i].elgamal)
      throw std::invalid_argument(where + " has no ElGamal key: a verifiable mix needs KEY:SIGNING_KEY:ELGAMAL_KEY:PROOF "
                                          "(keygen --mix-server --verifiable)");
    if (auto why = check_verifiable_key(*c.mix_chain[i].elgamal, c.mix_chain[i].key); !why.empty())
      throw std::invalid_argument(where + ": " + why);
    if (c.mix_chain[i].elgamal->key == c.analyzer_elgamal->key) throw std::invalid_argument(where + "'s ElGamal key is the analyzer's");
    for (std::size_t k = 0; k < i; ++k)
      if (c.mix_chain[k].elgamal->key == c.mix_chain[i].elgamal->key)
        throw std::invalid_argument(where + "'s ElGamal key repeats mix_chain[" + std::to_string(k) + "]'s");
  }
  // Every round that crosses the chain carries records of whole limbs with their proofs, and names
  // the width its records decode to (which its limbs alone do not fix): every hop's proof and
  // signature and every decryption proof are bound to it.
  for (std::size_t r = 0; r < c.rounds.size(); ++r) {
    const RoundShape& shape = c.rounds[r];
    const std::string where = "session config: rounds[" + std::to_string(r) + "]";
    if (shape.width <= wire_width(0, shape.delivery)) {
      if (shape.record_width != 0) throw std::invalid_argument(where + " carries no records, so it has no record_width");
      continue;
    }
    if (chain_limbs(shape.width) == 0 || chain_limbs(shape.width) > mixnet::limbs_for(mixnet::max_record_bytes))
      throw std::invalid_argument(where + ": a width of " + std::to_string(shape.width) +
                                  " bytes is no verifiable record's (32 + 128·L bytes for records of L in [1, " +
                                  std::to_string(mixnet::limbs_for(mixnet::max_record_bytes)) +
                                  "] limbs: ciphertexts and a proof of plaintext knowledge; write the config again with this version's `session`)");
    if (shape.record_width == 0 || mixnet::limbs_for(shape.record_width) != chain_limbs(shape.width))
      throw std::invalid_argument(where + ": record_width must be 1 to " + std::to_string(mixnet::max_record_bytes) +
                                  " bytes and fill the round's " + std::to_string(chain_limbs(shape.width)) + " limbs (" +
                                  std::to_string(mixnet::limb_bytes * (chain_limbs(shape.width) - 1) + 1) + " to " +
                                  std::to_string(mixnet::limb_bytes * chain_limbs(shape.width)) + " bytes); write the config again with this version's `session`");
  }
}

// The key generation's transcript (hex): of this session's chain, every message signed, a key made.
std::shared_ptr<const SessionConfig::DistributedKey> distributed_key_of(const std::string& hex, const SessionConfig& c) {
  const std::string what = "session config: 'distributed_key'";
  if (hex.size() % 2 != 0 || hex.size() > (8u << 20)) throw std::invalid_argument(what + " must be an even number of hex digits (at most 8 MiB)");
  std::vector<std::uint8_t> bytes(hex.size() / 2);
  from_hex(hex, bytes, what);
  auto d = std::make_shared<SessionConfig::DistributedKey>();
  d->transcript = mixnet::DkgTranscript::from_bytes(bytes, what);
  const auto& setup = d->transcript.setup;
  if (setup.session != c.session) throw std::invalid_argument(what + " was made for another session");
  if (setup.servers() != c.mix_chain.size()) throw std::invalid_argument(what + " was made by " + std::to_string(setup.servers()) + " servers, the chain has " + std::to_string(c.mix_chain.size()));
  for (std::size_t i = 0; i < c.mix_chain.size(); ++i)
    if (setup.box_keys[i] != c.mix_chain[i].key || setup.signers[i] != c.mix_chain[i].signer)
      throw std::invalid_argument(what + ": its server " + std::to_string(i) + " is not mix_chain[" + std::to_string(i) + "]");
  d->outcome = mixnet::dkg_outcome(d->transcript, what);
  // Every server the key's QUAL names consented to it (its signature of the outcome): a coordinator
  // cannot write a key in the name of servers it left out, nor one fewer than t servers hold.
  mixnet::check_endorsements(d->transcript, d->outcome, what);
  return d;
}

// Each item is one party's key, or {"key": KEY, "parties": N}: one key for the next N parties.
void party_keys_from_json(const Value& keys, SessionConfig& c) {
  const auto count_mismatch = [&] {
    return std::invalid_argument("session config: 'party_keys' must list one key per party (" + std::to_string(c.parties) + ")");
  };
  if (!keys.is_array()) throw count_mismatch();
  c.party_keys.reserve(c.parties);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string where = "session config: party_keys[" + std::to_string(i) + "]";
    const Value& k = keys[i];
    if (k.is_string()) {
      if (c.party_keys.size() == c.parties) throw count_mismatch();
      c.party_keys.push_back(parse_public_key(k.get<std::string>(), where));
      continue;
    }
    if (!k.is_object() || k.size() != 2 || !k.contains("key") || !k["key"].is_string() || !k.contains("parties") ||
        !k["parties"].is_number_integer() || k["parties"].get<std::int64_t>() < 1)
      throw std::invalid_argument(where + " must be a key (64 hex digits) or {\"key\": KEY, \"parties\": N} with N >= 1 (one key for N parties)");
    const auto n = k["parties"].get<std::uint64_t>();
    if (n > c.parties - c.party_keys.size()) throw count_mismatch();
    c.party_keys.insert(c.party_keys.end(), static_cast<std::size_t>(n), parse_public_key(k["key"].get<std::string>(), where + ".key"));
  }
  if (c.party_keys.size() != c.parties) throw count_mismatch();
}

}  // namespace

SessionConfig SessionConfig::from_json(const Value& j) {
  if (!j.is_object()) throw std::invalid_argument("session config: not a JSON object");
  const ConfigFields f{j};
  SessionConfig c;
  from_hex(f.text("session"), c.session, "session config: 'session'");
  c.protocol = f.text("protocol");
  if (j.contains("params")) {
    if (!j["params"].is_object()) throw std::invalid_argument("session config: 'params' must be an object");
    for (const auto& [k, v] : j["params"].items()) c.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
  }
  if (j.contains("file_digests")) {
    if (!j["file_digests"].is_object()) throw std::invalid_argument("session config: 'file_digests' must be an object");
    for (const auto& [k, v] : j["file_digests"].items()) {
      std::array<std::uint8_t, 32> d{};
      if (!v.is_string()) throw std::invalid_argument("session config: file_digests." + k + " must be a string");
      from_hex(v.get<std::string>(), d, "session config: file_digests." + k);
      c.file_digests[k] = v.get<std::string>();
    }
  }
  c.rounds = rounds_from_json(f.field("rounds"));
  c.parties = f.count("parties", 1, max_session_parties);
  if (j.contains("min_parties")) c.min_parties = f.count("min_parties", 0, c.parties);
  if (j.contains("close_at_ms")) c.close_at = static_cast<std::int64_t>(f.count("close_at_ms", 1, std::uint64_t{1} << 52));
  if (j.contains("close_count")) c.close_count = f.count("close_count", 1, c.parties);
  if (c.windowed() && c.rounds.size() != 1)
    throw std::invalid_argument("session config: a collection window ('close_at_ms', 'close_count') is for a session of one round; this one has " +
                                std::to_string(c.rounds.size()));
  if (c.close_count > 0 && c.close_count < c.min_parties)
    throw std::invalid_argument("session config: 'close_count' (" + std::to_string(c.close_count) + ") is below 'min_parties' (" +
                                std::to_string(c.min_parties) + "): the round would close with too few parties to output");
  if (j.contains("deadline_ms")) c.deadline = std::chrono::milliseconds(f.count("deadline_ms", 1, 86'400'000));
  if (j.contains("max_frame_bytes")) c.max_frame_bytes = static_cast<std::uint32_t>(f.count("max_frame_bytes", 1024, 0xffff'ffffu));
  if (j.contains("shuffler_address")) {
    c.shuffler_address = f.text("shuffler_address");
    (void)split_address(c.shuffler_address, "session config: 'shuffler_address'");
  }
  c.shuffler_key = parse_public_key(f.text("shuffler_key"), "session config: 'shuffler_key'");
  c.analyzer_key = parse_public_key(f.text("analyzer_key"), "session config: 'analyzer_key'");
  if (c.analyzer_key == c.shuffler_key)
    throw std::invalid_argument("session config: 'analyzer_key' equals 'shuffler_key': the shuffler could open every ESA record; "
                                "give the analyzer a key of its own (shufflempc keygen)");
  if (j.contains("mix_chain")) chain_from_json(j["mix_chain"], c);
  if (j.contains("shuffler_signing_key")) {
    SigningPublicKey signer{};
    from_hex(f.text("shuffler_signing_key"), signer, "session config: 'shuffler_signing_key'");
    if (!c.mix_chain.empty() && c.mix_chain.front().signer != signer)
      throw std::invalid_argument("session config: 'shuffler_signing_key' is not mix_chain[0]'s signing key (the shuffler is the chain's entry)");
    c.shuffler_signer = signer;
  }
  if (j.contains("mix")) {
    const Value& m = j["mix"];
    if (m == to_string(MixKind::verifiable)) c.mix = MixKind::verifiable;
    else if (m != to_string(MixKind::decryption))
      throw std::invalid_argument("session config: 'mix' must be \"decryption\" or \"verifiable\"");
  }
  if (j.contains("analyzer_elgamal_key"))
    c.analyzer_elgamal = parse_verifiable_key(f.text("analyzer_elgamal_key"), "session config: 'analyzer_elgamal_key'");
  if (c.mix == MixKind::verifiable) check_verifiable_chain(c);
  else
    for (std::size_t r = 0; r < c.rounds.size(); ++r)
      if (c.rounds[r].record_width != 0)
        throw std::invalid_argument("session config: rounds[" + std::to_string(r) + "].record_width belongs to a verifiable chain's rounds only");
  if (j.contains("distributed_key")) {
    if (c.mix != MixKind::verifiable) throw std::invalid_argument("session config: 'distributed_key' needs a verifiable mix");
    c.distributed_key = distributed_key_of(f.text("distributed_key"), c);
  }
  party_keys_from_json(f.field("party_keys"), c);
  return c;
}

Value SessionConfig::to_json() const {
  // A run of parties with one key is written once (its JSON, and so the digest, of a config with a
  // key for each party is as before).
  Value keys = Value::array();
  const std::vector<std::size_t> runs = key_runs(party_keys);
  for (std::size_t r = 0; r < runs.size(); ++r) {
    const std::size_t i = runs[r];
    const std::size_t length = (r + 1 < runs.size() ? runs[r + 1] : party_keys.size()) - i;
    if (length == 1) keys.push_back(to_hex(party_keys[i]));
    else keys.push_back({{"key", to_hex(party_keys[i])}, {"parties", length}});
  }
  Value shapes = Value::array();
  for (const auto& r : rounds) {
    shapes.push_back({{"width", r.width}, {"delivery", to_string(r.delivery)}, {"min_messages", r.min_messages}, {"max_messages", r.max_messages}});
    if (r.record_width > 0) shapes.back()["record_width"] = r.record_width;  // a verifiable chain's rounds only
  }
  Value out = {{"session", to_hex(session)},
          {"protocol", protocol},
          {"params", params},
          {"file_digests", file_digests},
          {"rounds", shapes},
          {"parties", parties},
          {"min_parties", min_parties},
          {"deadline_ms", static_cast<std::uint64_t>(deadline.count())},
          {"max_frame_bytes", max_frame_bytes},
          {"shuffler_address", shuffler_address},
          {"shuffler_key", to_hex(shuffler_key)},
          {"analyzer_key", to_hex(analyzer_key)},
          {"party_keys", keys}};
  if (!mix_chain.empty()) {  // absent for the one shuffler: those configs (and their digests) are as before
    Value chain = Value::array();
    for (const auto& m : mix_chain) chain.push_back(to_string(m));
    out["mix_chain"] = chain;
  }
  if (mix != MixKind::decryption) out["mix"] = to_string(mix);  // absent for the onion chain: its digests are as before
  if (analyzer_elgamal) out["analyzer_elgamal_key"] = to_string(*analyzer_elgamal);
  if (shuffler_signer) out["shuffler_signing_key"] = to_hex(*shuffler_signer);  // absent: the digest is as before
  if (close_at) out["close_at_ms"] = static_cast<std::uint64_t>(*close_at);  // absent without a window: the digest is as before
  if (close_count > 0) out["close_count"] = close_count;
  if (distributed_key) out["distributed_key"] = to_hex(distributed_key->transcript.to_bytes());
  return out;
}

SessionConfig SessionConfig::load(const std::string& path) {
  const Value v = parse_json_document(read_text_file(path, "session config"), "session config " + path);
  return from_json(v);
}

void SessionConfig::save(const std::string& path) const {
  write_file(path, to_json().dump(1) + "\n", "session config");
}

ChainSpec SessionConfig::chain() const {
  return ChainSpec::make(mix_chain.empty() ? 1 : mix_chain.size(), mix, distributed_key ? distributed_key->transcript.setup.threshold : 0);
}

ConfigDigest SessionConfig::digest() const {
  Value j = to_json();
  j.erase("shuffler_address");
  const std::string text = "shufflempc/session-config/v1\n" + j.dump();
  ConfigDigest d{};
  crypto_generichash(d.data(), d.size(), reinterpret_cast<const unsigned char*>(text.data()), text.size(), nullptr, 0);
  return d;
}

std::chrono::milliseconds SessionConfig::window_left(std::chrono::system_clock::time_point now) const {
  if (!close_at) return std::chrono::milliseconds(0);
  const auto left = std::chrono::milliseconds(*close_at) - std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch());
  return std::max(left, std::chrono::milliseconds(0));
}

Limits SessionConfig::limits() const {
  Limits l;
  l.max_payload = max_frame_bytes;
  l.max_parties = static_cast<std::uint32_t>(parties);
  return l;
}

std::chrono::milliseconds SessionConfig::round_limit() const {
  const auto work = std::chrono::duration_cast<std::chrono::milliseconds>(round_work_allowance * static_cast<std::int64_t>(parties));
  return 2 * deadline + work;
}

namespace {
std::vector<std::string> split_colons(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t from = 0;
  for (std::size_t at; (at = text.find(':', from)) != std::string::npos; from = at + 1) parts.push_back(text.substr(from, at - from));
  parts.push_back(text.substr(from));
  return parts;
}
}  // namespace

MixServerKeys parse_mix_server_keys(const std::string& text, const std::string& what) {
  const auto parts = split_colons(text);
  if (parts.size() != 2 && parts.size() != 4)
    throw std::invalid_argument(what + " must be KEY:SIGNING_KEY, or KEY:SIGNING_KEY:ELGAMAL_KEY:PROOF for a verifiable mix "
                                       "(as keygen --mix-server [--verifiable] prints them)");
  MixServerKeys k;
  k.key = parse_public_key(parts[0], what + " (its X25519 key)");
  from_hex(parts[1], k.signer, what + " (its Ed25519 signing key)");
  if (parts.size() == 4) k.elgamal = parse_verifiable_key(parts[2] + ":" + parts[3], what);
  return k;
}

std::string to_string(const MixServerKeys& keys) {
  std::string out = to_hex(keys.key) + ":" + to_hex(keys.signer);
  if (keys.elgamal) {
    out += ':';
    out += to_string(*keys.elgamal);
  }
  return out;
}

VerifiableKey parse_verifiable_key(const std::string& text, const std::string& what) {
  const auto parts = split_colons(text);
  if (parts.size() != 2) throw std::invalid_argument(what + " must be ELGAMAL_KEY:PROOF (64 and 128 hex digits, as keygen --verifiable prints them)");
  VerifiableKey k;
  from_hex(parts[0], k.key, what + " (its ElGamal key)");
  from_hex(parts[1], k.proof, what + " (its proof of possession)");
  return k;
}

std::string to_string(const VerifiableKey& key) { return to_hex(key.key) + ":" + to_hex(key.proof); }


std::pair<std::string, std::uint16_t> split_address(const std::string& address, const std::string& what) {
  const auto colon = address.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == address.size())
    throw std::invalid_argument(what + " must be HOST:PORT, got '" + address + "'");
  std::string host = address.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port = address.substr(colon + 1);
  const auto number = port.size() <= 5 ? parse_unsigned(port, 65535) : std::nullopt;
  if (!number) throw std::invalid_argument(what + ": port must be an integer in [0, 65535], got '" + port + "'");
  return {host, static_cast<std::uint16_t>(*number)};
}

namespace {
constexpr std::string_view elgamal_label = "shufflempc/verifiable-mix/elgamal-key/v1";
}  // namespace

mixnet::ElGamalKey elgamal_key_of(const KeyPair& keys) { return mixnet::derive_key(keys.secret_key(), elgamal_label); }

VerifiableKey verifiable_key_of(const KeyPair& keys, Rng& rng) {
  const auto k = elgamal_key_of(keys);
  VerifiableKey v;
  v.key = k.public_key.bytes;
  const auto proof = mixnet::prove_possession(keys.public_key(), k, rng).to_bytes();
  std::copy(proof.begin(), proof.end(), v.proof.begin());
  return v;
}

std::string check_verifiable_key(const VerifiableKey& key, const PublicKey& owner) {
  mixnet::Point p;
  p.bytes = key.key;
  if (!mixnet::valid_point(p) || p == mixnet::Point{}) return "the ElGamal key is not a canonical ristretto255 point other than the identity";
  mixnet::PossessionProof proof;
  try {
    proof = mixnet::PossessionProof::from_bytes(key.proof, "the proof of possession");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  if (!mixnet::check_possession(owner, p, proof)) return "the proof of possession of the ElGamal key does not verify for its X25519 key";
  return {};
}

}  // namespace shufflempc::net
