#!/usr/bin/env bash
# Packages the .vsix and fails on anything a Marketplace upload would trip on: any vsce warning
# (a missing field, a star activation, a bad icon), and any file that does not belong in it
# (sources, source maps, tests, test data). We have no public repository, so none is named, and
# --allow-missing-repository says so to vsce (it prints nothing then).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-dist/agent-trace-lens.vsix}"
FLAGS=(--no-dependencies --no-rewrite-relative-links --allow-missing-repository)
log="$(npx vsce package "${FLAGS[@]}" --out "$OUT" </dev/null 2>&1)" || { echo "$log"; exit 1; }
echo "$log" | grep -vE '^\s*[│├└]' || true
if grep -qE '(^|[[:space:]])WARNING([[:space:]]|:|$)' <<<"$log"; then
  echo "vsce printed a warning (above): fix it before packaging" >&2
  exit 1
fi
files="$(npx vsce ls --no-dependencies </dev/null 2>&1)"
if bad="$(grep -E '\.map$|^(src|out|test|bench|scripts)/|\.ts$' <<<"$files")"; then
  echo "the .vsix would hold files it must not:" >&2; echo "$bad" >&2
  exit 1
fi
echo "vsix: $(stat -c %s "$OUT") bytes, $(wc -l <<<"$files") files"
