"""The module on real GPU wheels from PyPI gives the CLI's documents."""

import offload
import pytest

from conftest import cli_json, real_wheel


@pytest.mark.parametrize("key,gpus", [("rocm", ["gfx906", "gfx90a"]), ("cuda", ["sm_86", "sm_100"])])
def test_real_wheels(key, gpus):
    wheel = real_wheel(key)
    listed = cli_json("list", wheel, codes=(0, 1))
    targets = offload.targets(wheel)
    assert targets == listed["targets"] and targets
    assert offload.list(wheel) == listed
    args = [a for g in gpus for a in ("--gpu", g)]
    assert offload.fit(wheel, gpus) == cli_json("fit", wheel, *args, codes=(0, 1))
    assert offload.sizes(wheel) == cli_json("sizes", wheel)
    assert offload.kernels(wheel) == cli_json("kernels", wheel)
