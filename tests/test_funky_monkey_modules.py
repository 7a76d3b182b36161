"""Funky Monkey's module split: names still importable from ``rules``, no hidden per-step state."""

from __future__ import annotations

import numpy as np
import pytest
from funky_monkey_numpy_reference import NumpyFunkyMonkey, NumpyObserver, NumpySetup

import monkey_envs.funky_monkey as F
from monkey_envs.core.testing import random_legal_actions
from monkey_envs.funky_monkey import actions, observation, position, rules
from monkey_envs.funky_monkey.rules import FunkyMonkey

#: names agents and tests import from ``funky_monkey.rules`` (it held them all before the split)
RULES_NAMES = [
    "A_ACCEPT",
    "A_BONUS_DECLINE",
    "A_BONUS_MONKEY",
    "A_BONUS_TIGER",
    "A_BOWL_1",
    "A_BOWL_2",
    "A_CROWN",
    "A_PASS",
    "A_PAY_GOLDEN",
    "A_PAY_NORMAL",
    "A_PYRAMID_BACKWARD",
    "A_PYRAMID_FORWARD",
    "A_SCALES_SKIP",
    "A_SCALES_TARGET",
    "A_TELESCOPE",
    "NUM_PLAY_ACTIONS",
    "SPEC",
    "FunkyMonkey",
    "FunkyMonkeyState",
    "num_actions_for",
    "_phase_actions",
    "_as_card",
]


@pytest.mark.parametrize("name", RULES_NAMES)
def test_rules_still_exports(name: str) -> None:
    assert hasattr(rules, name)


def test_reexports_are_the_module_objects() -> None:
    assert rules.A_SCALES_TARGET is actions.A_SCALES_TARGET
    assert rules.num_actions_for is actions.num_actions_for is F.num_actions_for
    assert rules._as_card is position._as_card
    assert F.FunkyMonkey is rules.FunkyMonkey
    for name in F.__all__:
        assert hasattr(F, name)


def test_observer_and_setup_match_the_game() -> None:
    game = FunkyMonkey(5, tile_visibility="all")
    obs = NumpyObserver(5)  # observation.Observer's layout with the oracle's numpy observe
    assert isinstance(obs, observation.Observer) and obs.layout.size == game.obs_dim
    s = game.init(np.arange(3))
    np.testing.assert_array_equal(obs.observe(s, np.full(3, 2, np.int64)), game.observe(s, 2))
    dealt = NumpySetup(5, "all").deal(np.arange(3))
    assert isinstance(dealt, type(s))
    assert not dealt.legal_action_mask.any()  # the game writes the mask
    for name, arr in dealt.arrays().items():
        if name != "legal_action_mask":
            np.testing.assert_array_equal(arr, getattr(s, name), err_msg=name)
    p = game.position(positions=[0] * 5)
    assert p.legal_action_mask[0].any()


@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_step_keeps_no_hidden_entries_on_the_state(num_players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The step's work queue is passed explicitly: the state holds its fields and nothing else, mid-step too.

    The numpy reference step (the stage machine the compiled kernels reproduce) is the one spied
    on; tests/test_funky_monkey_compiled.py checks the compiled step adds nothing to the state."""
    game = NumpyFunkyMonkey(num_players)  # steps by the numpy rules (fused_step False)
    seen: list[set[str]] = []
    advance = game._advance

    def spy(s, rows, work):  # the stage machine runs with the queued work in flight
        seen.append(set(vars(s)))
        advance(s, rows, work)

    monkeypatch.setattr(game, "_advance", spy)
    rng = np.random.default_rng(num_players)
    s = game.init(np.arange(32))
    # the fields plus the provenance tag every state of Game.init carries (BatchState.mark_game)
    fields = {*type(s).field_names(), "_game"}
    assert set(vars(s)) == fields
    for _ in range(400):
        if s.terminated.all():
            break
        s = game.step(s, random_legal_actions(s.legal_action_mask, rng))
        assert set(vars(s)) == fields
    assert seen and all(names == fields for names in seen)
    assert s.terminated.all()  # every game ran to its end (eliminations and endings went through the queue)
