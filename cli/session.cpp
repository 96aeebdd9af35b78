// `shufflempc session`: writes a session config from the public keys and the shuffler's address, so
// that a run across hosts needs no hand-written JSON. Every process of the session then reads the
// same file (the shuffler refuses a process whose config differs).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/numbers.hpp"
#include "shufflempc/net/dkg.hpp"
#include "shufflempc/net/keys.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/round_shapes.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/hex.hpp"

namespace shufflempc::cli {
namespace {

struct SessionOptions {
  std::string protocol, shuffler_key, analyzer_key, party_keys, address = "127.0.0.1:0", out, mix = "decryption";
  std::vector<std::string> params, mix_servers;
  std::size_t min_parties = 0, deadline_ms = 30'000, threshold = 0;
  std::vector<std::string> dkg_addresses;
  bool force = false;
  std::optional<std::size_t> close_after_ms, close_count;
  std::string close_at;
};

// --close-at: a UTC time YYYY-MM-DDTHH:MM:SSZ, as milliseconds since the Unix epoch.
std::int64_t utc_ms(const std::string& text) {
  std::tm tm{};
  char z = 0;
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%c%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &z,
                  &consumed) != 7 ||
      z != 'Z' || static_cast<std::size_t>(consumed) != text.size() || tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 ||
      tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
    throw std::invalid_argument("--close-at must be a UTC time YYYY-MM-DDTHH:MM:SSZ, got '" + text + "'");
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(::timegm(&tm)) * 1000;
}

// The analyzer's ElGamal key of a verifiable chain: from the token KEY:ELGAMAL_KEY:PROOF as keygen
// --verifiable prints it, a file holding it, or the analyzer's key file itself (whose ElGamal key
// and proof are derived here, as keygen --show does).
net::VerifiableKey analyzer_elgamal_of(const std::string& analyzer_key, Rng& rng) {
  std::string token = analyzer_key;
  if (token.size() <= 65 || token[64] != ':') {
    std::istringstream(read_text_file(analyzer_key, "--analyzer-key", 1 << 16)) >> token;
    if (token.size() <= 65 || token[64] != ':') try {
        const auto keys = net::KeyPair::load(analyzer_key);
        token = to_hex(keys.public_key()) + ":" + net::to_string(net::verifiable_key_of(keys, rng));
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("--mix verifiable: --analyzer-key " + analyzer_key +
                                    " holds neither KEY:ELGAMAL_KEY:PROOF (keygen --verifiable prints it) nor the analyzer's key file (" +
                                    e.what() + ")");
      }
  }
  return net::parse_verifiable_key(token.substr(65), "--analyzer-key");
}

// The parties' public keys, one line each, or KEY COUNT for COUNT consecutive parties sharing a key.
std::vector<net::PublicKey> read_party_keys(const std::string& path) {
  std::vector<net::PublicKey> keys;
  std::istringstream lines(read_text_file(path, "--party-keys"));
  std::size_t number = 0;
  for (std::string line; std::getline(lines, line);) {
    ++number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string where = "--party-keys line " + std::to_string(number);
    std::istringstream fields(line);
    std::string hex, count, extra;
    fields >> hex >> count >> extra;
    if (!extra.empty()) throw std::invalid_argument(where + " must be KEY or KEY COUNT, got '" + line + "'");
    const std::size_t most = net::max_session_parties - std::min(keys.size(), net::max_session_parties);
    const auto n = count.empty() ? std::optional<std::uint64_t>{1} : parse_unsigned(count, most);
    if (!n || *n == 0) throw std::invalid_argument(where + ": the party count must be in [1, " + std::to_string(most) + "], got '" + count + "'");
    keys.insert(keys.end(), static_cast<std::size_t>(*n), net::parse_public_key(hex, where));
  }
  return keys;
}

// The shuffler's signing key, which its admission receipts are checked against: the chain's first
// server's, or from --shuffler-key given as KEY:SIGNING_KEY (keygen --mix-server prints it) or as the
// shuffler's key file. From 64 hex digits alone it cannot be known: the config then names none, and
// a shuffler with a state directory refuses the session (docs/network.md, "Durable collection").
std::optional<net::SigningPublicKey> shuffler_signer_of(const std::string& given, const net::SessionConfig& c) {
  if (!c.mix_chain.empty()) return c.mix_chain.front().signer;
  if (given.size() > 64 && given[64] == ':') return net::parse_mix_server_keys(given, "--shuffler-key").signer;
  if (given.size() == 64) return std::nullopt;
  try {
    return net::signing_key_of(net::KeyPair::load(given)).public_key();
  } catch (const std::exception&) {
  }
  std::string token;
  std::istringstream(read_text_file(given, "--shuffler-key", 1 << 16)) >> token;
  if (token.size() > 64 && token[64] == ':') return net::parse_mix_server_keys(token, "--shuffler-key (" + given + ")").signer;
  return std::nullopt;
}

// The config of the options, checked as every process will check it, before any key is made.
net::SessionConfig config_of(const SessionOptions& o, const Registry& registry, Rng& rng) {
  net::SessionConfig c;
  rng.fill(c.session);
  c.protocol = o.protocol;
  for (const auto& p : o.params) {
    const auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0) throw std::invalid_argument("--param must be NAME=VALUE, got '" + p + "'");
    c.params[p.substr(0, eq)] = p.substr(eq + 1);
  }
  c.shuffler_key = public_key_of(o.shuffler_key, "--shuffler-key");
  c.analyzer_key = public_key_of(o.analyzer_key, "--analyzer-key");
  c.mix = o.mix == "verifiable" ? net::MixKind::verifiable : net::MixKind::decryption;
  if (c.mix == net::MixKind::verifiable) c.analyzer_elgamal = analyzer_elgamal_of(o.analyzer_key, rng);
  if (o.mix_servers.size() == 1 || o.mix_servers.size() > net::max_mix_servers)
    throw std::invalid_argument("--mix-server-keys must list 2 to " + std::to_string(net::max_mix_servers) +
                                " servers (the shuffler first), got " + std::to_string(o.mix_servers.size()));
  for (std::size_t i = 0; i < o.mix_servers.size(); ++i)
    c.mix_chain.push_back(net::parse_mix_server_keys(o.mix_servers[i], "--mix-server-keys item " + std::to_string(i + 1)));
  if (!c.mix_chain.empty() && c.mix_chain.front().key != c.shuffler_key)
    throw std::invalid_argument("--mix-server-keys: the first server is the shuffler (the entry of the chain): its key must be --shuffler-key");
  c.shuffler_signer = shuffler_signer_of(o.shuffler_key, c);
  c.party_keys = read_party_keys(o.party_keys);
  c.parties = c.party_keys.size();
  c.min_parties = o.min_parties;
  const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  if (o.close_after_ms && !o.close_at.empty()) throw std::invalid_argument("give one of --close-after-ms and --close-at");
  if (o.close_after_ms) c.close_at = now_ms + static_cast<std::int64_t>(*o.close_after_ms);
  if (!o.close_at.empty()) {
    c.close_at = utc_ms(o.close_at);
    if (*c.close_at <= now_ms) throw std::invalid_argument("--close-at " + o.close_at + " has passed already");
  }
  if (o.close_count) c.close_count = *o.close_count;
  c.deadline = std::chrono::milliseconds(o.deadline_ms);
  (void)net::split_address(o.address, "--shuffler-address");
  c.shuffler_address = o.address;
  // The protocol, its parameters and the party counts must make a valid protocol.
  c.rounds = net::wire_rounds(*registry.create(c.protocol, c.params, c.parties, c.min_parties), c.mix_chain.size(), c.mix);
  bind_files(c, registry);  // the content of every file a parameter names, so all hosts run the same
  return net::SessionConfig::from_json(c.to_json());  // the same checks every process will make
}

