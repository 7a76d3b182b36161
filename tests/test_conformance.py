"""The conformance suite (:mod:`monkey_envs.core.testing`) on every game shipped in the package,
in each configuration of its ``test_configs`` (PettingZoo / gymnasium / SB3 checkers, vector faces
equal to the single env, batch invariance, round trips, bad input, no peeking, the invariants
fuzz, legal masks, recorded playthroughs)."""

from __future__ import annotations

import pytest

from monkey_envs.core.testing import conformance_params, run_check


@pytest.mark.parametrize(("game", "config", "check"), conformance_params())
def test_conformance(game, config, check):
    run_check(game, config, check)
