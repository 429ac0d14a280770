"""`offload doctor` and `offload.doctor` on a virtual environment holding one real ROCm wheel
(cupy for ROCm 5.0: gfx801 ... gfx1012) and one real CUDA wheel (cuRAND: sm_50 ... sm_90 and
PTX compute_90), on GPUs named and on fake machines (a KFD topology, a fake nvidia-smi)."""

import json
import os
import shutil
import subprocess
import sys

import offload
import pytest
from pathlib import Path

from conftest import FIXTURES, run_cli

ROCM, CUDA = "cupy-rocm-5-0", "nvidia-curand-cu12"


def answers(doc):
    """{(distribution, gpu): answer}."""
    return {(d["name"], a["gpu"]): a for d in doc["distributions"] for a in d["answers"]}


def rules(answer):
    return {(i["target"], i["rule"]) for i in answer["images"]}


def test_runs_by_rule_and_does_not_run(gpu_venv):
    _, site = gpu_venv
    gpus = ["gfx906", "gfx906:xnack-", "gfx90a", "sm_86", "sm_87", "sm_100"]
    doc = offload.doctor(gpus=gpus, paths=[site])
    args = [a for g in gpus for a in ("--gpu", g)]
    code, out, err = run_cli("doctor", "--json", *args, site)
    assert code == 1, err
    assert json.loads(out) == doc
    assert doc["runs"] is False and doc["problems"] == []
    a = answers(doc)
    assert {d["name"] for d in doc["distributions"]} == {ROCM, CUDA}
    # An image for the GPU itself, an image whose features the GPU's modes satisfy.
    assert a[ROCM, "gfx906"]["verdict"] == "runs" and rules(a[ROCM, "gfx906"]) == {("gfx906", "exact")}
    assert rules(a[ROCM, "gfx906:xnack-"]) == {("gfx906", "target-id")}
    # Nothing for gfx90a: every library with device code named, with the targets it has.
    no = a[ROCM, "gfx90a"]
    assert no["verdict"] == "does-not-run" and len(no["not_running"]) == 3
    assert {"gfx900", "gfx906", "gfx908", "gfx1010"} <= set(no["targets"]) and "gfx90a" not in no["targets"]
    # NVIDIA: exact, a newer GPU of the same major, and PTX the driver compiles.
    assert rules(a[CUDA, "sm_86"]) == {("sm_86", "exact")}
    assert a[CUDA, "sm_87"]["verdict"] == "runs" and rules(a[CUDA, "sm_87"]) == {("sm_86", "cubin-same-major")}
    # cuRAND 10.3.5 has PTX (compute_90) in most fatbins but not in all: one has nothing for Blackwell.
    assert a[CUDA, "sm_100"]["verdict"] == "does-not-run"
    assert "no PTX at or below compute_100" in a[CUDA, "sm_100"]["reason"]
    # Code for the other vendor only: not for this GPU, not a failure.
    assert a[ROCM, "sm_86"]["verdict"] == "not-for-this-gpu" and a[CUDA, "gfx90a"]["verdict"] == "not-for-this-gpu"
    # The libraries without device code are counted, not listed.
    assert doc["libraries"]["without_device_code"] > 0
    listed = [l["path"] for d in doc["distributions"] for l in d["libraries"]]
    assert len(listed) == doc["libraries"]["with_device_code"] == 4

    code, out, _ = run_cli("doctor", "--gpu", "gfx906,sm_86", site)
    assert code == 0
    assert f"{ROCM} 13.3.0 (3 libraries with device code)" in out and "gfx906: runs: gfx906 (exact)" in out


def test_ptx_jit_outside_any_distribution(tmp_path):
    # Two committed NVIDIA fixtures copied where no distribution owns them.
    for name in ["nv_3arch_default.fatbin", "libnv_2arch.so"]:
        shutil.copy(FIXTURES / "nvidia" / name, tmp_path / name)
    # A library without device code: the module's own.
    shutil.copy(offload._offload.__file__, tmp_path / "libplain.so")
    doc = offload.doctor(gpus=["sm_89", "sm_100", "sm_70"], paths=[tmp_path])
    assert [d["name"] for d in doc["distributions"]] == [None]
    assert doc["libraries"] == {"read": 3, "with_device_code": 2, "without_device_code": 1}
    a = answers(doc)
    assert a[None, "sm_89"]["verdict"] == "runs"
    assert rules(a[None, "sm_89"]) == {("sm_80", "cubin-same-major"), ("sm_86", "cubin-same-major")}
    assert a[None, "sm_100"]["verdict"] == "runs-ptx-jit"
    assert rules(a[None, "sm_100"]) == {("compute_80", "ptx-jit"), ("compute_86", "ptx-jit")}
    assert a[None, "sm_70"]["verdict"] == "does-not-run"
    # sm_75 is the oldest cubin of both, and their PTX is for newer GPUs.
    assert sorted(a[None, "sm_70"]["not_running"]) == [str(tmp_path / n) for n in ["libnv_2arch.so", "nv_3arch_default.fatbin"]]
    code, out, err = run_cli("doctor", "--gpu", "sm_100", tmp_path)
    assert code == 0, err
    assert "sm_100: runs through PTX JIT" in out and "not from a distribution" in out


