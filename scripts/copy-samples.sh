#!/usr/bin/env bash
# Copies the samples listed in www/samples.txt from tests/fixtures to www/samples/, where Trunk
# picks them up (copy-dir). Run by Trunk before every build and by `make samples`; copies only
# what changed, so the fixtures generator's output reaches the page without another step.
# A sample listed by a path below tests/fixtures (`packages/x.whl`) is served by its file name
# alone (`samples/x.whl`), as the page asks for it (www/src/page/samples.rs).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$ROOT/www/samples"
LISTED=$(grep -v -e '^#' -e '^[[:space:]]*$' "$ROOT/www/samples.txt" | cut -f1)
NAMES=$(for f in $LISTED; do basename "$f"; done)
# Two paths with one file name would overwrite each other on the site.
DUPLICATE=$(sort <<<"$NAMES" | uniq -d)
[ -z "$DUPLICATE" ] || { echo "copy-samples: two samples are named $DUPLICATE (www/samples.txt)" >&2; exit 1; }
# A sample dropped from the list is dropped from the site too.
for old in "$ROOT"/www/samples/*; do
  [ -e "$old" ] || continue
  grep -qxF "$(basename "$old")" <<<"$NAMES" || rm -f "$old"
done
for f in $LISTED; do
  src="$ROOT/tests/fixtures/$f"
  dst="$ROOT/www/samples/$(basename "$f")"
  [ -f "$src" ] || { echo "copy-samples: $src is missing (run tests/fixtures/generate.sh)" >&2; exit 1; }
  cmp -s "$src" "$dst" 2>/dev/null || cp "$src" "$dst"
done
