#!/usr/bin/env bash
# `make python-test`: builds the Python wheel with maturin (from PyPI), installs it into a fresh
# virtual environment with pytest and Dask, and runs python/tests/ there against the CLI that
# cargo builds (every function's document must be the command's `--json`). Real GPU wheels come
# from ~/.cache/offload-explorer/wheels, fetched from PyPI when missing; offline, the tests that
# need them say they are skipped. Everything lives in target/python/.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MATURIN=maturin==1.16.0
TEST_TOOLS=(pytest==9.2.0 dask==2026.8.0 distributed==2026.8.0)
OUT=$ROOT/target/python
BUILD_VENV=$OUT/build-venv
TEST_VENV=$OUT/test-venv

need_cargo
# The build environment is kept between runs: maturin is installed once.
if ! "$BUILD_VENV/bin/maturin" --version 2>/dev/null | grep -qx "maturin ${MATURIN#maturin==}"; then
  say "installing $MATURIN into $BUILD_VENV"
  python3 -m venv --clear "$BUILD_VENV"
  "$BUILD_VENV/bin/pip" install --quiet "$MATURIN"
fi

rm -rf "$OUT/wheels"
(cd "$ROOT/python" && "$BUILD_VENV/bin/maturin" build --release --quiet --out "$OUT/wheels")
cargo build --release -p offload-cli

# The wheel goes into a fresh environment each run, as a user would install it.
python3 -m venv --clear "$TEST_VENV"
"$TEST_VENV/bin/pip" install --quiet "$OUT"/wheels/offload_explorer-*.whl "${TEST_TOOLS[@]}"

say "$(ls "$OUT"/wheels/) installed into $TEST_VENV"
cd "$ROOT"
OFFLOAD_CLI=$ROOT/target/release/offload OFFLOAD_REPO=$ROOT OFFLOAD_WHEEL=$(ls "$OUT"/wheels/offload_explorer-*.whl) \
  "$TEST_VENV/bin/python" -m pytest -q -p no:cacheprovider -ra python/tests "$@"
