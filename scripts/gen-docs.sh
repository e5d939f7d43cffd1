#!/usr/bin/env bash
# Rewrites the generated tables in docs/ from the probes' declarations (gpuaccept list
# --metrics / --params) and the system profiles (--profiles), between their <!-- generated: ... --> markers. A unit test
# (DeclaredDocs.*) fails when the docs and the declarations differ; run this, then commit.
# Usage: scripts/gen-docs.sh [path/to/gpuaccept]   (default: build/app/gpuaccept)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/app/gpuaccept}
[ -x "$bin" ] || { echo "gen-docs: no $bin; build first (scripts/build.sh)" >&2; exit 2; }
replace() {  # replace FILE NAME: the lines between the NAME markers become stdin
  local file=$1 name=$2 body
  body=$(cat)
  python3 - "$file" "$name" "$body" <<'PY'
import sys
path, name, body = sys.argv[1:4]
begin, end = f"<!-- generated: {name} -->", f"<!-- end generated: {name} -->"
text = open(path).read()
if begin not in text or end not in text:
    sys.exit(f"gen-docs: {path} lacks the {name} markers")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(path, "w").write(head + begin + "\n" + body + "\n" + end + tail)
PY
}
"$bin" list --metrics | replace docs/criteria.md "gpuaccept list --metrics"
"$bin" list --params | replace docs/parameters.md "gpuaccept list --params"
"$bin" list --profiles | replace docs/criteria.md "gpuaccept list --profiles"
echo "gen-docs: docs/criteria.md and docs/parameters.md rewritten from $bin" >&2
