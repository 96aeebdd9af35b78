#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (ctest), then checks the seeded figures in docs/.
#   bash scripts/test.sh                # Release build
#   bash scripts/test.sh --sanitizers   # then again under AddressSanitizer + UBSan (build-sanitize/)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --all
ctest --test-dir build --output-on-failure -j"$(nproc)"
# Every seeded figure in docs/ must be what its command prints now (about 30 s).
bash scripts/seeded-docs.sh build/bin/shufflempc
if [[ "${1:-}" == "--sanitizers" ]]; then
  bash scripts/setup.sh --sanitize
  # Every test but the label `slow` (statistical sweeps, multi-second deadline tests: the Release
  # pass above ran them; under the sanitizers they would add minutes and find nothing new).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" -LE slow
  # Short runs of the fuzz targets (clang + libFuzzer; see fuzz/): the network frame parser, the
  # mpc2 functionality language, the Bristol circuit parser and the verifiable mix's transcript.
  cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Release -DSHUFFLEMPC_FUZZ=ON \
    -DSHUFFLEMPC_BUILD_TESTS=OFF -DSHUFFLEMPC_BUILD_EXAMPLES=OFF -DSHUFFLEMPC_BUILD_BENCH=OFF >/dev/null
  cmake --build build-fuzz -j"$(nproc)" --target fuzz_frame fuzz_functionality fuzz_bristol fuzz_transcript
  build-fuzz/bin/fuzz/fuzz_frame -runs=200000 -max_len=512 -seed=1
  build-fuzz/bin/fuzz/fuzz_functionality -runs=200000 -max_len=4096 -seed=1
  build-fuzz/bin/fuzz/fuzz_bristol -runs=200000 -max_len=4096 -seed=1
  # The transcript target reads inputs up to 64 kB with its dictionary of the format's tokens, so that
  # it reaches nested rounds and hops and the bounds of the reader (unknown fields, lists past their bounds).
  build-fuzz/bin/fuzz/fuzz_transcript -runs=200000 -max_len=65536 -dict=fuzz/transcript.dict -malloc_limit_mb=512 -seed=1
fi
