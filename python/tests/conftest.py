"""What the suite shares: the CLI to compare with, the committed fixtures, the real wheels
(cached in ~/.cache/offload-explorer/wheels, fetched from PyPI when missing, skipped offline),
and a virtual environment with one real ROCm and one real CUDA wheel installed."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(os.environ.get("OFFLOAD_REPO") or Path(__file__).resolve().parents[2])
FIXTURES = REPO / "tests" / "fixtures"
CLI = os.environ.get("OFFLOAD_CLI") or str(REPO / "target" / "release" / "offload")
WHEEL_CACHE = Path(os.environ.get("OFFLOAD_WHEEL_CACHE") or "~/.cache/offload-explorer/wheels").expanduser()

# Committed fixtures of every family: HIP objects and libraries, compressed bundles, offload
# binaries, a device archive, NVIDIA fatbins and objects, device images, packages.
FIXTURE_FILES = [
    "hip_elf_2arch_compressed.o",
    "libhip_3tu_compressed.so",
    "hip_elf_newdriver.o",
    "ccob_zstd_v3.hipfb",
    "bundle_text.ll",
    "offbin_cuda_ptx.offbin",
    "hip_rdc_archive.a",
    "hip_coff_compressed.obj",
    "nvidia/libnv_2arch.so",
    "nvidia/nv_3arch_lz4_all.fatbin",
    "packages/gpu_libs-1.0-py3-none-linux_x86_64.whl",
    "packages/pkg.tar.zst",
]
IMAGES = REPO / "tests" / "images"

# Real GPU wheels from PyPI: (requirement, file name, pip download options). One ROCm
# (cupy for ROCm 5.0: AMD code objects in clang offload bundles, ~58 MiB) and one CUDA
# (cuRAND: cubins for sm_50 ... sm_90 and PTX for compute_90 in NVIDIA fatbins, ~54 MiB).
REAL_WHEELS = {
    "rocm": (
        "cupy-rocm-5-0==13.3.0",
        "cupy_rocm_5_0-13.3.0-cp311-cp311-manylinux2014_x86_64.whl",
        ["--python-version", "3.11", "--platform", "manylinux2014_x86_64"],
    ),
    "cuda": (
        "nvidia-curand-cu12==10.3.5.147",
        "nvidia_curand_cu12-10.3.5.147-py3-none-manylinux2014_x86_64.whl",
        ["--platform", "manylinux2014_x86_64"],
    ),
}


def run_cli(*args, env=None):
    """(returncode, stdout, stderr) of the CLI built by cargo."""
    p = subprocess.run([CLI, *map(str, args)], capture_output=True, text=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def cli_json(*args, codes=(0,), env=None):
    """The CLI's `--json` document; its exit status must be one of `codes`."""
    code, out, err = run_cli(*args, "--json", env=env)
    assert code in codes, f"offload {' '.join(map(str, args))} --json: exit {code}: {err}"
    return json.loads(out)


def real_wheel(key):
    """The cached real wheel `key` of REAL_WHEELS, downloaded from PyPI when missing."""
    requirement, name, options = REAL_WHEELS[key]
    path = WHEEL_CACHE / name
    if path.is_file():
        return path
    WHEEL_CACHE.mkdir(parents=True, exist_ok=True)
    p = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:", *options,
         "--dest", str(WHEEL_CACHE), requirement],
        capture_output=True, text=True, timeout=900,
    )
    if p.returncode != 0 or not path.is_file():
        pytest.skip(f"{name} is not in {WHEEL_CACHE} and PyPI did not give it (offline?): {p.stderr.strip()[-300:]}")
    return path


@pytest.fixture(scope="session")
def gpu_venv(tmp_path_factory):
    """A virtual environment with the real ROCm and CUDA wheels `pip install --no-deps`'d:
    (its python, its site-packages)."""
    wheels = [real_wheel("rocm"), real_wheel("cuda")]
    venv = tmp_path_factory.mktemp("gpu-venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    p = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile", "--no-index", *map(str, wheels)],
        capture_output=True, text=True, timeout=900,
    )
    if p.returncode != 0:
        pytest.skip(f"the real GPU wheels do not install into Python {sys.version.split()[0]}: {p.stderr.strip()[-300:]}")
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    return python, Path(site)


@pytest.fixture
def fake_machine(tmp_path):
    """Builds a fake machine: `make(amd=[gfx_target_version...], nvidia=[compute_cap...] or
    None for no nvidia-smi, nvidia_fails=False, **env)` returns the environment that makes
    `offload doctor` see it (a KFD topology under OFFLOAD_SYSFS_ROOT, a fake nvidia-smi first
    on PATH)."""

    def make(amd=(), nvidia=None, nvidia_fails=False, **extra):
        root = tmp_path / "sysfs"
        nodes = root / "sys/class/kfd/kfd/topology/nodes"
        # Node 0 is the CPU, as on real machines: gfx_target_version 0.
        for i, version in enumerate([0, *amd]):
            node = nodes / str(i)
            node.mkdir(parents=True, exist_ok=True)
            (node / "properties").write_text(
                f"cpu_cores_count {16 if i == 0 else 0}\nsimd_count {0 if i == 0 else 256}\n"
                f"gfx_target_version {version}\nunique_id {0x1234_0000 + i}\n"
            )
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir(exist_ok=True)
        script = bin_dir / "nvidia-smi"
        script.unlink(missing_ok=True)
        if nvidia is not None or nvidia_fails:
            if nvidia_fails:
                body = "echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'\nexit 9\n"
            else:
                body = (
                    '[ "$*" = "--query-gpu=compute_cap --format=csv,noheader" ] || { echo "unexpected: $*" >&2; exit 3; }\n'
                    + "".join(f"echo {c}\n" for c in nvidia)
                )
            script.write_text("#!/bin/sh\n" + body)
            script.chmod(0o755)
        env = {k: v for k, v in os.environ.items()
               if k not in ("HSA_OVERRIDE_GFX_VERSION", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES")}
        # Only the fake nvidia-smi: the directories of the system tools, without any real one.
        system = [d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not (Path(d) / "nvidia-smi").exists()]
        env["PATH"] = os.pathsep.join([str(bin_dir), *system])
        env["OFFLOAD_SYSFS_ROOT"] = str(root)
        env.update({k: str(v) for k, v in extra.items()})
        return env

    return make


def have(tool):
    return shutil.which(tool) is not None