// --decryption-threshold: the key made by the servers over TCP, its transcript into the config.
// Returns the line that says so.
std::string make_distributed_key(net::SessionConfig& c, const SessionOptions& o) {
  const std::size_t k = net::ChainSpec::make(std::max<std::size_t>(c.mix_chain.size(), 1), c.mix, o.threshold).servers();
  if (o.dkg_addresses.size() + 1 != k)
    throw std::invalid_argument("--dkg-addresses must list the " + std::to_string(k - 1) +
                                " further servers' addresses (each running mix-server --dkg), got " + std::to_string(o.dkg_addresses.size()));
  net::KeyPair shuffler;
  try {
    shuffler = net::KeyPair::load(o.shuffler_key);
  } catch (const std::exception& e) {
    throw std::invalid_argument("--decryption-threshold: --shuffler-key must be the shuffler's key file (the shuffler deals "
                                "its part of the key): " + std::string(e.what()));
  }
  const auto g = net::generate_key(net::dkg_setup(c, o.threshold), shuffler, o.dkg_addresses, c.deadline,
                                   stderr_logger("session (key generation)"));
  g.require_everyone();
  c.distributed_key = std::make_shared<net::SessionConfig::DistributedKey>(net::SessionConfig::DistributedKey{g.transcript, g.outcome});
  c = net::SessionConfig::from_json(c.to_json());
  return fmt::format("its key made {}-of-{} by the servers ({} of them qualified)", o.threshold, k, g.outcome.qualified.size());
}

int write_session(const SessionOptions& o, const Registry& registry) {
  SystemRng rng;
  net::SessionConfig c = config_of(o, registry, rng);
  // As keygen refuses to overwrite a key: every host reads this file, so replacing it is said.
  const auto status = std::filesystem::symlink_status(o.out);
  if (!o.force && std::filesystem::exists(status) && !std::filesystem::is_symlink(status))  // a link: refused below, named so
    throw std::invalid_argument("--out " + o.out + " exists already: give --force to replace it");
  if (o.threshold == 0 && !o.dkg_addresses.empty()) throw std::invalid_argument("--dkg-addresses needs --decryption-threshold");
  const std::string made = o.threshold > 0 ? make_distributed_key(c, o) : std::string();
  c.save(o.out);
  std::cout << fmt::format("session {} of {} with {} parties{} written to {}\n", to_hex(c.session), c.protocol, c.parties,
                           c.mix_chain.empty() ? std::string()
                                                : fmt::format(" over a {}chain of {} mix servers",
                                                              c.mix == net::MixKind::verifiable ? "verifiable " : "", c.mix_chain.size()), o.out);
  if (!made.empty()) std::cout << "session " << to_hex(c.session) << " " << made << "\n";
  return 0;
}

}  // namespace

