"""Bad input raises `offload.Error` with the CLI's message and offset; it never crashes the
interpreter (checked in a child interpreter, whose death would show)."""

import re
import subprocess
import sys
import textwrap

import offload
import pytest

from conftest import FIXTURES, run_cli


def test_a_truncated_bundle_raises_the_cli_message_with_its_offset(tmp_path):
    data = (FIXTURES / "ccob_zstd_v3.hipfb").read_bytes()[:20]
    path = tmp_path / "truncated.hipfb"
    path.write_bytes(data)
    with pytest.raises(offload.Error) as caught:
        offload.list(str(path))
    code, _, err = run_cli("list", path)
    assert code == 1
    assert err.strip() == f"offload: error: {caught.value.message}"
    offset = int(re.search(r"at byte (\d+)", caught.value.message).group(1))
    assert caught.value.offset == offset
    assert isinstance(caught.value.document, dict) and caught.value.document["file"] == str(path)
    assert str(caught.value) == caught.value.message


def test_missing_files_unknown_gpus_and_wrong_types():
    with pytest.raises(offload.Error, match="no-such-file.so: cannot open"):
        offload.targets("/nonexistent/no-such-file.so")
    with pytest.raises(offload.Error, match="cannot open: a directory"):
        offload.list(str(FIXTURES))
    with pytest.raises(offload.Error, match="--gpu: expected") as caught:
        offload.fit(FIXTURES / "hip_elf_2arch.o", "gfx9999")
    assert caught.value.offset is None
    with pytest.raises(offload.Error, match="no kernels for target gfx1100"):
        offload.kernels(FIXTURES / "hip_elf_2arch.o", targets=["gfx1100"])
    with pytest.raises(TypeError, match="expected a path, bytes or a binary file object, found int"):
        offload.list(123)
    with pytest.raises(TypeError, match="read\\(\\) gives str"):
        offload.list(open(FIXTURES / "bundle_text.ll", "r"))


def test_hostile_bytes_never_crash_the_interpreter():
    # Truncations, bit flips and garbage of real fixtures through every function, in a child
    # interpreter: it must end normally, each call giving a document or offload.Error.
    child = textwrap.dedent(f"""
        import random, offload
        from pathlib import Path
        rng = random.Random(27)
        seeds = [Path({str(FIXTURES)!r}) / n for n in
                 ["hip_elf_2arch_compressed.o", "libhip_3tu_compressed.so", "ccob_zstd_v2.hipfb",
                  "offbin_cuda_ptx.offbin", "nvidia/nv_3arch_lz4_all.fatbin", "hip_rdc_archive.a",
                  "packages/pkg.tar.gz"]]
        answered = failed = 0
        for seed in seeds:
            data = seed.read_bytes()
            for i in range(40):
                b = bytearray(data[: rng.randrange(len(data) + 1)] if i % 2 else data)
                for _ in range(rng.randrange(1, 8)):
                    if b:
                        b[rng.randrange(len(b))] = rng.randrange(256)
                for f in (offload.list, offload.targets, offload.kernels, offload.sizes,
                          lambda x: offload.fit(x, "gfx90a")):
                    try:
                        f(bytes(b)); answered += 1
                    except offload.Error:
                        failed += 1
        print(answered, failed)
    """)
    p = subprocess.run([sys.executable, "-c", child], capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    answered, failed = map(int, p.stdout.split())
    assert answered + failed == 7 * 40 * 5 and failed > 0 and answered > 0


@pytest.mark.parametrize(
    "ident, offset, words",
    [(bytes(60), 4, "ELF class"), (b"\x02\x00" + bytes(58), 5, "byte order"), (b"\x02\x01\x00" + bytes(57), 6, "ELF version")],
)
def test_an_invalid_elf_identification_raises_at_its_offset(ident, offset, words):
    # llvm-readelf says "Invalid ELF class" / "Invalid ELF data"; this was once an ELF object
    # without device code, returned without an error.
    with pytest.raises(offload.Error, match=words) as caught:
        offload.list(b"\x7fELF" + ident)
    assert caught.value.offset == offset
