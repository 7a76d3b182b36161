"""Keeping a game's numba cache honest: ``drop_stale_cache(__file__)`` at the top of its kernels module.

numba's on-disk cache (``@njit(cache=True)``) is keyed on the kernels file's own timestamp only,
so a change to a module the kernels compile in (the game's ``data.py`` and ``state.py``, the kit's
``core/rng.py``) would silently keep the old machine code. This hashes those sources and clears
the module's cached kernels when the hash differs from the one stored beside them.
"""

from __future__ import annotations

import hashlib
from pathlib import Path


def drop_stale_cache(kernels_file: str | Path, deps: tuple[str, ...] = ("data.py", "state.py")) -> None:
    """Delete the numba cache of ``kernels_file`` if it or a source it compiles in changed.

    Args:
        kernels_file: the kernels module's ``__file__``.
        deps: file names beside it that the kernels compile in (``core/rng.py`` always counts).

    The hash of the sources is kept in ``__pycache__/<stem>.deps``. Best effort: an unwritable
    install keeps whatever cache it has.
    """
    here = Path(kernels_file).resolve()
    sources = (here, *(here.with_name(d) for d in deps), Path(__file__).resolve().with_name("rng.py"))
    try:
        stamp = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()
        cache = here.parent / "__pycache__"
        mark = cache / f"{here.stem}.deps"
        if mark.is_file() and mark.read_text() == stamp:
            return
        for f in cache.glob(f"{here.stem}.*.nb[ic]"):
            f.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        mark.write_text(stamp)
    except OSError:
        pass
