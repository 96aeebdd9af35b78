// The shufflempc command line as a library: a protocol written outside the tree reaches every
// command (list, run, demo, study, account, keygen, shuffler, mix-server, party, analyzer, local, session,
// verify) by linking shufflempc::cli into a binary of its own. See docs/EXTENDING.md.
//
//   #include "shufflempc/cli.hpp"
//   int main(int argc, char** argv) {
//     return shufflempc::cli::main(argc, argv, [](shufflempc::Registry& r) { my::register_protocol(r); });
//   }
//
// `local` starts its shuffler, party and analyzer processes from the running executable, so the
// processes of a run all know the protocols the binary added (for a built-in protocol, from
// shufflempc-node beside it when there is one: the same commands, lighter to start).
#pragma once

#include <functional>

#include "shufflempc/registry.hpp"

namespace shufflempc::cli {

// Runs the command line of `argv`: the protocols that ship with shufflempc, plus those that
// `add_protocols` (if given) adds to the registry. Returns the process's exit status: 0 on success,
// 2 for a usage error (an unknown command, a bad parameter), 1 for a failure of the run. Errors are
// one line on stderr. A name that `add_protocols` adds twice, or that a built-in protocol already
// has, is a usage error naming it.
int main(int argc, char** argv, const std::function<void(Registry&)>& add_protocols = {});

}  // namespace shufflempc::cli
