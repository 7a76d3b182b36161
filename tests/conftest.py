"""Test-session settings.

Torch's intra-op thread pool costs far more than it saves on the small policy networks the
tests train, and fights other processes for the cores; one thread is several times faster here.
Set before any test module imports torch.
"""

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")


import pytest

from monkey_envs.games import GAMES

#: The games the package ships (before any test module imports a toy game and registers it).
SHIPPED_GAMES = dict(GAMES)


def pytest_collection_finish(session: pytest.Session) -> None:
    """Toy games register themselves when their test module is imported (at collection); take them
    out of the registry again, so every other test sees only the shipped games. A toy's own test
    module registers it back for its tests (a module fixture)."""
    for name in [n for n in GAMES if n not in SHIPPED_GAMES]:
        del GAMES[name]
