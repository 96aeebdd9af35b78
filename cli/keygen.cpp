// `shufflempc keygen`: an X25519 key pair for a party, the shuffler or the analyzer (docs/network.md).
#include <fmt/format.h>
#include <sodium.h>

#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "commands.hpp"
#include "common.hpp"
#include "net_common.hpp"
#include "report.hpp"
#include "shufflempc/files.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/net/local.hpp"
#include "shufflempc/net/mix_hop.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/process.hpp"

namespace shufflempc::cli {

void add_keygen_command(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("keygen", "generate an X25519 key pair (party, shuffler or analyzer identity)");
  struct Options {
    std::string out, parties, show;
    bool mix_server = false, verifiable = false, one_key = false;
  };
  auto o = std::make_shared<Options>();  // owned by the callback, so it lives as long as the App
  auto* out_opt = cmd->add_option("--out,-o", o->out, "key file to write (mode 0600); its public key is printed");
  cmd->add_option("--show", o->show,
                  "print the public key (or token, with --mix-server and --verifiable) of an existing key file again, writing nothing")
      ->excludes(out_opt);
  cmd->add_flag("--mix-server", o->mix_server,
                "a server of a chain of mix servers (or the shuffler of a chained session): print KEY:SIGNING_KEY, its X25519 key "
                "and the Ed25519 key it signs its reports with (for session --mix-server-keys)");
  cmd->add_flag("--verifiable", o->verifiable,
                "for a verifiable chain (session --mix verifiable): also print the ElGamal key this key file derives and its proof of "
                "possession: with --mix-server KEY:SIGNING_KEY:ELGAMAL_KEY:PROOF (for session --mix-server-keys), without it (the "
                "analyzer) KEY:ELGAMAL_KEY:PROOF (for session --analyzer-key)");
  cmd->add_option("--parties", o->parties,
                  "FIRST-LAST: a key bundle for this range of parties (party --key-bundle) instead of one key; prints one public key "
                  "per line, party FIRST first (lines of session --party-keys)");
  cmd->add_flag("--one-key", o->one_key,
                "with --parties: one key for the whole range (a host that runs them in one process, as local does); prints KEY COUNT, "
                "one line of session --party-keys");
  cmd->callback([o, &action] {
    action = [o] {
      const auto& [out, parties, show, mix_server, verifiable, one_key] = *o;
      if (out.empty() && show.empty()) throw std::invalid_argument("--out FILE is required (or --show FILE to print an existing key's token)");
      if (one_key && parties.empty()) throw std::invalid_argument("--one-key needs --parties FIRST-LAST");
      if (!show.empty() && !parties.empty()) throw std::invalid_argument("--show prints one key file's token; a bundle's keys are the lines keygen --parties printed");
      SystemRng rng;
      if (!parties.empty()) {
        if (mix_server || verifiable) throw std::invalid_argument(std::string("--parties and ") + (mix_server ? "--mix-server" : "--verifiable") + " exclude each other");
        constexpr std::size_t most = 10'000'000;  // about 700 MB of key file
        const auto [first, last] = parse_ids(parties, std::size_t{net::analyzer_id}, "--parties");
        if (std::size_t{last} - first + 1 > most)
          throw std::invalid_argument("--parties may name at most " + std::to_string(most) + " parties in one bundle, got " + parties);
        const std::size_t count = std::size_t{last} - first + 1;
        if (one_key) {
          const auto key = net::KeyPair::generate(rng);
          net::KeyBundle::save_one_key(out, first, count, key);
          std::cout << to_hex(key.public_key()) << ' ' << count << '\n';
          return 0;
        }
        std::vector<net::SecretKey> secrets(count);
        for (auto& s : secrets) rng.fill(s);
        net::KeyBundle bundle{first, net::key_pairs_from(secrets)};
        sodium_memzero(secrets.data(), secrets.size() * sizeof(net::SecretKey));
        std::string lines;
        for (const auto& k : bundle.keys) lines += to_hex(k.public_key()) + "\n";
        bundle.save(out);
        std::cout << lines;
        return 0;
      }
      const auto keys = show.empty() ? net::KeyPair::generate(rng) : net::KeyPair::load(show);
      if (show.empty()) keys.save(out);
      std::optional<net::VerifiableKey> elgamal;
      if (verifiable) elgamal = net::verifiable_key_of(keys, rng);
      if (mix_server)
        std::cout << net::to_string(net::MixServerKeys{keys.public_key(), net::signing_key_of(keys).public_key(), elgamal}) << '\n';
      else std::cout << to_hex(keys.public_key()) << (elgamal ? ":" + net::to_string(*elgamal) : std::string()) << '\n';
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
