// libFuzzer targets for the two languages users hand to every process of a session: the mpc2
// functionality language (FUZZ_FUNCTIONALITY) and Bristol Fashion circuits (FUZZ_BRISTOL). Any
// input must parse or be refused with std::invalid_argument: no crash, no stack overflow, no
// allocation beyond the fuzzer's limit. Build with clang and -DSHUFFLEMPC_FUZZ=ON; run, e.g.:
// build-sanitize/bin/fuzz/fuzz_functionality -max_total_time=60
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string_view>

#if defined(FUZZ_FUNCTIONALITY)
#include "shufflempc/protocols/mpc2/functionality.hpp"
#elif defined(FUZZ_BRISTOL)
#include "shufflempc/protocols/circuit/bristol.hpp"
#endif

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
#if defined(FUZZ_FUNCTIONALITY)
    const auto f = shufflempc::mpc2::parse(text, 1 + (size % 7));
    if (f.outputs.empty()) __builtin_trap();  // parse refuses a program without outputs
#elif defined(FUZZ_BRISTOL)
    const auto c = shufflempc::circuit::parse(text, "fuzz");
    if (c.wires == 0 || c.inputs.empty() || c.outputs.empty()) __builtin_trap();
#endif
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
