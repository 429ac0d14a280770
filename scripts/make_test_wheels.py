#!/usr/bin/env python3
"""Builds the wheels the remote-reading tests serve (scripts/remote_server.py), from the
repository's real fixtures, into a directory:

    gpu_app-1.0-py3-none-linux_x86_64.whl   requires gpu-dep; Python sources first (large,
                                            deflated: the reader must fetch none of their
                                            bytes), then a HIP library (libhip_3tu.so, 3
                                            processors) and a HIP object (hip_kernels.o)
    gpu_dep-1.0-py3-none-linux_x86_64.whl   a CUDA library (libnv_2arch.so) behind Python
                                            sources of its own
    plain_py-1.0-py3-none-any.whl           Python only: no device code at all

With `--variant DIR`, also a variant wheel (PEP 825) into DIR (apart: installers that do not
know variant labels refuse such file names):

    gpu_dep-1.0-py3-none-linux_x86_64-sm86sm90.whl   gpu_dep's CUDA library, and a
                                            dist-info/variant.json declaring nvidia sm_arch
                                            86_real, 86_virtual (both in the library) and
                                            90_real (absent: to be flagged)

With `--streamed DIR`, also gpu_app's and gpu_dep's wheels as a writer that cannot seek
makes them (Python's zipfile writing to a pipe): the same members, each with a data
descriptor after its data and zero sizes in its local header (only the central directory
gives them), into DIR under the same names; and gpu_app's again with every member stored
(not deflated) into DIR/stored/: where such a member ends is not known before the central
directory says.

The libraries come from tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl (made
by tests/fixtures/generate.sh with clang-22 and nvcc) and tests/images/hip_kernels.o. The
output is the same bytes on every run (fixed dates, fixed order).

    python3 scripts/make_test_wheels.py OUT_DIR [--variant DIR] [--streamed DIR]
"""

import base64
import hashlib
import json
import os
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURE_WHEEL = os.path.join(ROOT, "tests/fixtures/packages/gpu_libs-1.0-py3-none-linux_x86_64.whl")
HIP_OBJECT = os.path.join(ROOT, "tests/images/hip_kernels.o")


def python_source(seed, size):
    """Python text that deflate cannot shrink much: lines of digests, `size` bytes or so."""
    lines, total, n = [], 0, 0
    while total < size:
        digest = hashlib.sha256(f"{seed}:{n}".encode()).hexdigest()
        line = f"VALUE_{n} = '{digest}{digest[:20]}'\n"
        lines.append(line)
        total += len(line)
        n += 1
    return "".join(lines).encode()


def record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def write_wheel(out_dir, name, version, tag, members, requires=(), label=None, extra=()):
    dist_info = f"{name}-{version}.dist-info"
    metadata = f"Metadata-Version: 2.1\nName: {name.replace('_', '-')}\nVersion: {version}\n"
    metadata += "Requires-Python: >=3.8\n"
    metadata += "".join(f"Requires-Dist: {r}\n" for r in requires)
    wheel = f"Wheel-Version: 1.0\nGenerator: make_test_wheels\nRoot-Is-Purelib: false\nTag: {tag}\n"
    files = list(members) + [(f"{dist_info}/METADATA", metadata.encode()), (f"{dist_info}/WHEEL", wheel.encode())]
    files += [(f"{dist_info}/{n}", d) for n, d in extra]
    record = "".join(record_line(n, d) for n, d in files) + f"{dist_info}/RECORD,,\n"
    files.append((f"{dist_info}/RECORD", record.encode()))
    suffix = f"-{label}" if label else ""
    path = os.path.join(out_dir, f"{name}-{version}-{tag}{suffix}.whl")
    with zipfile.ZipFile(path, "w") as z:
        for member, data in files:
            info = zipfile.ZipInfo(member, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    return path


class Unseekable:
    """A file that can only be written to, as a pipe: zipfile then writes data descriptors."""

    def __init__(self, handle):
        self.handle = handle

    def write(self, data):
        return self.handle.write(data)

    def flush(self):
        self.handle.flush()


def rewrite_streamed(path, out_dir, method=None):
    """`path` written again, member by member, through a stream that cannot seek (each member
    compressed with `method`, or as it was)."""
    target = os.path.join(out_dir, os.path.basename(path))
    with zipfile.ZipFile(path) as source, open(target, "wb") as handle:
        with zipfile.ZipFile(Unseekable(handle), "w") as z:
            for info in source.infolist():
                copy = zipfile.ZipInfo(info.filename, date_time=info.date_time)
                copy.compress_type = info.compress_type if method is None else method
                copy.external_attr = info.external_attr
                z.writestr(copy, source.read(info))
    return target


def main():
    usage = "usage: make_test_wheels.py OUT_DIR [--variant DIR] [--streamed DIR]"
    args = sys.argv[1:]
    if not args or len(args) % 2 != 1:
        sys.exit(usage)
    options = dict(zip(args[1::2], args[2::2]))
    if set(options) - {"--variant", "--streamed"}:
        sys.exit(usage)
    variant_dir = options.get("--variant")
    streamed_dir = options.get("--streamed")
    out = args[0]
    os.makedirs(out, exist_ok=True)
    with zipfile.ZipFile(FIXTURE_WHEEL) as z:
        hip_library = z.read("pkg/lib/libhip_3tu.so")
        cuda_library = z.read("pkg/lib/libnv_2arch.so")
    with open(HIP_OBJECT, "rb") as f:
        hip_object = f.read()
    app = [(f"gpu_app/module_{i}.py", python_source(f"app{i}", 200_000)) for i in range(4)]
    app += [("gpu_app/lib/libhip_3tu.so", hip_library), ("gpu_app/lib/hip_kernels.o", hip_object)]
    app += [("gpu_app/zz_after.py", python_source("after", 100_000))]
    dep = [(f"gpu_dep/part_{i}.py", python_source(f"dep{i}", 150_000)) for i in range(2)]
    dep += [("gpu_dep/lib/libnv_2arch.so", cuda_library)]
    plain = [("plain_py/__init__.py", python_source("plain", 120_000))]
    tag = "py3-none-linux_x86_64"
    made = [
        write_wheel(out, "gpu_app", "1.0", tag, app, requires=["gpu-dep>=1.0"]),
        write_wheel(out, "gpu_dep", "1.0", tag, dep),
        write_wheel(out, "plain_py", "1.0", "py3-none-any", plain),
    ]
    for path in made:
        print(path)
    if streamed_dir:
        os.makedirs(streamed_dir, exist_ok=True)
        for path in made[:2]:
            print(rewrite_streamed(path, streamed_dir))
        stored_dir = os.path.join(streamed_dir, "stored")
        os.makedirs(stored_dir, exist_ok=True)
        print(rewrite_streamed(made[0], stored_dir, zipfile.ZIP_STORED))
    if variant_dir:
        os.makedirs(variant_dir, exist_ok=True)
        declared = {"nvidia": {"sm_arch": ["86_real", "86_virtual", "90_real"]}}
        variant = json.dumps({"default-priorities": {"namespace": ["nvidia"]}, "variants": {"sm86sm90": declared}})
        print(write_wheel(variant_dir, "gpu_dep", "1.0", tag, dep, label="sm86sm90",
                          extra=[("variant.json", variant.encode())]))


if __name__ == "__main__":
    main()
