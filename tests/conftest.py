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
    """No test module may leave a game in the global registry: toy games register inside
    ``monkey_envs.core.registry.temporary_games()`` (collection imports every test module, so a
    module-level registration outside one would leak into every other test)."""
    leaked = [n for n in GAMES if n not in SHIPPED_GAMES]
    if leaked:
        raise pytest.UsageError(
            f"test modules left games {leaked} in the global registry: register them inside temporary_games()"
        )
