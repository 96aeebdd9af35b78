#!/usr/bin/env bash
# Sets up, builds and runs the test suite (ctest), stage by stage, each stage's time on stderr.
#   bash scripts/test.sh                # Release build; every test but the labels `slow` and `full`
#   bash scripts/test.sh --full         # also the tests labelled `slow` (the statistical sweeps, the
#                                       # adversary harness, every command of the README and docs/)
#                                       # and `full` (the examples, built and each run by its test;
#                                       # every protocol through every kind of chain), and the check
#                                       # of the seeded figures in docs/
#   bash scripts/test.sh --full --sanitizers
#                                       # then again under AddressSanitizer + UBSan with clang 16, and
#                                       # the fuzz targets' short runs (build-sanitize/): what CI runs
set -euo pipefail
cd "$(dirname "$0")/.."
full=0
sanitizers=0
for arg in "$@"; do
  case "$arg" in
    --full) full=1 ;;
    --sanitizers) sanitizers=1 ;;
    *) echo "test.sh: unknown option '$arg' (options: --full, --sanitizers)" >&2; exit 2 ;;
  esac
done
started=$SECONDS
stage() { echo "test.sh: [$((SECONDS - started)) s] $*" >&2; }

if [[ $full == 1 ]]; then
  stage "set-up and build of everything (bash scripts/setup.sh --all)"
  bash scripts/setup.sh --all
else
  # The benchmarks and the examples only for --full: only the slow tests run the benchmarks (the
  # docs' commands), and the examples are a minute of compiling for nine tests.
  stage "set-up and build of the programs and tests (bash scripts/setup.sh --tests)"
  bash scripts/setup.sh --tests
fi
jobs="$(nproc)"
if [[ $full == 1 ]]; then
  stage "ctest: every test ($(ctest --test-dir build -N | tail -1 | grep -o '[0-9]*') tests, a line each)"
  ctest --test-dir build --output-on-failure -j"$jobs"
  # Every seeded figure in docs/ must be what its command prints now (a progress line a figure).
  stage "the seeded figures of docs/ (scripts/seeded-docs.sh)"
  bash scripts/seeded-docs.sh build/bin/shufflempc
else
  stage "ctest: every test but the labels slow and full ($(ctest --test-dir build -N -LE '^(slow|full)$' | tail -1 | grep -o '[0-9]*') tests, a line each; --full runs them all)"
  ctest --test-dir build --output-on-failure -j"$jobs" -LE '^(slow|full)$'
fi
if [[ $sanitizers == 1 ]]; then
  stage "the sanitizer build (bash scripts/setup.sh --sanitize)"
  bash scripts/setup.sh --sanitize
  # Every test but the label `slow` (statistical sweeps, multi-second deadline tests: the Release
  # pass above ran them; under the sanitizers they would add minutes and find nothing new), and
  # short runs of the four fuzz targets (fuzz_*_short: the network frame parser, the mpc2
  # functionality language, the Bristol circuit parser and the verifiable mix's transcript).
  stage "ctest under the sanitizers: every test but the label slow"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --test-dir build-sanitize --output-on-failure -j"$jobs" -LE slow
fi
stage "passed"
