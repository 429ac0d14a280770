#!/usr/bin/env bash
# `make python-test`: builds the Python wheel with maturin (from PyPI), installs it into a fresh
# virtual environment with pytest and Dask, and runs python/tests/ there against the CLI that
# cargo builds (every function's document must be the command's `--json`). Real GPU wheels come
# from ~/.cache/offload-explorer/wheels, fetched from PyPI when missing; offline, the tests that
# need them say they are skipped. Everything lives in target/python/.
#
# The wheel installs on manylinux_2_28 systems (glibc 2.28: RHEL 8, Debian 10) whatever glibc
# builds it: maturin links it with zig (the `ziglang` wheel from PyPI) against glibc 2.28's
# symbols (`--zig --compatibility manylinux_2_28`; a build linked by the system's newer glibc
# would need its 2.29-2.34 symbols), and `auditwheel show` must find it consistent with the
# manylinux_2_28 tag.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MATURIN=maturin==1.16.0
BUILD_TOOLS=("$MATURIN" ziglang==0.17.1 auditwheel==6.4.2)
TEST_TOOLS=(pytest==9.2.0 dask==2026.8.0 distributed==2026.8.0)
OUT=$ROOT/target/python
BUILD_VENV=$OUT/build-venv
TEST_VENV=$OUT/test-venv

need_cargo
# The build environment is kept between runs: its tools are installed once, at these versions.
installed() {
  "$BUILD_VENV/bin/python" - "${BUILD_TOOLS[@]}" 2>/dev/null <<'PY'
import sys
from importlib.metadata import version
sys.exit(any(version(name) != wanted for name, wanted in (r.split("==") for r in sys.argv[1:])))
PY
}
if ! installed; then
  say "installing ${BUILD_TOOLS[*]} into $BUILD_VENV"
  python3 -m venv --clear "$BUILD_VENV"
  "$BUILD_VENV/bin/pip" install --quiet "${BUILD_TOOLS[@]}"
fi

rm -rf "$OUT/wheels"
# maturin finds zig as `python -m ziglang` of the build environment.
(cd "$ROOT/python" && PATH="$BUILD_VENV/bin:$PATH" "$BUILD_VENV/bin/maturin" build --release --quiet \
  --zig --compatibility manylinux_2_28 --out "$OUT/wheels")
WHEEL=$(ls "$OUT"/wheels/offload_explorer-*.whl)
# Run as a module: a build environment copied or moved keeps working (scripts hold its old path).
AUDIT=$("$BUILD_VENV/bin/python" -m auditwheel show "$WHEEL")
if ! grep -q '"manylinux_2_28_x86_64"' <<<"$AUDIT"; then
  say "expected $WHEEL to be consistent with manylinux_2_28_x86_64, auditwheel says:"
  echo "$AUDIT"
  exit 1
fi
say "$(basename "$WHEEL"): auditwheel finds it consistent with manylinux_2_28_x86_64"
cargo build --release -p offload-cli

# The wheel goes into a fresh environment each run, as a user would install it.
python3 -m venv --clear "$TEST_VENV"
"$TEST_VENV/bin/pip" install --quiet "$WHEEL" "${TEST_TOOLS[@]}"

say "$(ls "$OUT"/wheels/) installed into $TEST_VENV"
cd "$ROOT"
OFFLOAD_CLI=$ROOT/target/release/offload OFFLOAD_REPO=$ROOT OFFLOAD_WHEEL=$WHEEL \
  "$TEST_VENV/bin/python" -m pytest -q -p no:cacheprovider -ra python/tests "$@"
