#!/usr/bin/env bash
# Draws every figure of docs/figures again (and writes its CSV) by running the command each page
# shows for it: the lines of docs/*.md that start `shufflempc study ... --plot docs/figures/...`.
# Run it after a change to what figures draw (colours, legends, labels); the CSVs' seeded columns
# come out as scripts/seeded-docs.sh checks them, their timing columns are this run's.
#   bash scripts/figures.sh [CLI]          (CLI: default build/bin/shufflempc)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$root/build/bin/shufflempc}"
[[ -x "$cli" ]] || { echo "figures: no shufflempc at $cli (build first)" >&2; exit 2; }
cd "$root"
mapfile -t commands < <(grep -h '^shufflempc study .*--plot docs/figures/' docs/*.md | sort -u)
started=$SECONDS
for i in "${!commands[@]}"; do
  echo "figures: [$((i + 1))/${#commands[@]}, $((SECONDS - started)) s] ${commands[$i]}" >&2
  read -r -a words <<<"${commands[$i]#shufflempc }"
  "$cli" "${words[@]}" >/dev/null
done
echo "figures: ${#commands[@]} figures drawn in $((SECONDS - started)) s" >&2
