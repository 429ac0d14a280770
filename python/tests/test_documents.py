"""Every function of the module gives the document the CLI prints with `--json`, on the
committed fixtures, for a path, a file object and bytes."""

import io
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import offload
import pytest

from conftest import CLI, FIXTURE_FILES, FIXTURES, IMAGES, cli_json, run_cli

FILES = [FIXTURES / f for f in FIXTURE_FILES] + [IMAGES / "hip_kernels.o", IMAGES / "cuda_kernels_sm80.cubin"]
GPUS = ["gfx90a", "gfx906:xnack-", "gfx1100", "sm_80", "sm_89"]


def answer(function, *args):
    """(document, failed): a failure's document is the one `offload.Error` carries."""
    try:
        return function(*args), False
    except offload.Error as e:
        assert e.document is not None, f"{function.__name__}: {e.message}"
        return e.document, True


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_list_and_targets_are_the_cli_documents(path):
    expected = cli_json("list", path, codes=(0, 1))
    doc, failed = answer(offload.list, str(path))
    assert doc == expected
    assert failed == bool(run_cli("list", "--json", path)[0])
    # A PathLike and an open binary file give the same document.
    assert answer(offload.list, Path(path))[0] == expected
    with open(path, "rb") as f:
        assert answer(offload.list, f)[0] == expected
    assert answer(offload.targets, str(path))[0] == expected["targets"]
    # Bytes have no name: their root is `<bytes>`, at the head of each target's chain and in
    # the names NVIDIA entries are extracted under.
    def unnamed_target(t):
        t = dict(t, chain=[t["chain"][0].replace(path.name, "<bytes>", 1), *t["chain"][1:]])
        if "file_name" in t:
            t["file_name"] = t["file_name"].replace(path.stem, "<bytes>", 1)
        return t

    unnamed = [unnamed_target(t) for t in expected["targets"]]
    assert answer(offload.targets, path.read_bytes())[0] == unnamed
    assert answer(offload.targets, io.BytesIO(path.read_bytes()))[0] == unnamed


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_kernels_fit_sizes_are_the_cli_documents(path):
    assert answer(offload.kernels, str(path))[0] == cli_json("kernels", path, codes=(0, 1))
    args = [a for g in GPUS for a in ("--gpu", g)]
    assert answer(offload.fit, str(path), GPUS)[0] == cli_json("fit", path, *args, codes=(0, 1, 2))
    assert answer(offload.fit, str(path), "gfx90a")[0] == cli_json("fit", path, "--gpu", "gfx90a", codes=(0, 1, 2))
    assert answer(offload.sizes, str(path))[0] == cli_json("sizes", path, codes=(0, 1))


def test_kernels_of_some_targets_and_sizes_without_some():
    path = FIXTURES / "hip_elf_2arch_compressed.o"
    assert offload.kernels(path, targets="gfx90a") == cli_json("kernels", path, "--target", "gfx90a")
    doc = offload.sizes(path, drop=["gfx906"])
    assert doc == cli_json("sizes", path, "--drop", "gfx906")
    assert doc["drop"]["targets"] == ["gfx906"] and doc["drop"]["size"] < doc["file_size"]
    # Dropping from bytes measures the same file.
    from_bytes = offload.sizes(path.read_bytes(), drop="gfx906")
    assert from_bytes["drop"]["size"] == doc["drop"]["size"]


def test_diff_is_the_cli_document():
    old, new = FIXTURES / "hip_elf_2arch.o", FIXTURES / "hip_elf_2arch_compressed.o"
    doc = offload.diff(old, new)
    assert doc == cli_json("diff", old, new, codes=(0, 1))
    assert offload.diff(str(old), old)["equal"] is True
    assert offload.diff(old.read_bytes(), new.read_bytes())["kernels"] == doc["kernels"]


def test_threads_answer_as_one_thread_does():
    # The GIL is released during the work: threads run side by side and answer the same.
    paths = [str(p) for p in FILES] * 3
    sequential = [offload.targets(p) for p in paths]
    with ThreadPoolExecutor(max_workers=4) as pool:
        assert list(pool.map(offload.targets, paths)) == sequential


def test_the_installed_command_is_the_cli():
    # The wheel's `offload` console script runs the same code in the interpreter's process.
    script = Path(sys.executable).with_name("offload")
    path = FIXTURES / "libhip_3tu_compressed.so"
    mine = subprocess.run([str(script), "list", "--json", str(path)], capture_output=True, text=True)
    assert mine.returncode == 0, mine.stderr
    assert json.loads(mine.stdout) == cli_json("list", path)
    for gpu, status in [("gfx90a", 0), ("gfx1100", 1), ("gfx9999", 2)]:
        mine = subprocess.run([str(script), "fit", str(path), "--gpu", gpu], capture_output=True, text=True)
        theirs = subprocess.run([CLI, "fit", str(path), "--gpu", gpu], capture_output=True, text=True)
        assert (mine.returncode, mine.stdout, mine.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr)
        assert mine.returncode == status
    usage = subprocess.run([str(script), "list", "--no-such-option"], capture_output=True, text=True)
    assert usage.returncode == 2 and "--no-such-option" in usage.stderr
    module = subprocess.run([sys.executable, "-m", "offload", "--version"], capture_output=True, text=True)
    assert module.returncode == 0 and module.stdout.startswith("offload ")
