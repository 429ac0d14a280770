"""The one abi3 wheel imports and answers on the oldest CPython it claims (3.9) and on a newer
one, when this machine has them (pyenv's or on PATH); skipped, saying so, when it does not."""

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES

WHEEL = os.environ.get("OFFLOAD_WHEEL")


def interpreter(minor):
    """A working CPython 3.<minor>, or None."""
    candidates = [f"python3.{minor}", *sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/3.{minor}.*/bin/python3")))]
    for c in candidates:
        try:
            p = subprocess.run([c, "-c", "import sys; print(sys.version_info[:2])"], capture_output=True, text=True, timeout=60)
        except OSError:
            continue
        if p.returncode == 0 and p.stdout.strip() == f"(3, {minor})":
            return c
    return None


@pytest.mark.parametrize("minor", [9, 13])
def test_the_wheel_on_other_pythons(minor, tmp_path):
    if not WHEEL:
        pytest.skip("OFFLOAD_WHEEL (the built wheel) is not set: run through scripts/python-test.sh")
    if sys.version_info[:2] == (3, minor):
        pytest.skip(f"this suite already runs on 3.{minor}")
    python = interpreter(minor)
    if python is None:
        pytest.skip(f"no CPython 3.{minor} on this machine")
    venv = tmp_path / "venv"
    subprocess.run([python, "-m", "venv", str(venv)], check=True, timeout=300)
    # --no-index: the wheel has no dependencies, so nothing comes from PyPI.
    subprocess.run([str(venv / "bin" / "pip"), "install", "--quiet", "--no-index", WHEEL], check=True, timeout=300)
    child = f"""
import offload
doc = offload.fit({str(FIXTURES / "libhip_3tu_compressed.so")!r}, ["gfx90a", "gfx1100"])
print(sorted((g["gpu"], g["runs"]) for g in doc["gpus"]))
try:
    offload.list({str(FIXTURES / "libhip_3tu_compressed.so")!r}[:-1] + "x")
except offload.Error as e:
    print("Error", "cannot open" in e.message)
"""
    p = subprocess.run([str(venv / "bin" / "python"), "-c", child], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split("\n")[:2] == ["[('gfx1100', False), ('gfx90a', True)]", "Error True"]
    version = subprocess.run([str(venv / "bin" / "offload"), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("offload ")