def test_the_environment_is_read_from_its_interpreter(gpu_venv):
    python, site = gpu_venv
    code, out, err = run_cli("doctor", "--json", "--gpu", "sm_86", "--python", python)
    assert code == 0, err
    doc = json.loads(out)
    assert str(site) in doc["directories"]
    assert answers(doc)[CUDA, "sm_86"]["verdict"] == "runs"
    # The wheel's command reads the environment it is installed in (the module's own library
    # is there), and so does the module.
    script = Path(sys.executable).with_name("offload")
    env = dict(os.environ)
    env.pop("OFFLOAD_PYTHON", None)
    mine = subprocess.run([str(script), "doctor", "--json", "--gpu", "gfx90a"], capture_output=True, text=True, env=env)
    assert mine.returncode == 0, mine.stderr
    assert str(Path(offload.__file__).parent.parent) in json.loads(mine.stdout)["directories"]
    mine = offload.doctor(gpus="gfx90a")
    assert mine["libraries"]["read"] >= 1 and mine["runs"] is True


def test_gpus_found_on_the_machine(gpu_venv, fake_machine):
    _, site = gpu_venv
    # Node 1 a gfx906 (90006), node 2 a gfx1031 (100301); two NVIDIA GPUs.
    env = fake_machine(amd=[90006, 100301], nvidia=["8.6", "9.0"])
    code, out, err = run_cli("doctor", "--json", site, env=env)
    doc = json.loads(out)
    found = [(g["gpu"], g["found_by"]) for g in doc["gpus"]]
    assert found == [("gfx906", "KFD node 1"), ("gfx1031", "KFD node 2"), ("sm_86", "nvidia-smi GPU 0"), ("sm_90", "nvidia-smi GPU 1")]
    a = answers(doc)
    assert a[ROCM, "gfx1031"]["verdict"] == "does-not-run" and code == 1
    assert a[ROCM, "gfx906"]["verdict"] == a[CUDA, "sm_90"]["verdict"] == "runs"

    # What the runtimes are told to show.
    env = fake_machine(amd=[90006, 100301], nvidia=["8.6", "9.0"], ROCR_VISIBLE_DEVICES="0", CUDA_VISIBLE_DEVICES="1")
    code, out, _ = run_cli("doctor", "--json", site, env=env)
    doc = json.loads(out)
    assert [g["gpu"] for g in doc["gpus"]] == ["gfx906", "sm_90"] and code == 0
    assert "ROCR_VISIBLE_DEVICES=0: 1 of 2 AMD GPUs visible" in doc["notes"]
    env = fake_machine(amd=[90006, 100301], HIP_VISIBLE_DEVICES="1")
    assert [g["gpu"] for g in json.loads(run_cli("doctor", "--json", site, env=env)[1])["gpus"]] == ["gfx1031"]


def test_hsa_override_makes_the_runtime_load_another_image(gpu_venv, fake_machine):
    _, site = gpu_venv
    env = fake_machine(amd=[100301], HSA_OVERRIDE_GFX_VERSION="10.1.0")
    code, out, err = run_cli("doctor", "--json", site, env=env)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["gpus"] == [{"gpu": "gfx1031", "loads_as": "gfx1010", "vendor": "AMD", "found_by": "KFD node 1",
                            "override": "HSA_OVERRIDE_GFX_VERSION=10.1.0"}]
    assert rules(answers(doc)[ROCM, "gfx1031"]) == {("gfx1010", "exact")}
    code, out, _ = run_cli("doctor", site, env=env)
    assert "gfx1031 (KFD node 1; the runtime loads gfx1010 images: HSA_OVERRIDE_GFX_VERSION=10.1.0, an override)" in out
    # An override naming no GPU is trouble.
    code, _, err = run_cli("doctor", site, env=fake_machine(amd=[100301], HSA_OVERRIDE_GFX_VERSION="10.3"))
    assert code == 2 and "expected major.minor.stepping" in err


def test_no_gpu_is_trouble(gpu_venv, fake_machine):
    _, site = gpu_venv
    env = fake_machine(nvidia_fails=True)
    code, out, err = run_cli("doctor", site, env=env)
    assert code == 2 and out == ""
    assert "no GPU to answer for" in err and "nvidia-smi failed" in err and "name one with --gpu" in err
    # The module raises it, and a GPU that is not one.
    with pytest.raises(offload.Error, match="--gpu: expected"):
        offload.doctor(gpus=["gfx9999"], paths=[site])
    child = subprocess.run(
        [sys.executable, "-c", f"import offload; offload.doctor(paths=[{str(site)!r}])"],
        capture_output=True, text=True, env=env,
    )
    assert child.returncode == 1 and "offload.Error: no GPU to answer for" in child.stderr
