"""`offload.check`: the release gate in Python, the same document as `offload check --json`."""

import json
import os
import subprocess

import offload
import pytest

REPO = os.environ.get("OFFLOAD_REPO", os.path.join(os.path.dirname(__file__), "..", ".."))
CLI = os.environ.get("OFFLOAD_CLI", "offload")
HIP = os.path.join(REPO, "tests", "images", "hip_kernels.o")


def cli_check(*args):
    out = subprocess.run([CLI, "check", "--json", *args], capture_output=True, text=True)
    return out.returncode, json.loads(out.stdout)


def test_required_targets_pass_and_fail_as_the_command_says():
    ok = offload.check(HIP, require=["gfx90a", "gfx1100"])
    assert ok["passed"] is True
    code, doc = cli_check(HIP, "--require", "gfx90a,gfx1100")
    assert code == 0 and doc["files"] == ok["files"]

    missing = offload.check(HIP, require="gfx942")
    assert missing["passed"] is False
    rules = {f["rule"] for c in missing["files"][0]["checks"] for f in c["findings"]}
    assert rules == {"required-target"}
    code, doc = cli_check(HIP, "--require", "gfx942")
    assert code == 1 and doc["files"] == missing["files"]


def test_limits_and_a_baseline_from_an_earlier_result(tmp_path):
    first = offload.check(HIP)
    # The file against its own baseline: no regression.
    assert offload.check(HIP, baseline=first["baseline"])["passed"] is True
    # Limits as keywords, and from a policy file.
    tight = offload.check(HIP, max_registers=10)
    assert tight["passed"] is False
    policy = tmp_path / "offload-check.toml"
    policy.write_text('[[limits]]\nregisters = 10\n\n[[exceptions]]\nkernel = "*"\nignore = true\n')
    assert offload.check(HIP, policy=policy)["passed"] is True


def test_a_policy_with_a_misspelt_key_is_an_error(tmp_path):
    policy = tmp_path / "bad.toml"
    policy.write_text("[[limits]]\nregistres = 10\n")
    with pytest.raises(offload.Error, match="registres"):
        offload.check(HIP, policy=policy)
