// `shufflempc verify TRANSCRIPT [--config SESSION.json]`: checks a verifiable mix's transcript (run
// or local --mix verifiable --transcript FILE) with no secret: every hop's proof of shuffle and its
// server's signature, every trustee's decryption proofs, and that the records are what the proved
// shares decrypt to. Alone, that shows only that the file agrees with itself (its session id,
// signers and keys are its own word), and the output says so. With --config it also checks that the
// file is that session's: its id, the chain's servers as the signers of its hops, and every round
// the session carried through the chain, once, with the session's delivery, width and key. Exit 0
// if all hold; 1 with one line per fault, naming the hop, trustee or round; 2 if a file does not
// parse or is larger than --max-bytes.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "shufflempc/hex.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/net/verifiable.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::cli {

void add_verify_command(CLI::App& app, const Registry&, Action& action) {
  struct Args {
    std::string file, config;
    std::size_t max_bytes = mixnet::max_transcript_bytes;
    unsigned threads = 0;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("verify",
                                 "check a verifiable mix's transcript: every proof of shuffle, every hop's signature, every decryption proof, "
                                 "and with --config that it is that session's (docs/verifiable-shuffle.md)");
  cmd->add_option("TRANSCRIPT", args->file, "the transcript a run wrote (run or local PROTOCOL --mix verifiable --transcript FILE)")->required();
  cmd->add_option("--config", args->config,
                  "the session config (session.json) the transcript must belong to: its session id, its chain's servers as the hops' "
                  "signers, and every round it carried through the chain, once, with its delivery, width and key");
  cmd->add_option("--max-bytes", args->max_bytes, "refuse a transcript file larger than this (default 1 GiB)")->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40));
  cmd->add_option("--threads", args->threads, "threads for the checks (default: every core)");
  cmd->add_flag("--json", args->json, "print the verdict as JSON");
  cmd->callback([args, &action] {
    action = [args] {
      const auto transcript = mixnet::Transcript::load(args->file, args->max_bytes);
      std::vector<std::string> faults;
      std::string session_file;
      // The key the servers made (session --decryption-threshold): loading the config checked its
      // key generation's transcript (every message signed by its server, QUAL and the key recomputed).
      std::string key_line;
      Value key_json;
      if (!args->config.empty()) {
        const net::SessionConfig config = net::SessionConfig::load(args->config);
        faults = mixnet::check_session(transcript, net::session_chain(config));
        session_file = args->config;
        if (const auto& d = config.distributed_key) {
          std::string qualified, disqualified;
          for (auto q : d->outcome.qualified) qualified += (qualified.empty() ? "" : ", ") + std::to_string(q);
          for (const auto& [who, why] : d->outcome.disqualified) disqualified += (disqualified.empty() ? "" : ", ") + ("server " + std::to_string(who));
          key_line = fmt::format("the key of its rounds to every party: key made {}-of-{} by its servers (qualified: {}; disqualified: {}), "
                                 "its key generation's transcript checked\n",
                                 d->outcome.key.threshold, d->outcome.key.shares.size(), qualified, disqualified.empty() ? "none" : disqualified);
          Value dq = Value::array();
          for (const auto& [who, why] : d->outcome.disqualified) dq.push_back({{"server", who}, {"reason", why}});
          key_json = {{"threshold", d->outcome.key.threshold}, {"servers", d->outcome.key.shares.size()},
                      {"qualified", d->outcome.qualified}, {"disqualified", dq}};
        }
      }
      const auto v = mixnet::verify_transcript(transcript, jobs_or_cores(args->threads));
      faults.insert(faults.end(), v.faults.begin(), v.faults.end());
      const bool ok = faults.empty();
      std::vector<std::string> signers;
      for (const auto& k : transcript.signers) signers.push_back(to_hex(k));
      if (args->json) {
        std::cout << Value{{"verified", ok},
                           {"session", to_hex(transcript.session)},
                           {"session_config", session_file},
                           {"bound_to_session", !session_file.empty()},
                           {"signers", signers},
                           {"rounds", v.rounds},
                           {"records", v.records},
                           {"knowledge_proofs", v.knowledge_proofs},
                           {"hop_proofs", v.hop_proofs},
                           {"decryption_proofs", v.decryption_proofs},
                           {"distributed_key", key_json},
                           {"faults", faults}}
                         .dump()
                  << '\n';
      } else if (ok) {
        std::cout << fmt::format("verified: {} round(s), {} records each proved by its sender, {} proofs of shuffle each signed by its hop's server, "
                                 "{} trustees' decryption proofs\n",
                                 v.rounds, v.records, v.hop_proofs, v.decryption_proofs);
        if (!session_file.empty()) {
          std::cout << fmt::format("session {} of {}: its id, its chain's {} servers as the signers, and every round it carried\n",
                                   to_hex(transcript.session), session_file, transcript.hops);
          std::cout << key_line;
        } else {
          std::cout << fmt::format(
              "not tied to a session: the file's session id ({}) and the keys that signed its hops are its own word; compare them "
              "with the session's, or run verify --config SESSION.json\n",
              to_hex(transcript.session));
          for (std::size_t h = 0; h < signers.size(); ++h) std::cout << fmt::format("  hop {} signed by {}\n", h, signers[h]);
        }
      }
      if (!ok) {
        for (const auto& f : faults) std::cerr << "shufflempc verify: " << f << '\n';
        std::cerr << "shufflempc verify: NOT VERIFIED (" << faults.size() << " fault(s))\n";
        return 1;
      }
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
