"""A game's optional parts are plug-ins (``monkey_envs.core.plugins``), not overrides of ``Game``'s methods.

Checked here: no shipped game (nor the kit's example toys) overrides a method the plug-ins feed;
hooks named by string load lazily (importing a game's rules imports none of its view or analytics
modules) and a bad hook is a clear ``ValueError``; a game without a view, or without analytics,
gets the kit's defaults; the state class comes from ``Game[TheState]``.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from monkey_envs.core.game import Game
from monkey_envs.core.plugins import Analytics, View, resolve
from monkey_envs.core.registry import temporary_games
from monkey_envs.games import SHIPPED_GAMES, make_game

with temporary_games():  # the kit's example toys, kept out of the global registry
    from toy_games.bidding import ToyBidding
    from toy_games.dice import ToyDice

#: ``Game`` methods that call a plug-in's hook (``laws``, ``view``, ``analytics``): a game sets the
#: plug-in instead of overriding them.
PLUGGED = (
    "state_violations",
    "resample_hidden",
    "render",
    "action_name",
    "picture",
    "render_legend",
    "action_seen",
    "action_outcome",
    "public_actions",
    "scores",
    "episode_stats",
    "stats_title",
    "stats_summary",
    "report_decisions",
    "decision_report",
    "episode_info",
    "action_filters",
)
SHIPPED = list(SHIPPED_GAMES)
#: Every shipped game's class, and the kit's example toys (the contract in one page each).
CLASSES = {n: type(make_game(n)) for n in SHIPPED} | {"toy_dice": ToyDice, "toy_bidding": ToyBidding}


@pytest.mark.parametrize("name", list(CLASSES))
def test_no_game_overrides_a_plugged_method(name):
    cls = CLASSES[name]
    for klass in cls.__mro__:
        if klass is Game:
            break
        overridden = sorted(set(PLUGGED) & set(vars(klass)))
        assert not overridden, f"{klass.__name__} overrides {overridden}: set its View / Analytics instead"
    assert isinstance(cls.view, View) and cls.view.render is not None
    assert cls.state_class.__name__.endswith("State")


@pytest.mark.parametrize("name", SHIPPED)
def test_importing_the_rules_loads_no_view_or_analytics_module(name):
    cls = type(make_game(name))
    hooks = [h for p in (cls.view, cls.analytics) for h in list(vars(p).values()) if isinstance(h, str) and ":" in h]
    modules = sorted({h.split(":")[0] for h in hooks})
    assert modules  # every shipped game plugs in by module path
    code = (
        "import sys, importlib; importlib.import_module(sys.argv[1]); "
        "print(','.join(m for m in sys.argv[2:] if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, cls.__module__, *modules], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "", f"importing {cls.__module__} loaded {out}"
    # ... and each hook resolves to a function once asked for
    for plugin in (cls.view, cls.analytics):
        for name_, value in list(vars(plugin).items()):
            if isinstance(value, str) and ":" in value:
                assert callable(plugin.hook(name_)), (name_, value)


def test_a_bad_hook_is_a_clear_error():
    with pytest.raises(ValueError, match="module:function"):
        resolve("no colon here", "View.render")
    with pytest.raises(ValueError, match="names no function"):
        resolve("monkey_envs.core.plugins:NOT_THERE", "View.render")
    with pytest.raises(ModuleNotFoundError):
        resolve("monkey_envs.no_such_module:render", "View.render")


class _Bare(ToyDice):
    """The dice toy with no view and no analytics: the kit's defaults."""

    view = None
    analytics = Analytics()


def test_a_game_without_plugins_gets_the_kits_defaults():
    g = _Bare()
    s = g.init(np.arange(2))
    with pytest.raises(NotImplementedError, match="View"):
        g.render(s)
    with pytest.raises(NotImplementedError, match="picture"):
        g.picture(s)
    assert g.scores(s) is None
    assert g.episode_stats(s) == {}
    assert g.stats_title == "Game statistics"
    assert g.stats_summary({}, 1) is None
    assert g.decision_report(np.zeros((1, g.obs_dim)), np.zeros(1, np.int64)) is None
    assert not g.report_decisions(np.zeros(3, np.int64)).any()
    assert g.action_filters() == {}
    assert set(g.episode_info(s, 0)) == {"end_reason", "winners"}
    assert g.action_seen(s, 0, 0, None) == "moves (hidden)" and not g.public_actions
    assert g.action_outcome(s, s, 0, 0, 0) == ""
    # the plugged toy reports through its hooks
    full = ToyDice()
    assert full.stats_title == "Risk analytics"
    assert set(full.episode_info(s, 0)) == {"end_reason", "winners", "scores", "turns"}
    np.testing.assert_array_equal(full.scores(s), s.score.astype(np.float64))
    assert "Toy Pig" in full.render(s)


def test_the_state_class_comes_from_the_type_argument():
    assert ToyDice.state_class.__name__ == "ToyDiceState"
    assert _Bare.state_class is ToyDice.state_class


def test_a_subclass_keeps_the_state_class_it_inherits():
    """``Game[TheState]`` is read from a class's own bases only: a subclass of a game that set its
    ``state_class`` by hand keeps that one (a reviewer's reproduction)."""

    class Special(ToyDice.state_class):  # a state class declared by hand, not the type argument
        pass

    class Parent(ToyDice):
        state_class = Special

    class Child(Parent):
        pass

    assert Child.state_class is Special


def test_the_plugged_facts_answer_on_the_class_too():
    """``(*Game.counter_fields, "stats")``, the idiom the docs once gave games outside this package,
    still builds a tuple; the class-level reads give values, not property objects."""
    assert (*Game.counter_fields, "stats") == ("step_count", "stats")
    assert Game.stats_title == "Game statistics" and Game.public_actions is False
    assert ToyDice.counter_fields == ("step_count",) and ToyDice.stats_title == "Risk analytics"
    for name in SHIPPED:
        cls = CLASSES[name]
        assert cls.counter_fields == make_game(name).counter_fields
        assert isinstance(cls.stats_title, str) and isinstance(cls.public_actions, bool)
