// `shufflempc verify TRANSCRIPT`: checks a verifiable mix's transcript (run --mix verifiable
// --transcript FILE) with no secret: every hop's proof of shuffle, every trustee's decryption
// proofs, and that the records are what the proved shares decrypt to. Exit 0 if all hold; 1 with
// one line per hop or trustee that fails, naming it; 2 if the file does not parse.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "commands.hpp"
#include "shufflempc/mixnet/transcript.hpp"
#include "shufflempc/parallel.hpp"

namespace shufflempc::cli {

void add_verify_command(CLI::App& app, const Registry&, Action& action) {
  struct Args {
    std::string file;
    unsigned threads = 0;
    bool json = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("verify", "check a verifiable mix's transcript: every proof of shuffle and of decryption (docs/verifiable-shuffle.md)");
  cmd->add_option("TRANSCRIPT", args->file, "the transcript a run wrote (run PROTOCOL --mix verifiable --transcript FILE)")->required();
  cmd->add_option("--threads", args->threads, "threads for the checks (default: every core)");
  cmd->add_flag("--json", args->json, "print the verdict as JSON");
  cmd->callback([args, &action] {
    action = [args] {
      const auto transcript = mixnet::Transcript::load(args->file);
      const auto v = mixnet::verify_transcript(transcript, jobs_or_cores(args->threads));
      if (args->json) {
        std::cout << Value{{"verified", v.ok()}, {"rounds", v.rounds}, {"records", v.records}, {"hop_proofs", v.hop_proofs},
                           {"decryption_proofs", v.decryption_proofs}, {"faults", v.faults}}
                         .dump()
                  << '\n';
      } else if (v.ok()) {
        std::cout << fmt::format("verified: {} round(s), {} records, {} proofs of shuffle, {} trustees' decryption proofs\n", v.rounds, v.records,
                                 v.hop_proofs, v.decryption_proofs);
      }
      if (!v.ok()) {
        for (const auto& f : v.faults) std::cerr << "shufflempc verify: " << f << '\n';
        std::cerr << "shufflempc verify: NOT VERIFIED (" << v.faults.size() << " fault(s))\n";
        return 1;
      }
      return 0;
    };
  });
}

}  // namespace shufflempc::cli
