"""Compiling game kernels: an honest numba cache, and row loops without reference counting.

``drop_stale_cache(__file__)`` at the top of a game's kernels module keeps its cache honest;
:func:`njit_borrowed` compiles a row loop that only borrows arrays (no atomic reference counts);
:func:`stack_array` gives such a loop its scratch in its stack frame (it may not allocate).

numba's on-disk cache (``@njit(cache=True)``) is keyed on the kernels file's own timestamp only,
so a change to a module the kernels compile in (the game's ``data.py`` and ``state.py``, the kit's
``core/rng.py``, ``core/state.py`` (the shared fields, the first entries of every state tuple)
and ``core/schema.py``, and this module's :func:`stack_array`) would silently keep the old machine code.
This hashes those sources and clears the module's cached kernels when the hash differs from the
one stored beside them.
"""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any, TypeVar

from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from numba.np.arrayobj import populate_array

F = TypeVar("F", bound=Callable[..., Any])


def drop_stale_cache(kernels_file: str | Path, deps: tuple[str, ...] = ("data.py", "state.py")) -> None:
    """Delete the numba cache of ``kernels_file`` if it or a source it compiles in changed.

    Args:
        kernels_file: the kernels module's ``__file__``.
        deps: file names beside it that the kernels compile in, or absolute paths of files
            elsewhere (another package's kernels they call); ``core/rng.py``, ``core/state.py``,
            ``core/schema.py`` and this module always count.

    The hash of the sources is kept in ``__pycache__/<stem>.deps``. Best effort: an unwritable
    install keeps whatever cache it has. When no kernel of the module is cached (a fresh install,
    or one just cleared), :func:`announce_compile` says so when its first kernel compiles.
    """
    here = Path(kernels_file).resolve()
    kit = Path(__file__).resolve()
    sources = (
        here,
        *(Path(d) if Path(d).is_absolute() else here.with_name(d) for d in deps),
        kit.with_name("rng.py"),
        kit.with_name("state.py"),
        kit.with_name("schema.py"),
        kit,
    )
    try:
        stamp = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
        cache = here.parent / "__pycache__"
        mark = cache / f"{here.stem}.deps"
        if not (mark.is_file() and mark.read_text() == stamp):
            for f in cache.glob(f"{here.stem}.*.nb[ic]"):
                f.unlink(missing_ok=True)
            cache.mkdir(exist_ok=True)
            mark.write_text(stamp)
        elsewhere = os.environ.get("NUMBA_CACHE_DIR", "")  # numba then caches there instead
        cached = Path(elsewhere).rglob(f"{here.stem}.*.nbi") if elsewhere else cache.glob(f"{here.stem}.*.nbi")
        if not any(cached):
            announce_compile(here)
    except OSError:
        pass


#: Set this environment variable (to anything but "" or "0") to silence :func:`announce_compile`.
QUIET_ENV = "MONKEY_ENVS_QUIET_COMPILE"

#: module name -> its kernels file, for the modules with nothing cached that have not compiled yet.
_COLD: dict[str, Path] = {}
_LISTENING = False


def announce_compile(kernels_file: str | Path, stream: IO[str] | None = None) -> bool:
    """Say on stderr, once, when the kernels of ``kernels_file`` start compiling.

    numba compiles a kernel the first time it is called (seconds per game) and caches the machine
    code beside the source, so later processes load it. :func:`drop_stale_cache` calls this when
    the module has no cached kernel yet; the line is written when the first of its kernels starts
    compiling (a numba compile event), so a process that imports every game but plays one hears
    only of that one. Returns whether the module was registered (not when :data:`QUIET_ENV` is set).
    """
    global _LISTENING
    if os.environ.get(QUIET_ENV, "") not in ("", "0"):
        return False
    here = Path(kernels_file)
    module = f"{here.parent.name}.{here.stem}"
    _COLD[module] = here
    if not _LISTENING:
        from numba.core import event

        class _FirstCompile(event.Listener):
            def on_start(self, ev: Any) -> None:
                fn = getattr(ev.data.get("dispatcher"), "py_func", None)
                name = getattr(fn, "__module__", "") or ""
                key = next((m for m in _COLD if name == m or name.endswith("." + m)), None)
                if key is not None:
                    _say_compiling(_COLD.pop(key), stream)

            def on_end(self, ev: Any) -> None:
                pass

        event.register("numba:compile", _FirstCompile())
        _LISTENING = True
    return True


def _say_compiling(here: Path, stream: IO[str] | None) -> None:
    where = os.environ.get("NUMBA_CACHE_DIR", "") or here.parent / "__pycache__"
    print(
        f"monkey-envs: compiling the {here.parent.name} kernels ({here.name}), once: numba caches them in "
        f"{where} for later runs",
        file=stream if stream is not None else sys.stderr,
        flush=True,
    )


def _nrt_option() -> bool:
    """Does this numba take the ``_nrt`` compile option (every release since 0.3x does)?"""
    try:
        from numba.core.cpu import CPUTargetOptions
    except ImportError:  # pragma: no cover - a numba that moved its options
        return False
    return hasattr(CPUTargetOptions, "_nrt")


#: True when :func:`njit_borrowed` compiles without numba's reference counting.
BORROWED_KERNELS = _nrt_option()


def njit_borrowed(**options: Any) -> Callable[[F], F]:
    """``numba.njit(**options)`` for row loops that only borrow arrays: no reference counting.

    numba counts references to every array value with atomic increments and decrements (its
    runtime, NRT). Inside a row loop, each per-row view and each array handed to an inlined
    helper costs one such pair that numba's pruning pass cannot remove; measured in Monkey Fun's
    step at ``B = 4096`` they were about 9% of the benchmark loop, and as opaque calls they also
    keep LLVM from holding array pointers in registers. A kernel compiled with ``_nrt=False``
    emits none of them. It may not allocate (``np.empty`` and the like fail to compile), so its
    caller, an ordinary ``njit`` function, allocates the scratch arrays and passes them in.

    ``_nrt`` is an option of numba's own (underscored); a numba without it gets plain ``njit``,
    with the same results, only slower.
    """
    if BORROWED_KERNELS:
        options["_nrt"] = False
    return njit(**options)


@intrinsic
def stack_array(typingctx: object, n: types.Type, dtype: types.Type) -> tuple | None:
    """A ``(n,)`` array of ``dtype`` (e.g. ``np.int64``) in the calling kernel's stack frame: uninitialised scratch.

    ``n`` is a constant (e.g. ``MAX_CARDS``). The memory is one ``alloca`` in the caller's entry
    block, so a call inside a loop reuses it; it is not owned (no reference count, as the kernels
    compiled by :func:`njit_borrowed`, which may not allocate) and lives until the caller returns: it
    must not be returned or kept.
    """
    if not (isinstance(n, types.IntegerLiteral) and isinstance(dtype, types.NumberClass)):
        return None
    count, nty = n.literal_value, dtype.instance_type
    aty = types.Array(nty, 1, "C")

    def codegen(context: Any, builder: Any, sig: Any, args: list) -> Any:
        item = context.get_data_type(nty)
        buf = cgutils.alloca_once(builder, llvm_ir.ArrayType(item, count))
        itemsize = context.get_constant(types.intp, context.get_abi_sizeof(item))
        out = context.make_array(aty)(context, builder)
        populate_array(
            out,
            data=builder.bitcast(buf, item.as_pointer()),
            shape=[context.get_constant(types.intp, count)],
            strides=[itemsize],
            itemsize=itemsize,
            meminfo=None,
        )
        return out._getvalue()

    return aty(n, dtype), codegen