void add_session_command(CLI::App& app, const Registry& registry, Action& action) {
  auto* cmd = app.add_subcommand("session", "write a session config from the parties' public keys and the shuffler's address");
  auto o = std::make_shared<SessionOptions>();  // owned by the callback, so it lives as long as the App
  cmd->add_option("--protocol,-p", o->protocol, "the registered protocol (shufflempc list)")->required();
  cmd->add_option("--param", o->params, "a protocol parameter NAME=VALUE (repeat), checked against the protocol's declaration");
  cmd->add_option("--shuffler-key", o->shuffler_key, "the shuffler's public key: 64 hex digits, KEY:SIGNING_KEY (keygen --mix-server), or its key file; the last two also "
                  "name its signing key in the config, which a shuffler with --state-dir signs its admission receipts with")->required();
  cmd->add_option("--analyzer-key", o->analyzer_key,
                  "the analyzer's public key: 64 hex digits, or its key file; with --mix verifiable KEY:ELGAMAL_KEY:PROOF (as keygen "
                  "--verifiable prints it)")
      ->required();
  cmd->add_option("--mix", o->mix,
                  "what the chain carries: decryption (onion records; default) or verifiable (ElGamal records with a proof of shuffle "
                  "per server; every --mix-server-keys item and --analyzer-key then carry an ElGamal key: keygen --verifiable)")
      ->check(CLI::IsMember({"decryption", "verifiable"}));
  cmd->add_option("--party-keys", o->party_keys,
                  "file with one public key (hex, as keygen prints it) per line, in party order; a line KEY N gives N consecutive "
                  "parties that one key (keygen --parties FIRST-LAST --one-key)")
      ->required();
  cmd->add_option("--mix-server-keys", o->mix_servers,
                  "a chain of mix servers, in order, the shuffler first: KEY:SIGNING_KEY of each (as keygen --mix-server prints "
                  "it), comma-separated; 2 to 16 servers (default: the one shuffler)")
      ->delimiter(',');
  cmd->add_option("--shuffler-address", o->address, "HOST:PORT the parties connect to (default 127.0.0.1:0: given at run time)");
  cmd->add_option("--min-parties", o->min_parties, "rounds complete with at least this many parties; DP noise is calibrated for them (default: all)")
      ->check(count_check());
  cmd->add_option("--deadline-ms", o->deadline_ms, "the shuffler's per-round deadline in milliseconds: a round ends this long after it last moved (a new link, a batch, a process saying its parties are still preparing theirs), and a process that says nothing for this long is dropped; a round's limit is twice this plus 1 ms per party (default 30000)")
      ->check(CLI::Range(std::size_t{1}, std::size_t{86'400'000}));
  cmd->add_option("--decryption-threshold", o->threshold,
                  "with --mix verifiable: the mix servers needed to decrypt a round delivered to every party, 1 to the chain's "
                  "servers; the key is then made by the servers themselves (a distributed key generation over TCP: each further "
                  "server runs mix-server --dkg, --dkg-addresses names them, and --shuffler-key must be the shuffler's key file, as "
                  "the shuffler deals too). Default: every server is needed (their combined key, made with no interaction)")
      ->check(CLI::Range(std::size_t{1}, net::max_mix_servers));
  cmd->add_option("--dkg-addresses", o->dkg_addresses,
                  "with --decryption-threshold: HOST:PORT of each further server's mix-server --dkg, in chain order, comma-separated")
      ->delimiter(',');
  cmd->add_option("--close-after-ms", o->close_after_ms,
                  "a collection window (a protocol of one round): the round closes this long after the config is written, however "
                  "quiet it is; parties submit and may leave (docs/network.md, \"Durable collection\")")
      ->check(CLI::Range(std::size_t{1}, std::size_t{30} * 86'400'000));
  cmd->add_option("--close-at", o->close_at, "a collection window: the round closes at this UTC time, YYYY-MM-DDTHH:MM:SSZ");
  cmd->add_option("--close-count", o->close_count,
                  "a collection window: the round closes once this many parties have submitted (at least --min-parties)")
      ->check(count_check());
  cmd->add_option("--out,-o", o->out, "the session config to write (an existing file only with --force)")->required();
  cmd->add_flag("--force", o->force, "replace the file --out names if it exists");
  cmd->callback([o, &registry, &action] { action = [o, &registry] { return write_session(*o, registry); }; });
}

}  // namespace shufflempc::cli
