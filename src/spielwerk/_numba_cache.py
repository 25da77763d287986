"""Recover from damaged numba cache files instead of failing on every run.

numba (0.5x-0.6x) keeps compiled kernels in ``__pycache__/*.nbi`` (index) and
``*.nbc`` (data) files, or under ``$NUMBA_CACHE_DIR``. A file cut short (a full
disk, a killed process, a copy in progress) makes ``pickle.loads`` fail inside
numba, which catches only ``OSError``: every later run then stops with the same
traceback until the file is deleted by hand. :func:`install` makes a damaged
file count as a cache miss: the kernel is compiled again and the file is
rewritten, and one line on stderr names the file. Nothing is changed when
numba's cache class does not have the expected methods.
"""

from __future__ import annotations

import pickle
import sys
from typing import Any

_reported: set[str] = set()


def _report(path: object, exc: BaseException) -> None:
    key = str(path)
    if key in _reported:
        return
    _reported.add(key)
    print(
        f"spielwerk: the numba cache file {key} is damaged ({type(exc).__name__}); "
        "compiling again and rewriting it (delete the file if this repeats)",
        file=sys.stderr,
    )


_DAMAGE = (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError,
           ImportError, IndexError, KeyError, MemoryError)


def install() -> bool:
    """Patch numba's cache file reader once; True if it is patched."""
    try:
        from numba.core import caching
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    cls: Any = getattr(caching, "IndexDataCacheFile", None)
    if cls is None or getattr(cls, "_spielwerk_patched", False):
        return bool(cls is not None)
    load, load_index = getattr(cls, "load", None), getattr(cls, "_load_index", None)
    if load is None or load_index is None:  # pragma: no cover - another numba layout
        return False

    def safe_load(self: Any, key: Any) -> Any:
        try:
            return load(self, key)
        except _DAMAGE as exc:
            try:
                where = self._data_path(load_index(self)[key])
            except Exception:  # noqa: BLE001 - only for the message
                where = getattr(self, "_cache_path", "?")
            _report(where, exc)
            return None

    def safe_load_index(self: Any) -> Any:
        try:
            return load_index(self)
        except _DAMAGE as exc:
            _report(getattr(self, "_index_path", "?"), exc)
            return {}

    cls.load = safe_load
    cls._load_index = safe_load_index
    cls._spielwerk_patched = True
    return True
