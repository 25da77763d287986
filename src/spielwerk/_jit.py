"""Where compiled numba kernels live, set up once before the first kernel module loads.

numba's ``cache=True`` writes next to the source (``__pycache__``) by default,
which fails or is ignored where the package is installed read-only. spielwerk
keeps its kernels in the user's cache folder instead:
``$NUMBA_CACHE_DIR`` if set, else ``$SPIELWERK_CACHE_DIR/numba``, else
``$XDG_CACHE_HOME/spielwerk/numba`` (``~/.cache/spielwerk/numba``). A folder that
cannot be created leaves numba's own choice in place. :func:`prepare` also
installs the damaged-cache recovery (:mod:`spielwerk._numba_cache`) and makes a
Ctrl-C during a kernel's compile or load wait for its end (never lost inside it).

Inside that folder the kernels go to ``src-<digest>``, a digest of the
package's Python sources. numba checks a cached kernel only against its own
file, so after an edit to a helper in another module (``search/tt.py``, a
kernel's inlined callee) it would load the caller's stale machine code; a new
digest gives changed sources a fresh folder instead (one full compile after an
upgrade or an edit; ``spielwerk warmup`` does it ahead). An explicit
``$NUMBA_CACHE_DIR`` is used as it is.

Every package that defines kernels (``spielwerk.games``, ``spielwerk.search``)
calls :func:`prepare` in its ``__init__``, so ``import spielwerk`` itself stays
free of numba.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

_F = TypeVar("_F", bound=Callable[..., Any])

_prepared = False


def cache_folder() -> Path:
    """The folder spielwerk gives numba for compiled kernels."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    if os.environ.get("SPIELWERK_CACHE_DIR"):
        return Path(os.environ["SPIELWERK_CACHE_DIR"]) / "numba"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "spielwerk" / "numba"


def source_digest() -> str:
    """12 hex digits naming the package's Python sources (their paths and contents)."""
    import hashlib

    root = Path(__file__).resolve().parent
    h = hashlib.blake2b(digest_size=6)
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode())
        try:
            h.update(path.read_bytes())
        except OSError:
            h.update(b"?")
    return h.hexdigest()


