#!/usr/bin/env bash
# Fetches what the browser's build (web/) needs besides Emscripten: libsodium's source, from
# Debian's archive, of exactly the version the native build links (libsodium-dev), so that both
# builds run one library, patches included. Prints the source tree's path on stdout; does nothing
# when it is there already. Run as root or through sudo: it adds the archive's source index for the
# release this machine runs (a deb-src entry in /etc/apt/sources.list.d/shufflempc-src.sources)
# when apt has none.
#   bash scripts/web-deps.sh            # into $SHUFFLEMPC_WEB_DEPS, /var/cache/shufflempc by default
set -euo pipefail
deps="${SHUFFLEMPC_WEB_DEPS:-/var/cache/shufflempc}"
version="$(dpkg-query -W -f='${Version}' libsodium-dev 2>/dev/null || true)"
if [[ -z "$version" ]]; then
  echo "web-deps: libsodium-dev is not installed (bash scripts/setup.sh installs it)" >&2
  exit 1
fi
upstream="${version#*:}"
upstream="${upstream%%-*}"
tree="$deps/libsodium-$version/libsodium-$upstream"
if [[ -f "$tree/src/libsodium/include/sodium/version.h.in" ]]; then
  echo "$tree"
  exit 0
fi
sudo=""
[[ $(id -u) -ne 0 ]] && sudo="sudo"
if ! apt-get source --print-uris -qq "libsodium=$version" >/dev/null 2>&1; then
  codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
  if [[ -z "$codename" ]]; then
    echo "web-deps: cannot tell this system's release (VERSION_CODENAME in /etc/os-release) to add its source index" >&2
    exit 1
  fi
  echo "web-deps: adding Debian's source index for $codename (deb-src) to fetch libsodium's source" >&2
  $sudo tee /etc/apt/sources.list.d/shufflempc-src.sources >/dev/null <<SOURCES
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $codename $codename-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: $codename-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
  $sudo apt-get update -qq
fi
$sudo mkdir -p "$deps/libsodium-$version"
(cd "$deps/libsodium-$version" && $sudo apt-get source -qq "libsodium=$version" >/dev/null 2>&1) || {
  echo "web-deps: apt-get source libsodium=$version failed (is the source index reachable?)" >&2
  exit 1
}
if [[ ! -f "$tree/src/libsodium/include/sodium/version.h.in" ]]; then
  echo "web-deps: libsodium's source did not unpack to $tree" >&2
  exit 1
fi
echo "$tree"
