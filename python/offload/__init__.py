"""Read GPU fat binaries from Python, with the `offload` command's own code.

Every function takes a file as a path (``str`` or ``os.PathLike``), as ``bytes`` (or
``bytearray``/``memoryview``), or as a binary file object (anything with ``read()``), and
returns the document the matching command prints with ``--json`` (``offload.list(p)`` is
``json.loads`` of ``offload list --json p``). The work runs in Rust with the GIL released, so
threads scale. A file that cannot be read, or reads only in part, raises :class:`Error`.

    >>> import offload
    >>> [t["target_id"] for t in offload.targets("libfoo.so")]
    >>> offload.fit("libfoo.so", "gfx90a")["runs"]
    >>> offload.doctor(gpus=["gfx1100"])          # this environment's libraries
"""

from __future__ import annotations

import io
import json
import os
import sys
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _offload

__all__ = ["Error", "list", "targets", "kernels", "fit", "fit_requirements", "sizes", "check", "diff", "doctor"]

_builtin_list = list


class Error(Exception):
    """A file that could not be read, or read only in part, or a question that is not one.

    ``message`` is the line the ``offload`` command prints after ``offload: error:``;
    ``offset`` the byte offset it names (in the byte space the error was found in: the file's,
    or a decompressed container's), or ``None``; ``document`` what could be read despite the
    error (the ``--json`` document the command prints before failing), or ``None``.
    """

    def __init__(self, message: str, offset: Optional[int] = None, document: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.document = document


def _source(file: Any) -> Tuple[Optional[str], Any, str]:
    """(path, data, name) of a path or URL, bytes, or a binary file object. A file object that
    seeks is handed over whole and read by seek and read (only what is needed: an fsspec file
    on object storage is never downloaded whole); one that does not is read here."""
    if isinstance(file, (bytes, bytearray, memoryview)):
        return None, bytes(file), "<bytes>"
    if isinstance(file, (str, os.PathLike)):
        path = os.fspath(file)
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        return path, None, path
    read = getattr(file, "read", None)
    if callable(read):
        name = getattr(file, "name", None)
        name = name if isinstance(name, str) else "<bytes>"
        if _seekable(file):
            return None, file, name
        data = read()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"expected a binary file object, found one whose read() gives {type(data).__name__}")
        return None, bytes(data), name
    raise TypeError(f"expected a path, bytes or a binary file object, found {type(file).__name__}")


def _seekable(file: Any) -> bool:
    """Whether a file object can be read by seek and read: it says so, and reads bytes."""
    if not all(callable(getattr(file, m, None)) for m in ("seek", "tell", "read")):
        return False
    if isinstance(file, io.TextIOBase):
        return False  # read(), whose text is refused with the reason
    try:
        return not hasattr(file, "seekable") or bool(file.seekable())
    except (OSError, ValueError):
        return False


def _answer(reply: Tuple[Optional[str], Optional[Tuple[str, Optional[int]]]]) -> Any:
    document, failure = reply
    document = json.loads(document) if document is not None else None
    if failure is not None:
        raise Error(failure[0], failure[1], document)
    return document