def kernel_folder() -> Path:
    """Where the compiled kernels of these sources go: ``$NUMBA_CACHE_DIR`` as it is,
    else ``src-<digest>`` inside :func:`cache_folder`."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    return cache_folder() / f"src-{source_digest()}"


def prepare() -> None:
    """Point numba's kernel cache at :func:`kernel_folder` and apply :data:`_PATCHES` (the
    damaged-cache recovery, Ctrl-C held back while compiling; once). Before numba is
    loaded this only arms an import hook that does all that as numba loads, so a package
    that calls it (``spielwerk.games``) stays cheap to import: reading a game's plug-in
    record loads no numba."""
    global _prepared
    if _prepared:
        return
    _prepared = True
    if "numba" in sys.modules:
        _use_kernel_folder()
        for patch in _PATCHES.values():
            patch()
    else:
        sys.meta_path.insert(0, _NumbaLoading())


def _use_kernel_folder() -> None:
    if not os.environ.get("NUMBA_CACHE_DIR"):
        folder = kernel_folder()
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            folder = None  # type: ignore[assignment]
        if folder is not None and os.access(folder, os.W_OK):
            os.environ["NUMBA_CACHE_DIR"] = str(folder)  # read when numba loads; workers inherit
            config = sys.modules.get("numba.core.config")
            if config is not None:  # numba already loaded: set its live setting too
                config.CACHE_DIR = str(folder)  # type: ignore[attr-defined]


def _install_recovery() -> None:
    from spielwerk._numba_cache import install

    install()


COMPILING = ("{stop}: stopping once numba has compiled the kernel it is on (the first run "
             "after an install or an upgrade; `spielwerk warmup` compiles them ahead); "
             "{stop} again stops at once")
"""Said when a Ctrl-C has waited a second for a compile (seconds with a cold kernel cache)."""


def _defer_interrupts_while_compiling() -> None:
    """Make numba's ``Dispatcher.compile`` (which also loads a kernel from the cache) hold
    back a Ctrl-C until it is done, then raise it (:func:`~spielwerk._signals.
    interrupts_deferred`: only in the main thread under Python's default handler; a nested
    compile, a callee's, changes nothing), saying so (:data:`COMPILING`); a second Ctrl-C
    stops at once.

    numba runs Python code from inside LLVM through ctypes callbacks while it compiles and
    loads (its object cache hooks), and a ``KeyboardInterrupt`` raised there is printed as
    "Exception ignored" and dropped: the Ctrl-C was lost (the command went on as if none had
    come) or numba was left half-way (a ``RuntimeError`` on the next kernel)."""
    from numba.core import dispatcher

    from spielwerk._signals import interrupts_deferred

    cls: Any = dispatcher.Dispatcher
    if getattr(cls, "_spielwerk_deferred", False):
        return
    compile_ = cls.compile

    def compile(self: Any, sig: Any) -> Any:
        with interrupts_deferred(COMPILING):
            return compile_(self, sig)

    cls.compile = compile
    cls._spielwerk_deferred = True


_PATCHES: dict[str, Callable[[], None]] = {
    "numba.core.caching": _install_recovery,
    "numba.core.dispatcher": _defer_interrupts_while_compiling,
}
"""What to patch in numba, by the module patched (right after it has loaded)."""


class _NumbaLoading:
    """An import hook (first on ``sys.meta_path``, removed once done): as ``numba`` starts to
    load, the kernel folder is set (numba reads it when its config loads); right after each
    module of :data:`_PATCHES` has loaded, its patch is applied."""

    def __init__(self) -> None:
        self.waiting = set(_PATCHES)

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name == "numba":
            _use_kernel_folder()
            return None
        if name not in self.waiting:
            return None
        self.waiting.discard(name)
        patch = _PATCHES[name]
        if not self.waiting and self in sys.meta_path:
            sys.meta_path.remove(self)
        for finder in sys.meta_path:  # the spec the other finders give, run then patched
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find is not None else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        run = getattr(loader, "exec_module", None)
        if run is None:  # pragma: no cover - numba ships plain source modules
            return spec

        def exec_module(module: Any) -> None:
            run(module)
            patch()

        loader.exec_module = exec_module
        return spec


def njit_no_refcount(*, nogil: bool = False) -> Callable[[_F], _F]:
    """``@njit(cache=True, nogil=...)`` with numba's reference counting of arrays off (its
    ``_nrt`` option, which its typing does not list).

    For hot kernels that allocate nothing (every array passed in): with reference
    counting on, each call of a helper with array arguments counts every array up and
    down (atomic updates, which also keep the processor from overlapping the cache
    misses around them), and each call from Python wraps every array argument in a
    newly allocated record (about 25 ns of a Kalah move through the API). ``nogil``
    lets threads run the kernel at once, at the cost of releasing and taking the GIL
    on every call (worth it for long calls only).
    """
    from numba import njit

    options: dict[str, Any] = {"cache": True, "nogil": nogil, "_nrt": False}

    def decorate(fn: _F) -> _F:
        return cast(_F, njit(**options)(fn))

    return decorate


def direct(dispatcher: Any, *example_args: object) -> Any:
    """``dispatcher`` (an ``@njit`` function) compiled for the types of ``example_args``,
    as its machine-code entry point: calling that skips numba's per-call type dispatch
    (about 1 µs for an array argument; the State's hot path pays it on every move).

    Every later call must pass arguments of exactly these types (the same dtype,
    dimensions and layout for arrays; Python ints for int64). Falls back to the
    dispatcher itself where numba offers no entry point.
    """
    try:
        from numba import typeof

        sig = tuple(typeof(a) for a in example_args)
        if sig not in dispatcher.overloads:
            dispatcher.compile(sig)
        return dispatcher.overloads[sig].entry_point
    except Exception:  # noqa: BLE001 - an internal numba detail: the dispatcher always works
        return dispatcher
