#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (ctest).
#   bash scripts/test.sh                # Release build
#   bash scripts/test.sh --sanitizers   # then again under AddressSanitizer + UBSan (build-sanitize/)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
if [[ "${1:-}" == "--sanitizers" ]]; then
  bash scripts/setup.sh --sanitize
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)"
  # A short run of the network frame parser's fuzz target (clang + libFuzzer; see fuzz/).
  cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release -DSHUFFLEMPC_FUZZ=ON \
    -DSHUFFLEMPC_BUILD_TESTS=OFF -DSHUFFLEMPC_BUILD_EXAMPLES=OFF -DSHUFFLEMPC_BUILD_BENCH=OFF >/dev/null
  cmake --build build-fuzz -j"$(nproc)" --target fuzz_frame
  build-fuzz/bin/fuzz/fuzz_frame -runs=200000 -max_len=512 -seed=1
fi