def _strings(value: Union[str, Iterable[str], None], what: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    out = _builtin_list(value)
    for v in out:
        if not isinstance(v, str):
            raise TypeError(f"{what}: expected strings, found {type(v).__name__}")
    return out


def list(file: Any) -> Dict[str, Any]:  # noqa: A001 - the command's name
    """The whole tree and the device targets: ``offload list --json``.

    ``{file, root, spaces, targets}``; a node is ``{kind, label, space, offset, size, fields,
    field_spans, editable, diagnostics, children}`` (docs/cli.md has every key).
    """
    return _answer(_offload.list(*_source(file)))


def targets(file: Any) -> List[Dict[str, Any]]:
    """The device images' targets: the ``targets`` of ``offload list --json``.

    Each is ``{target_id, offload_kind, triple, processor, features, image_size, stored_size,
    compression, chain, member}`` (and ``file_name`` for NVIDIA fatbin entries).
    """
    return _answer(_offload.targets(*_source(file)))


def kernels(file: Any, targets: Union[str, Sequence[str], None] = None) -> Dict[str, Any]:
    """Every kernel with its resources per target: ``offload kernels --json [--target T]``.

    ``targets`` keeps only those columns (``"gfx90a"``, ``"gfx90a:xnack+"``, ``"sm_80"``).
    """
    return _answer(_offload.kernels(*_source(file), _strings(targets, "targets")))


def fit(file: Any, gpu: Union[str, Sequence[str]]) -> Dict[str, Any]:
    """Will it run on these GPUs? ``offload fit --json --gpu GPU``.

    ``gpu`` is one GPU (``"gfx1201"``, ``"gfx90a:xnack+"``, ``"sm_89"``) or several.
    ``{file, runs, gpus: [{gpu, runs, reason, libraries: [...], requirements}]}``.
    """
    return _answer(_offload.fit(*_source(file), _strings(gpu, "gpu")))


def sizes(file: Any, drop: Union[str, Sequence[str], None] = None) -> Dict[str, Any]:
    """Bytes per target: ``offload sizes --json [--drop T]``.

    With ``drop``, the exact size of the file without those targets (under ``drop``); nothing
    is written.
    """
    return _answer(_offload.sizes(*_source(file), _strings(drop, "drop")))


def check(
    file: Any,
    require: Union[str, Sequence[str], None] = None,
    policy: Union[str, "os.PathLike[str]", None] = None,
    baseline: Union[Dict[str, Any], str, "os.PathLike[str]", None] = None,
    max_registers: Optional[int] = None,
    max_spills: Optional[int] = None,
    max_scratch: Optional[int] = None,
    max_lds: Optional[int] = None,
    min_waves: Optional[int] = None,
) -> Dict[str, Any]:
    """A release gate: ``offload check --json FILE [--require T] [--policy P] [--baseline B]``.

    ``policy`` is the path of an ``offload-check.toml``; ``baseline`` the path of one written by
    ``--write-baseline`` or the ``baseline`` of an earlier ``check`` result. Returns ``{passed,
    files: [{file, passed, checks: [{name, library, passed, findings}]}], baseline}``.
    """
    import json
    import os

    policy_text = ""
    if policy is not None:
        with open(os.fspath(policy), encoding="utf-8") as f:
            policy_text = f.read()
    baseline_text = None
    if isinstance(baseline, dict):
        baseline_text = json.dumps(baseline)
    elif baseline is not None:
        with open(os.fspath(baseline), encoding="utf-8") as f:
            baseline_text = f.read()
    limits = (max_registers, max_spills, max_scratch, max_lds, min_waves)
    return _answer(
        _offload.check(*_source(file), policy_text, _strings(require, "require"), limits, baseline_text)
    )


def diff(old: Any, new: Any) -> Dict[str, Any]:
    """Two builds compared: ``offload diff --json OLD NEW``.

    ``equal`` is true when the device contents are the same.
    """
    return _answer(_offload.diff(_source(old), _source(new)))


def doctor(
    gpus: Union[str, Sequence[str], None] = None,
    paths: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = None,
) -> Dict[str, Any]:
    """Will the libraries of this environment run on these GPUs? ``offload doctor --json``.

    ``paths``: directories (or library files) to read; by default the directories on this
    interpreter's ``sys.path``. ``gpus``: by default this machine's (KFD topology, nvidia-smi,
    with ``HSA_OVERRIDE_GFX_VERSION`` and the ``*_VISIBLE_DEVICES`` variables honoured).
    The document's ``runs`` is false when a library does not run on a GPU; ``problems`` lists
    what could not be read. No GPU to answer for raises :class:`Error`.
    """
    if paths is None:
        dirs = [p for p in sys.path if p and os.path.isdir(p)]
    else:
        dirs = [os.fsdecode(os.fspath(p)) for p in paths]
    reply, failure = _offload.doctor(dirs, _strings(gpus, "gpus"), sys.executable or "python3")
    if failure is not None:
        raise Error(failure[0], failure[1])
    document, _status = reply
    return json.loads(document)


def fit_requirements(
    requirements: Union[str, Sequence[str]],
    gpu: Union[str, Sequence[str]],
    index_url: Optional[str] = None,
    extra_index_urls: Union[str, Sequence[str], None] = None,
    python_version: Optional[str] = None,
    platform: Union[str, Sequence[str], None] = None,
    python: Optional[str] = None,
) -> Dict[str, Any]:
    """Would what pip installs for these requirements run on these GPUs, before installing it?
    ``offload fit --json --gpu GPU --pip REQ...``.

    pip's resolver (``python -m pip install --dry-run --report``, of ``python``, by default
    this interpreter) names the wheels; each is read by URL, only where it can hold device
    code, and answered for per distribution: the document of :func:`doctor`, with
    ``requirements``. Requirements pip cannot resolve raise :class:`Error`.
    """
    pip = (index_url, _strings(extra_index_urls, "extra_index_urls"), python_version, _strings(platform, "platform"))
    reply, failure = _offload.fit_requirements(
        _strings(requirements, "requirements"), _strings(gpu, "gpu"), python or sys.executable or "python3", pip
    )
    if failure is not None:
        raise Error(failure[0], failure[1])
    document, _status = reply
    return json.loads(document)
