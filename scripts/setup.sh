#!/usr/bin/env bash
# Installs what is missing (Debian packages, as root or through sudo), then configures and builds
# shufflempc in build/ (or $SHUFFLEMPC_BUILD_DIR). Safe to run again: it only does what is missing.
#   bash scripts/setup.sh               # Release build in build/ of what the quick start runs (the
#                                       # command, shufflempc-node, shufflempc-study, the Python module)
#   bash scripts/setup.sh --tests       # the same build with the tests (what ctest runs but its tests
#                                       # labelled slow and full: scripts/test.sh)
#   bash scripts/setup.sh --all         # the same build with the tests, benchmarks and examples
#   bash scripts/setup.sh --sanitize    # ASan + UBSan build in build-sanitize/ with clang 16, tests and
#                                       # the libFuzzer targets included (one configuration for both)
set -euo pipefail
cd "$(dirname "$0")/.."

build_dir="${SHUFFLEMPC_BUILD_DIR:-build}"
cmake_args=(-DCMAKE_BUILD_TYPE=Release)
targets=(--target shufflempc_programs)
[[ "${1:-}" == "--all" ]] && targets=()
[[ "${1:-}" == "--tests" ]] && targets=(--target shufflempc_checks)
if [[ "${1:-}" == "--sanitize" ]]; then
  targets=()
  build_dir="${SHUFFLEMPC_BUILD_DIR:-build-sanitize}"
  # No benchmarks here: nothing runs them under the sanitizers, and they are a tenth of the build.
  # clang 16: the fuzz targets need clang's libFuzzer, and clang 16 is the first to compile the
  # transport's coroutines with Debian's libstdc++, so one build serves the sanitizers and the fuzzing.
  # -O1 and line tables only, as the sanitizers' own documentation runs them: a report still names
  # file and line, and the build is faster than -O2 -g (docs/ARCHITECTURE.md, "The build").
  cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -gline-tables-only -DNDEBUG"
              -DCMAKE_CXX_COMPILER=clang++-16 -DSHUFFLEMPC_SANITIZE=ON -DSHUFFLEMPC_FUZZ=ON -DSHUFFLEMPC_BUILD_BENCH=OFF)
  # A build directory configured with another compiler (GCC, before) is made anew.
  if [[ -f "$build_dir/CMakeCache.txt" ]] && ! grep -q "CMAKE_CXX_COMPILER:.*=.*clang++-16" "$build_dir/CMakeCache.txt"; then
    rm -rf "$build_dir"
  fi
fi

packages=(build-essential cmake pkg-config libsodium-dev libssl-dev libasio-dev libboost-dev libgmp-dev libsqlite3-dev doctest-dev
          libcli11-dev nlohmann-json3-dev libfmt-dev libeigen3-dev coinor-libclp-dev iproute2 clang-16 libclang-rt-16-dev ccache gnuplot-nox
          libopenmpi-dev openmpi-bin
          pybind11-dev pybind11-json-dev python3-dev python3-numpy python3-pytest python3-pandas python3-matplotlib python3-venv python3-build help2man)
# The browser's build (web/): Emscripten, Node.js to run its optimizer and tests (a Node.js already
# on the PATH serves), dpkg-dev to unpack libsodium's source (scripts/web-deps.sh). Not in the
# sanitizer build, which does not build it.
if [[ "${1:-}" != "--sanitize" ]]; then
  packages+=(emscripten dpkg-dev)
  command -v node >/dev/null || packages+=(nodejs npm)
fi
# The browser tests (tests/web/chromium_round.mjs): Debian's Chromium, driven by playwright-core
# from npm at the version web/package-lock.json fixes (installed below, no browser download).
browser_tests=0
[[ "${1:-}" == "--tests" || "${1:-}" == "--all" ]] && browser_tests=1
[[ $browser_tests == 1 ]] && packages+=(chromium)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ $browser_tests == 1 ]] && ! cmp -s web/package-lock.json web/node_modules/.shufflempc-installed-lock; then
  echo "setup: installing the browser tests' npm packages (web/package-lock.json)" >&2
  (cd web && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  cp web/package-lock.json web/node_modules/.shufflempc-installed-lock
fi

# ccache (the build's compiler launcher) keys its entries on paths relative to the checkout, so a
# second clone of the tree (CI's, say) reuses what this one compiled.
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$PWD}"
export CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-1}"
if [[ "${1:-}" != "--sanitize" ]]; then
  cmake_args+=("-DSHUFFLEMPC_SODIUM_SOURCE=$(bash scripts/web-deps.sh)")
fi
cmake -S . -B "$build_dir" "${cmake_args[@]}" >/dev/null
cmake --build "$build_dir" -j"$(nproc)" "${targets[@]}"
