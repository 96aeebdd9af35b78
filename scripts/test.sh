#!/usr/bin/env bash
# Sets up, builds and runs the whole test suite (ctest), then checks the seeded figures in docs/.
#   bash scripts/test.sh                # Release build
#   bash scripts/test.sh --sanitizers   # then again under AddressSanitizer + UBSan with clang 16, and the fuzz
#                                       # targets' short runs (build-sanitize/)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --all
ctest --test-dir build --output-on-failure -j"$(nproc)"
# Every seeded figure in docs/ must be what its command prints now (about 3 minutes on 2 cores,
# a progress line a figure on stderr).
bash scripts/seeded-docs.sh build/bin/shufflempc
if [[ "${1:-}" == "--sanitizers" ]]; then
  bash scripts/setup.sh --sanitize
  # Every test but the label `slow` (statistical sweeps, multi-second deadline tests: the Release
  # pass above ran them; under the sanitizers they would add minutes and find nothing new), and
  # short runs of the four fuzz targets (fuzz_*_short: the network frame parser, the mpc2
  # functionality language, the Bristol circuit parser and the verifiable mix's transcript).
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$(nproc)" -LE slow
fi
