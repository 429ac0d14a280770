"""Types of the ``offload`` module (see ``offload/__init__.py`` for what each returns)."""

import os
from typing import Any, Dict, List, Optional, Sequence, Union

_File = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview, Any]
_Names = Union[str, Sequence[str]]

class Error(Exception):
    message: str
    offset: Optional[int]
    document: Any
    def __init__(self, message: str, offset: Optional[int] = ..., document: Any = ...) -> None: ...

def list(file: _File) -> Dict[str, Any]: ...
def targets(file: _File) -> List[Dict[str, Any]]: ...
def kernels(file: _File, targets: Optional[_Names] = ...) -> Dict[str, Any]: ...
def fit(file: _File, gpu: _Names) -> Dict[str, Any]: ...
def sizes(file: _File, drop: Optional[_Names] = ...) -> Dict[str, Any]: ...
def check(
    file: _File,
    require: Optional[_Names] = ...,
    policy: Optional[Union[str, "os.PathLike[str]"]] = ...,
    baseline: Optional[Union[Dict[str, Any], str, "os.PathLike[str]"]] = ...,
    max_registers: Optional[int] = ...,
    max_spills: Optional[int] = ...,
    max_scratch: Optional[int] = ...,
    max_lds: Optional[int] = ...,
    min_waves: Optional[int] = ...,
) -> Dict[str, Any]: ...
def diff(old: _File, new: _File) -> Dict[str, Any]: ...
def doctor(
    gpus: Optional[_Names] = ...,
    paths: Optional[Sequence[Union[str, "os.PathLike[str]"]]] = ...,
) -> Dict[str, Any]: ...
def fit_requirements(
    requirements: _Names,
    gpu: _Names,
    index_url: Optional[str] = ...,
    extra_index_urls: Optional[_Names] = ...,
    python_version: Optional[str] = ...,
    platform: Optional[_Names] = ...,
    python: Optional[str] = ...,
) -> Dict[str, Any]: ...
