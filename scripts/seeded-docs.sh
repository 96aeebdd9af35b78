#!/usr/bin/env bash
# Checks that every seeded figure in docs/ is what its command prints now: a random stream or a
# fork label that changes makes a documented figure stale, and this fails until it is regenerated.
#
#   bash scripts/seeded-docs.sh [--write] [CLI]     (CLI: default build/bin/shufflempc)
#
# Two kinds of figure, each declared in the doc by an HTML comment (invisible once rendered):
#   <!-- seeded: ARGS -->            the lines up to <!-- end seeded --> are exactly the standard
#   ...                              output of `shufflempc ARGS`
#   <!-- end seeded -->
#   <!-- seeded-csv: FILE: ARGS -->  FILE (relative to docs/) is the CSV `shufflempc ARGS --csv FILE`
#                                    writes, compared without its timing columns (seconds*)
# Without --write it prints a diff for each stale figure and exits 1; with --write it rewrites
# them (a CSV's timing columns are then those of this run).
set -euo pipefail
write=0
if [[ "${1:-}" == "--write" ]]; then
  write=1
  shift
fi
root="$(cd "$(dirname "$0")/.." && pwd)"
cli="${1:-$root/build/bin/shufflempc}"
[[ -x "$cli" ]] || { echo "seeded-docs: no shufflempc at $cli (build first)" >&2; exit 2; }
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

# A CSV without the columns whose header starts with "seconds"; fields may be quoted with commas
# and doubled quotes inside (RFC 4180), as study's CsvWriter writes them.
untimed() {
  awk '
    function split_csv(line, out,    n, i, c, field, quoted) {
      n = 0; field = ""; quoted = 0
      for (i = 1; i <= length(line); i++) {
        c = substr(line, i, 1)
        if (quoted) {
          if (c == "\"" && substr(line, i + 1, 1) == "\"") { field = field "\"\""; i++ }
          else if (c == "\"") { quoted = 0; field = field c }
          else field = field c
        } else if (c == "\"") { quoted = 1; field = field c }
        else if (c == ",") { out[++n] = field; field = "" }
        else field = field c
      }
      out[++n] = field
      return n
    }
    {
      n = split_csv($0, f)
      if (NR == 1) for (i = 1; i <= n; i++) drop[i] = (f[i] ~ /^seconds/)
      row = ""; first = 1
      for (i = 1; i <= n; i++) if (!drop[i]) { row = row (first ? "" : ",") f[i]; first = 0 }
      print row
    }' "$1"
}

status=0
figures=0
stale=0
# Progress on stderr, a line a figure (some are studies of a minute or more).
total=$(cat "$root"/docs/*.md | grep -c '^<!-- seeded' || true)
started=$SECONDS
progress() { echo "seeded-docs: [$((figures + 1))/$total, ${SECONDS}s] ${doc#"$root"/}: shufflempc $1" >&2; }
for doc in "$root"/docs/*.md; do
  grep -q '^<!-- seeded' "$doc" || continue
  rewritten="$scratch/doc.md"
  : >"$rewritten"
  in_block=0
  while IFS= read -r line || [[ -n "$line" ]]; do
    if [[ $in_block == 1 ]]; then
      if [[ "$line" == "<!-- end seeded -->" ]]; then
        in_block=0
        figures=$((figures + 1))
        if ! diff -u "$scratch/old" "$scratch/new" >"$scratch/diff"; then
          echo "seeded-docs: ${doc#"$root"/}: \`shufflempc $args\` prints something else now:" >&2
          cat "$scratch/diff" >&2
          status=1
          stale=$((stale + 1))
        fi
        cat "$scratch/new" >>"$rewritten"
        printf '%s\n' "$line" >>"$rewritten"
      else
        printf '%s\n' "$line" >>"$scratch/old"
      fi
      continue
    fi
    printf '%s\n' "$line" >>"$rewritten"
    if [[ "$line" =~ ^'<!-- seeded: '(.*)' -->'$ ]]; then
      args="${BASH_REMATCH[1]}"
      read -ra argv <<<"$args"
      progress "$args"
      "$cli" "${argv[@]}" >"$scratch/new" 2>"$scratch/err" || { echo "seeded-docs: \`shufflempc $args\` failed:" >&2; cat "$scratch/err" >&2; exit 1; }
      : >"$scratch/old"
      in_block=1
    elif [[ "$line" =~ ^'<!-- seeded-csv: '([^:]+)': '(.*)' -->'$ ]]; then
      file="$root/docs/${BASH_REMATCH[1]}"
      args="${BASH_REMATCH[2]}"
      read -ra argv <<<"$args"
      progress "$args --csv ${file#"$root"/}"
      "$cli" "${argv[@]}" --csv "$scratch/fresh.csv" >/dev/null 2>"$scratch/err" || { echo "seeded-docs: \`shufflempc $args\` failed:" >&2; cat "$scratch/err" >&2; exit 1; }
      figures=$((figures + 1))
      if ! diff -u <(untimed "$file") <(untimed "$scratch/fresh.csv") >"$scratch/diff"; then
        echo "seeded-docs: ${file#"$root"/} is not what \`shufflempc $args\` writes now (timings aside):" >&2
        cat "$scratch/diff" >&2
        status=1
        stale=$((stale + 1))
        [[ $write == 1 ]] && cp "$scratch/fresh.csv" "$file"
      fi
    fi
  done <"$doc"
  [[ $in_block == 0 ]] || { echo "seeded-docs: ${doc#"$root"/}: a seeded block has no <!-- end seeded -->" >&2; exit 1; }
  [[ $write == 1 ]] && ! cmp -s "$rewritten" "$doc" && cp "$rewritten" "$doc"
done
[[ $figures -gt 0 ]] || { echo "seeded-docs: no seeded figure found in docs/" >&2; exit 1; }
if [[ $write == 1 ]]; then
  echo "seeded-docs: $figures seeded figures checked, $stale rewritten"
  exit 0
fi
if [[ $status != 0 ]]; then
  echo "seeded-docs: $stale of $figures seeded figures in docs/ are stale: regenerate them with bash scripts/seeded-docs.sh --write" >&2
  exit 1
fi
echo "seeded-docs: all $figures seeded figures in docs/ reproduce ($((SECONDS - started)) s)"
