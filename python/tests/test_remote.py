"""URLs and file objects: `offload.list("http://…")` and the other functions read a URL by range
requests (the CLI's remote reader), file objects by seek and read, and `fit_requirements`
answers for what pip would install. Everything is served by scripts/remote_server.py on
127.0.0.1 from wheels made of the repository's fixtures (scripts/make_test_wheels.py)."""

import io
import json
import subprocess
import sys
import urllib.request
import zipfile

import pytest

import offload
from conftest import REPO, WHEEL_CACHE, cli_json

APP = "gpu_app-1.0-py3-none-linux_x86_64.whl"
DEP = "gpu_dep-1.0-py3-none-linux_x86_64.whl"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """(base URL, directory served, get(path) -> JSON)."""
    root = tmp_path_factory.mktemp("served")
    subprocess.run([sys.executable, str(REPO / "scripts/make_test_wheels.py"), str(root)], check=True,
                   capture_output=True, timeout=120)
    process = subprocess.Popen([sys.executable, str(REPO / "scripts/remote_server.py"), "--quiet", "--root", str(root)],
                               stdout=subprocess.PIPE, text=True)
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url

        def get(path):
            with urllib.request.urlopen(url + path, timeout=30) as response:
                return json.loads(response.read())

        yield url, root, get
    finally:
        process.terminate()
        process.wait(timeout=30)


def without_file(doc):
    """A document without the keys that name the file as it was given."""
    if isinstance(doc, dict):
        return {k: without_file(v) for k, v in doc.items() if not (k == "file" and isinstance(v, str))}
    if isinstance(doc, list):
        return [without_file(v) for v in doc]
    return doc


@pytest.mark.parametrize("behaviour", ["pypi-files/", "redirect/", "norange/", "gzip/"])
def test_a_url_answers_as_the_local_file(server, behaviour):
    url, root, _ = server
    for name in (APP, DEP):
        remote, local = f"{url}{behaviour}{name}", str(root / name)
        assert without_file(offload.list(remote)) == without_file(offload.list(local))
        assert without_file(offload.fit(remote, ["gfx90a", "sm_86"])) == without_file(offload.fit(local, ["gfx90a", "sm_86"]))
        assert without_file(offload.kernels(remote)) == without_file(offload.kernels(local))
        # The module's document is the command's, for a URL too.
        assert offload.list(remote) == cli_json("list", remote)


def test_a_url_is_read_in_part(server):
    url, root, get = server
    get("_stats/reset")
    offload.targets(f"{url}pypi-files/{APP}")
    fetched = get("_stats")["paths"][APP]["agents"]["offload"]
    size = (root / APP).stat().st_size
    assert fetched < size // 4, f"fetched {fetched} of {size} bytes"


class CountingReader(io.RawIOBase):
    """A seekable binary file that counts the bytes read from it (as an fsspec file would)."""

    def __init__(self, data):
        self.data, self.position, self.bytes_read = data, 0, 0

    def readable(self):
        return True

    def seekable(self):
        return True

    def seek(self, offset, whence=0):
        base = {0: 0, 1: self.position, 2: len(self.data)}[whence]
        self.position = base + offset
        return self.position

    def tell(self):
        return self.position

    def read(self, size=-1):
        end = len(self.data) if size is None or size < 0 else min(len(self.data), self.position + size)
        chunk = self.data[self.position:end]
        self.position = end
        self.bytes_read += len(chunk)
        return chunk


def test_a_file_object_is_read_by_seek_and_read(server):
    _, root, _ = server
    data = (root / APP).read_bytes()
    reader = CountingReader(data)
    expected = offload.list(io.BytesIO(data))
    assert offload.list(reader) == expected
    assert 0 < reader.bytes_read < len(data) // 2, f"read {reader.bytes_read} of {len(data)} bytes"
    # Every function takes one; diff reads both sides whole, as the command does.
    assert offload.fit(CountingReader(data), "gfx90a")["runs"] is True
    assert offload.diff(CountingReader(data), io.BytesIO(data))["equal"] is True
    # A file that cannot seek is read whole, as before.
    class Unseekable(io.RawIOBase):
        def readable(self):
            return True

        def seekable(self):
            return False

        def readinto(self, buffer):
            return 0

        def read(self, size=-1):
            return data

    assert offload.list(Unseekable()) == expected


def test_fit_requirements_answers_for_a_package_and_its_gpu_dependency(server):
    url, _, _ = server
    doc = offload.fit_requirements("gpu-app", ["gfx90a", "sm_86", "sm_61"], index_url=f"{url}simple/")
    assert doc["requirements"] == ["gpu-app"]
    verdicts = {(d["name"], a["gpu"]): a["verdict"] for d in doc["distributions"] for a in d["answers"]}
    assert verdicts[("gpu-app", "gfx90a")] == "runs"
    assert verdicts[("gpu-dep", "sm_86")] == "runs"
    assert verdicts[("gpu-dep", "sm_61")] == "does-not-run"
    assert doc["runs"] is False
    with pytest.raises(offload.Error, match="no-such-package"):
        offload.fit_requirements(["no-such-package"], "gfx90a", index_url=f"{url}simple/")


def test_a_real_cached_wheel_by_url(server, tmp_path):
    url, root, get = server
    name = "nvidia_curand_cu12-10.3.5.147-py3-none-manylinux2014_x86_64.whl"
    cached = WHEEL_CACHE / name
    if not cached.is_file():
        pytest.skip(f"{name} is not in {WHEEL_CACHE}")
    (root / name).symlink_to(cached)
    get("_stats/reset")
    assert without_file(offload.list(f"{url}pypi-files/{name}")) == without_file(offload.list(str(cached)))
    fetched = get("_stats")["paths"][name]["agents"]["offload"]
    with zipfile.ZipFile(cached) as z:
        python = sum(i.compress_size for i in z.infolist() if i.filename.endswith(".py"))
    assert fetched <= cached.stat().st_size - python


def test_list_says_what_a_variant_wheel_declares(server, tmp_path):
    """`offload.list` has the `variant` key of `offload list --json`: a variant wheel's declared
    properties (PEP 825 variant.json) beside what its binaries hold, locally and by URL."""
    url, root, _ = server
    subprocess.run([sys.executable, str(REPO / "scripts/make_test_wheels.py"), str(tmp_path / "plain"),
                    "--variant", str(tmp_path)], check=True, capture_output=True, timeout=120)
    name = "gpu_dep-1.0-py3-none-linux_x86_64-sm86sm90.whl"
    (root / "variants").mkdir(exist_ok=True)
    (root / "variants" / name).write_bytes((tmp_path / name).read_bytes())
    for file in (str(tmp_path / name), f"{url}pypi-files/variants/{name}"):
        doc = offload.list(file)
        assert doc["variant"]["label"] == "sm86sm90", file
        declared = [(p["value"], p["has_code"]) for p in doc["variant"]["properties"]]
        assert declared == [("86_real", True), ("86_virtual", True), ("90_real", False)], file
        assert doc["variant"] == cli_json("list", file)["variant"]
        # From a file object too.
        if not file.startswith("http"):
            with open(file, "rb") as handle:
                assert offload.list(handle)["variant"] == doc["variant"]
    # A wheel that is no variant has no `variant` key.
    assert "variant" not in offload.list(str(root / DEP))
