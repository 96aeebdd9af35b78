// `shufflempc completion bash`: the script bash sources completes commands, protocols under run and
// local, and each protocol's and command's options (the ones the binary has now), leaves the
// fault-injection options out, and a shell other than bash is refused with one line.
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "shufflempc/process.hpp"
#include "support/paths.hpp"
#include "support/temp_dir.hpp"

using namespace shufflempc;

namespace {

// What the script offers after `words` (the last one being completed), as bash computes it.
std::string completions(const std::string& script, const std::string& words) {
  const std::string program = "source '" + script + "'\nCOMP_WORDS=(" + words +
                              ")\nCOMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n_shufflempc_complete\necho \"${COMPREPLY[*]}\"\n";
  const auto r = run_command({"/bin/bash", "-c", program}, std::chrono::seconds(20));
  REQUIRE_MESSAGE(r.exit_code == 0, r.err);
  return r.out;
}

}  // namespace

TEST_CASE("completion bash: commands, protocols and options complete, fault injection stays hidden") {
  const test::TempDir dir("shufflempc-completion");
  const auto made = run_command({SHUFFLEMPC_CLI, "completion", "bash"}, std::chrono::seconds(30));
  REQUIRE(made.exit_code == 0);
  CHECK(made.out.find("complete -F _shufflempc_complete shufflempc") != std::string::npos);
  const std::string script = dir / "shufflempc.bash";
  std::ofstream(script) << made.out;
  CHECK(completions(script, "shufflempc ru") == "run\n");
  CHECK(completions(script, "shufflempc run coun") == "counting counting-balcer-cheu counting-correlated counting-rr-amplified\n");
  CHECK(completions(script, "shufflempc local counting --parties 100 --no") == "--noise\n");
  CHECK(completions(script, "shufflempc session --decryption") == "--decryption-threshold\n");
  CHECK(completions(script, "shufflempc mix-server --dkg") == "--dkg --dkg-timeout-ms\n");
  CHECK(completions(script, "shufflempc mix-server --fault") == "\n");  // hidden: --fault-tamper, --fault-gone-after-mix, ...
  CHECK(completions(script, "shufflempc account l") == "local\n");
  const auto fish = run_command({SHUFFLEMPC_CLI, "completion", "fish"}, std::chrono::seconds(30));
  CHECK(fish.exit_code == 2);
  CHECK(fish.err.find("completion: only bash is written") != std::string::npos);
}
