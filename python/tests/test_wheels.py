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


def test_the_gil_is_released_while_a_wheel_is_read():
    # While another thread reads a 58 MiB wheel, this thread keeps running Python: it could not
    # if the native call held the GIL.
    wheel = real_wheel("rocm")
    import threading

    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("fit", offload.fit(wheel, "gfx906")))
    worker.start()
    spins = 0
    while worker.is_alive():
        spins += 1
    worker.join()
    assert result["fit"]["runs"] is True
    assert spins > 10_000, f"the main thread ran only {spins} times while the wheel was read"
