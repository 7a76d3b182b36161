"""The kit's kernel compiling helpers (core/kernel_cache.py): the stale-cache guard and njit_borrowed."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numba.core.errors import TypingError

from monkey_envs.core import kernel_cache
from monkey_envs.core.kernel_cache import BORROWED_KERNELS, drop_stale_cache, njit_borrowed


def _row_sums(a: np.ndarray, out: np.ndarray) -> None:
    for b in range(a.shape[0]):
        row = a[b]  # a per-row view: a reference-count pair per row under plain njit
        s = 0
        for k in range(row.size):
            s += row[k]
        out[b] = s


def _allocates(n: int) -> np.ndarray:
    return np.empty(n)


def test_borrowed_kernels_available_on_the_installed_numba() -> None:
    # numba >= 0.60 (pyproject) has the _nrt option; without it every kernel silently runs slower
    assert BORROWED_KERNELS


def test_njit_borrowed_emits_no_reference_counts_and_computes_the_same() -> None:
    a = np.arange(24, dtype=np.int64).reshape(6, 4)
    out = np.zeros(6, np.int64)
    fn = njit_borrowed()(_row_sums)
    fn(a, out)
    np.testing.assert_array_equal(out, a.sum(1))
    (ir,) = fn.inspect_llvm().values()
    assert "@NRT_incref(" not in ir and "@NRT_decref(" not in ir


def test_njit_borrowed_refuses_to_allocate() -> None:
    # its contract: the caller allocates the scratch; an allocation inside fails to compile
    with pytest.raises(TypingError):
        njit_borrowed()(_allocates)(3)


def test_njit_borrowed_falls_back_to_plain_njit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernel_cache, "BORROWED_KERNELS", False)
    a = np.arange(12, dtype=np.int64).reshape(3, 4)
    out = np.zeros(3, np.int64)
    njit_borrowed()(_row_sums)(a, out)
    np.testing.assert_array_equal(out, a.sum(1))
    assert njit_borrowed()(_allocates)(3).shape == (3,)  # plain njit may allocate


def test_drop_stale_cache_clears_a_cache_built_from_other_sources(tmp_path: Path) -> None:
    kernels = tmp_path / "kernels.py"
    kernels.write_text("x = 1\n")
    (tmp_path / "data.py").write_text("A = 1\n")
    (tmp_path / "state.py").write_text("")
    drop_stale_cache(kernels)
    cached = tmp_path / "__pycache__" / "kernels.step-1.py311.nbi"
    cached.write_bytes(b"old machine code")
    drop_stale_cache(kernels)  # nothing changed: the cache stays
    assert cached.exists()
    (tmp_path / "data.py").write_text("A = 2\n")  # a compiled-in source changed
    drop_stale_cache(kernels)
    assert not cached.exists()


def test_a_kernels_module_without_cached_kernels_says_once_when_it_compiles(
    tmp_path: Path, monkeypatch, capsys
) -> None:
    # issue 23: a first use that compiles for seconds prints one line saying what and that it happens once
    import importlib
    import sys

    monkeypatch.delenv("MONKEY_ENVS_QUIET_COMPILE", raising=False)
    pkg = tmp_path / "toy_cold_game"
    pkg.mkdir()
    kernels = pkg / "kernels.py"
    kernels.write_text(
        "from numba import njit\n"
        "from monkey_envs.core.kernel_cache import drop_stale_cache\n"
        "drop_stale_cache(__file__, deps=())\n"
        "@njit\n"
        "def add(a, b):\n"
        "    return a + b\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("toy_cold_game.kernels")
    assert capsys.readouterr().err == ""  # imported, nothing compiled yet: silent
    assert module.add(1, 2) == 3
    err = capsys.readouterr().err
    assert err.count("compiling the toy_cold_game kernels (kernels.py), once") == 1
    assert module.add(1.5, 2.0) == 3.5  # another specialisation compiles: no second line
    assert capsys.readouterr().err == ""
    sys.modules.pop("toy_cold_game.kernels", None)
    (pkg / "__pycache__").mkdir(exist_ok=True)
    (pkg / "__pycache__" / "kernels.add-4.py311.nbi").write_bytes(b"cached")
    drop_stale_cache(kernels, deps=())  # something cached now: nothing is registered
    from monkey_envs.core import kernel_cache

    assert "toy_cold_game.kernels" not in kernel_cache._COLD
    monkeypatch.setenv("MONKEY_ENVS_QUIET_COMPILE", "1")
    assert kernel_cache.announce_compile(kernels) is False
