"""A game's optional parts, as small named plug-ins: how it is shown (:class:`View`) and what it reports (:class:`Analytics`).

The rules contract of a game (``docs/kit.md``) is small: its spec, its state schema and its rules.
Everything else a game may offer is a plug-in set on its class, each hook a function that takes
the game first, given either as the function or as ``"package.module:function"`` (imported the
first time it is used, so importing the rules stays cheap)::

    class Dice(Game[DiceState]):
        view = View(render="mygame.render:text", picture="mygame.render:picture")
        analytics = Analytics(scores=lambda game, state: state.score.astype(float))

The kit's :class:`~monkey_envs.core.game.Game` methods of the same names (``render``,
``picture``, ``scores``, ...) check nothing game-specific: they call the hook, or give the generic
default when the game has none. The game's laws are the third plug-in (``Game.laws``).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from typing import Any

#: A hook: the function itself, or ``"package.module:function"``.
Hook = Callable[..., Any] | str | None


def resolve(hook: Hook, where: str) -> Callable[..., Any] | None:
    """The function ``hook`` names (imported on first use), or ``None``.

    Raises:
        ValueError: ``hook`` is a string that is not ``"module:function"``, or names nothing.
    """
    if hook is None or callable(hook):
        return hook
    if not isinstance(hook, str) or hook.count(":") != 1:
        raise ValueError(f"{where}: a hook must be a function or 'package.module:function', got {hook!r}")
    module, name = hook.split(":")
    fn = getattr(importlib.import_module(module), name, None)
    if not callable(fn):
        raise ValueError(f"{where}: {hook!r} names no function")
    return fn


class _Plugin:
    """Resolves and caches the hooks of a frozen plug-in dataclass."""

    def hook(self, name: str) -> Callable[..., Any] | None:
        """The function of hook ``name`` (``None`` when the game gives none)."""
        cache = self.__dict__.setdefault("_resolved", {})
        if name not in cache:
            cache[name] = resolve(getattr(self, name), f"{type(self).__name__}.{name}")
        return cache[name]


@dataclasses.dataclass(frozen=True)
class View(_Plugin):
    """How a game is shown to people: text, pictures, and what a seat learns of a move.

    Attributes:
        render: ``(game, state, row, viewer) -> str``, the text picture of row ``row`` as seat
            ``viewer`` sees it (``None``: public only). Required of every game.
        action_name: ``(game, state, row, action) -> str``, what ``action`` means in row ``row``
            (the kit has checked that it is in range); ``None``: ``"action <n>"``.
        picture: ``(game, state, row, viewer) -> Picture``, the same facts drawn
            (``render_mode="rgb_array"``, PNG / SVG export); ``None``: no pictures.
        legend: ``(game) -> str``, what each mark of ``render``'s text means; ``None``: the
            seat letters only.
        action_seen: ``(game, state, row, action, viewer) -> str``, what ``viewer`` learns when
            the mover takes ``action``; ``None``: the mover sees ``action_name``, the others that
            it moved (everybody sees the name when ``public_actions``).
        action_outcome: ``(game, before, after, row, action, viewer) -> str``, what the move
            brought about, as ``viewer`` may know it; ``None``: nothing more to say.
        public_actions: every seat sees which action a mover took (a game of open moves).
    """

    render: Hook
    picture: Hook = None
    legend: Hook = None
    action_seen: Hook = None
    action_outcome: Hook = None
    action_name: Hook = None
    public_actions: bool = False


@dataclasses.dataclass(frozen=True)
class Analytics(_Plugin):
    """What a game reports about play: scores, per-seat statistics, decision reports, info facts.

    Every hook is optional; the kit's default is the empty answer.

    Attributes:
        scores: ``(game, state) -> (B, P) float64`` end-of-game scores.
        episode_stats: ``(game, state) -> {name: (B, P) int64}`` per-seat counters the arena and
            evaluation sum over the seats an agent held.
        stats_title: the title of the table :attr:`stats_summary` fills.
        stats_summary: ``(game, totals, seats) -> {metric: number}`` one agent's analytics from
            its summed ``episode_stats`` over ``seats`` seats.
        report_decisions: ``(game, actions) -> (n,) bool`` which decisions ``decision_report``
            reads.
        decision_report: ``(game, obs, actions, about) -> (title, data, markdown)``.
        episode_info: ``(game, state, row) -> dict`` facts added to the shared ``info`` of a row
            (numeric, of fixed shapes).
        action_filters: ``(game) -> {name: (A,) bool}`` named restrictions of the action set
            (ablations such as an honest-only learner).
    """

    scores: Hook = None
    episode_stats: Hook = None
    stats_title: str = "Game statistics"
    stats_summary: Hook = None
    report_decisions: Hook = None
    decision_report: Hook = None
    episode_info: Hook = None
    action_filters: Hook = None


#: The plug-in of a game that declares none.
NO_ANALYTICS = Analytics()
