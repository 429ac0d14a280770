"""A fleet scan on an existing engine: Dask's LocalCluster (worker processes) mapping
`offload.targets` and `offload.fit` over wheels gets exactly what the sequential scan gets."""

import pytest

import offload
from conftest import FIXTURES, REAL_WHEELS, WHEEL_CACHE

distributed = pytest.importorskip("distributed", reason="Dask's distributed is not installed in this environment")


def scan(path):
    """What a fleet scan keeps of one wheel: its targets and whether it runs on two GPUs."""
    return {
        "targets": sorted({t["target_id"] for t in offload.targets(path)}),
        "fit": {g["gpu"]: g["runs"] for g in offload.fit(path, ["gfx90a", "sm_80"])["gpus"]},
    }


def test_dask_local_cluster_equals_the_sequential_scan():
    wheels = [str(FIXTURES / "packages" / "gpu_libs-1.0-py3-none-linux_x86_64.whl"), str(FIXTURES / "packages" / "stored.zip")]
    # The real wheels already cached (test_wheels fetches them) join the fleet.
    wheels += [str(WHEEL_CACHE / name) for _, name, _ in REAL_WHEELS.values() if (WHEEL_CACHE / name).is_file()]
    sequential = [scan(w) for w in wheels]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            futures = client.map(scan, wheels, pure=False)
            assert client.gather(futures) == sequential
            # The raw documents travel too (plain dicts and lists).
            assert client.gather(client.map(offload.targets, wheels)) == [offload.targets(w) for w in wheels]
    assert any(s["targets"] for s in sequential)
