"""The conformance suite: generic checks every game of monkey-envs must pass (after Pgx's ``api_test``).

Each check takes a game (a registered name, or a built :class:`~monkey_envs.core.game.Game`)
and a configuration (the game's keyword options) and raises ``AssertionError`` with a message
that says what is wrong; it returns ``None`` when the game passes. A check that cannot run
(an optional package or module missing) raises :class:`CheckSkipped`. A game's test module is
three lines::

    from monkey_envs.core.testing import conformance_params, run_check

    @pytest.mark.parametrize("game,config,check", conformance_params())
    def test_conformance(game, config, check): run_check(game, config, check)

:func:`conformance_params` crosses every game with each configuration of its
``test_configs`` and every check of :data:`CHECKS` (the checks of :data:`PER_GAME_CHECKS` run
once per game, with default arguments; those of :data:`SIMULTANEOUS_CHECKS` only for
simultaneous games). The checks:

* ``pettingzoo_api`` / ``pettingzoo_seed`` / ``pettingzoo_render``: PettingZoo's ``api_test``,
  ``seed_test`` and ``render_test`` on the AEC env ``monkey_envs.<name>_v<version>.env(**config)``
  (no warnings beyond the two every dict-observation env gets).
* ``pettingzoo_parallel`` (simultaneous games): PettingZoo's ``parallel_api_test`` and
  ``parallel_seed_test`` (unmasked samples: illegal actions end the game by default) on
  ``parallel_env(**config)`` and on ``aec_to_parallel(env(**config))``, which must play the same
  games as the native env (illegal actions included), and every observation inside its space.
* ``gymnasium_check_env`` / ``sb3_check_env`` (once per game): gymnasium's and
  Stable-Baselines3's ``check_env`` on ``gymnasium.make(<registered id>)`` with default arguments.
* ``vector_equivalence``: ``gymnasium.make_vec(id, num_envs=N, vectorization_mode=
  "vector_entry_point", **config)`` and the SB3 ``MonkeyVecEnv`` replay, env by env, the single
  env ``gymnasium.make(id, **config)`` seeded ``s + i`` under the same seeded random legal
  actions, over several episodes (autoresets included): observations, rewards, ends, masks,
  learner seats, terminal observations and episode infos.
* ``vector_next_step`` (once per game): the same with ``autoreset_mode=NEXT_STEP`` (gymnasium's
  next-step autoreset): env ``i`` equals the single env that calls ``reset()`` after each
  episode, step for step, infos included.
* ``batch_invariance``: row ``i`` of ``game.init(seeds)`` stepped with per-row seeded random legal
  actions equals the same seed at batch size 1 (every state array, and every seat's observation;
  a repeated seed and one beyond 32 bits among them).
* ``round_trips``: clone, ``copy.deepcopy``, pickle, take/concat/put, get_state/set_state (through
  JSON), to_json/from_json and save/load give equal states (no shared memory) that step identically.
* ``bad_input``: wrong-shaped, float, bool, non-numeric, out-of-range and illegal actions, bad
  seeds, bad seats and foreign states on the core (``ValueError``, state unchanged), the raw AEC
  env (``ValueError``, unchanged), ``env()`` (the illegal move ends the game with -1; out of range
  fails the action-space assertion; in a simultaneous game the game ends when the tick's last
  seat has committed), the gymnasium single and vector envs and the SB3 VecEnv with
  ``illegal_action="raise"`` (``ValueError``, unchanged) and ``"lose"`` (the episode ends as a
  loss); an unknown game option is refused naming it (``ValueError`` or ``TypeError``).
* ``no_peeking``: for random mid-game states and every seat, :meth:`Game.resample_hidden` (a few
  seeds) changes neither that seat's observation, its mask when it is to move, the AEC
  ``observe`` / ``infos`` nor ``render(viewer=seat)``; the resampled state keeps the game's laws
  and plays on (a random legal step keeps them too), the same seed resamples the same state and
  the given state is left as it was; an imperfect-information game of several players must
  resample more than the RNG. No seat sees the RNG: scrambling ``rng`` changes no observation or
  picture. Simultaneous games: what the current mover commits changes no other
  seat's observation or picture, nor who commits next and with which mask.
* ``random_play_fuzz``: a batch of random legal play (finished rows are held one step with an
  out-of-range action, which they must ignore, then restarted) with ``state_violations == []``
  after every step, every game ending within a bound, rewards inside ``spec.reward_range``,
  ``winners_mask`` / ``end_reason`` / ``current_player`` set exactly at the end, valid
  ``end_reason_names``, ``episode_info`` numeric and of one fixed layout (``end_reason`` the
  state's int code, ``winners`` its ``(P,) bool`` mask), observations inside the declared bounds; then ``state_violations``
  must flag at least one of a set of corrupted copies (it checks the game's own laws), each
  flagged copy with ``(field, row, why)`` triples naming the corrupted row and no other; garbage
  values in any field (random values of the dtype, huge floats and NaN) give it triples or an
  exception (a refusal for ``validate_state``), and garbage in every field at once is flagged.
* ``legal_masks``: for random states every masked-legal action steps (to a state without
  violations) and every masked-illegal one raises ``ValueError`` leaving the state as it was;
  a finished row's mask is all False.
* ``pictures``: the game draws a picture (its ``View.picture`` hook): the AEC env and the gymnasium
  env with ``render_mode="rgb_array"`` render ``(H, W, 3) uint8`` images of one size through a
  seeded game (not all alike), a seat's picture is pixel-identical after :meth:`Game.resample_hidden`
  for that seat, and the SVG export parses as XML.
* ``playthroughs`` (once per game): a recorded playthrough file whose header names the game
  exists under ``tests/playthroughs/`` (skipped while :mod:`monkey_envs.core.playthrough` is absent).

Tests that need random play use the kit's :func:`play_random` (``steps`` decisions of random
legal play from seeds or a state, finished rows kept or dealt new games) and
:func:`random_legal_actions` (the one-draw uniform legal action per row, for loops that check
something after every step); :func:`state_pool` gives states at several depths of whole games.

Checks are sized to run in seconds per configuration; their keyword arguments (batch sizes,
steps, seeds) can be passed through :func:`run_check`. pytest is imported only by
:func:`conformance_params` and :func:`run_check`; gymnasium, PettingZoo and SB3 inside the checks.
"""

from __future__ import annotations

import copy
import dataclasses
import importlib
import importlib.util
import io
import json
import pickle
import re
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from monkey_envs.core.game import Game, as_seeds
from monkey_envs.core.rng import draw_uniform, seed_rng
from monkey_envs.core.state import BatchState

#: Decisions one game may take at most in the fuzz before it counts as never ending.
MAX_GAME_STEPS = 2000
#: PettingZoo's api_test warns about these for every dict observation (connect_four_v3 too).
DICT_OBS_WARNINGS = ("Observation space for each agent probably should be", "Observation is not a NumPy array")
#: Salt of the suite's random policy stream (independent of every game's and face's streams).
_POLICY_SALT = np.uint64(0x5851F42D4C957F2D)
#: An option name no game has (the unknown-option check).
UNKNOWN_OPTION = "conformance_no_such_option"


class CheckSkipped(Exception):
    """A check could not run here (an optional package or module is missing); not a failure."""


# ============================================================================ shared helpers
@dataclasses.dataclass
class _Ctx:
    """A game under test: its registered name, configuration and built rules."""

    name: str
    config: dict[str, Any]
    game: Game

    @property
    def spec(self) -> Any:
        return self.game.spec

    def aec(self) -> tuple[Callable[..., Any], type]:
        """``(env, raw_env)`` of the game's versioned PettingZoo module."""
        from monkey_envs.core.versioned import aec_api

        return aec_api(self.name)

    @property
    def gym_id(self) -> str:
        # importing any module of the package ran ``monkey_envs/__init__``, which registered the ids
        from monkey_envs.core.registry import gymnasium_id

        return gymnasium_id(self.name)


def _ctx(game: str | Game, config: Mapping[str, Any] | None) -> _Ctx:
    """Resolve ``game`` + ``config`` to a :class:`_Ctx` (a built game brings its own config)."""
    from monkey_envs.core.registry import GAMES, make_game

    if isinstance(game, Game):
        if config:
            raise ValueError("give either a built game or a game name with a config, not both")
        name = game.spec.name
        if name not in GAMES:
            raise ValueError(f"game {name!r} is not registered (register_game) -- the faces need its name")
        return _Ctx(name, dict(game.config), game)
    cfg = dict(config or {})
    return _Ctx(game, cfg, make_game(game, **cfg))


def _fail(msg: str) -> None:
    raise AssertionError(msg)


def _expect(cond: Any, msg: str) -> None:
    if not bool(cond):
        raise AssertionError(msg)


def _raises(
    kinds: type[BaseException] | tuple[type[BaseException], ...], fn: Callable[[], Any], what: str, match: str = ""
) -> BaseException:
    """Call ``fn``; it must raise one of ``kinds`` (message matching ``match``); return the error."""
    kinds = kinds if isinstance(kinds, tuple) else (kinds,)
    names = " or ".join(k.__name__ for k in kinds)
    try:
        fn()
    except kinds as e:
        if match and not re.search(match, str(e)):
            raise AssertionError(f"{what}: {type(e).__name__} {str(e)!r} does not mention {match!r}") from e
        return e
    except Exception as e:
        raise AssertionError(f"{what}: expected {names}, got {type(e).__name__}: {e}") from e
    raise AssertionError(f"{what}: expected {names}, nothing was raised")


def _no_warnings(caught: list[warnings.WarningMessage], allowed: Sequence[str], what: str) -> None:
    unexpected = [str(w.message) for w in caught if not any(a in str(w.message) for a in allowed)]
    _expect(not unexpected, f"{what} warned: {unexpected[:5]}")


def assert_states_equal(a: BatchState, b: BatchState, what: str) -> None:
    """``a`` and ``b`` hold the same fields, dtypes, shapes and values; the message names the first field that differs."""
    _expect(type(a) is type(b), f"{what}: {type(a).__name__} vs {type(b).__name__}")
    for name in type(a).field_names():
        x, y = np.asarray(getattr(a, name)), np.asarray(getattr(b, name))
        _expect(x.dtype == y.dtype, f"{what}: field {name!r} has dtype {x.dtype} vs {y.dtype}")
        _expect(x.shape == y.shape, f"{what}: field {name!r} has shape {x.shape} vs {y.shape}")
        if not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            rows = np.flatnonzero((x != y).reshape(x.shape[0], -1).any(1)) if x.ndim else []
            _fail(f"{what}: field {name!r} differs in rows {list(rows)[:10]}")


def _row_equal(a: BatchState, i: int, b: BatchState, j: int, what: str) -> None:
    """Row ``i`` of ``a`` equals row ``j`` of ``b`` in every field."""
    for name in type(a).field_names():
        x, y = getattr(a, name)[i], getattr(b, name)[j]
        if x.dtype != y.dtype or not np.array_equal(x, y, equal_nan=x.dtype.kind in "fc"):
            _fail(f"{what}: field {name!r} differs ({x.tolist()} vs {y.tolist()})")


def _same(a: Any, b: Any) -> bool:
    """Loose deep equality of info values (numpy scalars and arrays equal to Python numbers and lists)."""
    if isinstance(a, Mapping) or isinstance(b, Mapping):
        return (
            isinstance(a, Mapping) and isinstance(b, Mapping) and set(a) == set(b) and all(_same(a[k], b[k]) for k in a)
        )
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b)))
    except Exception:  # pragma: no cover - exotic values
        return bool(a == b)


class RowRandomPolicy:
    """Seeded uniformly random legal actions, one counter-based stream per row (batch-invariant).

    Row ``i`` of a policy built from ``seeds`` draws exactly what a one-row policy built from
    ``[seeds[i]]`` draws, whatever the other rows do. Rows without a legal action get action 0.
    """

    def __init__(self, seeds: Any) -> None:
        self.rng = seed_rng(as_seeds(seeds))
        self.rng[:, 0] ^= _POLICY_SALT

    def __call__(self, mask: np.ndarray) -> np.ndarray:
        """``(B,) int64`` actions for ``mask (B, A)`` (bool or 0/1)."""
        m = np.asarray(mask).astype(bool)
        u = draw_uniform(self.rng, np.arange(m.shape[0]), m.shape[1])
        u[~m] = -1.0
        return u.argmax(1).astype(np.int64)


def _done(s: BatchState) -> np.ndarray:
    return s.terminated | s.truncated


# ============================================================================ random play (for tests)
def random_legal_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row, from one ``rng.random(mask.shape)`` draw.

    Args:
        mask: ``(B, A)`` legal-action mask (bool or 0/1).
        rng: the generator; exactly one ``rng.random((B, A))`` call per use, so a test that
            draws its actions this way replays the same stream whatever else it does.

    Returns:
        ``(B,) int64``: per row the legal action with the largest uniform key; ``0`` in rows
        without a legal action (finished games ignore their action).
    """
    m = np.asarray(mask).astype(bool)
    if m.ndim != 2:
        raise ValueError(f"mask must be (B, A), got shape {m.shape}")
    return np.where(m, rng.random(m.shape), -1.0).argmax(1).astype(np.int64)


def play_random(
    game: Game,
    start: BatchState | Any,
    steps: int,
    rng: np.random.Generator | int | Callable[[np.ndarray], np.ndarray] = 0,
    *,
    restart: int | None = None,
    until_done: bool = False,
    inplace: bool = False,
) -> BatchState:
    """``steps`` decisions of random legal play in every row of a batch: the tests' shared loop.

    Args:
        game: the rules.
        start: a state to play on (left unchanged: play starts from a clone) or seeds for
            ``game.init`` (an int, a sequence or a ``(B,)`` array).
        steps: decisions to take (>= 0); finished rows ignore theirs.
        rng: where the actions come from: a generator or an int seed
            (:func:`random_legal_actions`, one draw per step) or a policy ``mask (B, A) ->
            actions (B,)`` such as :class:`RowRandomPolicy` (batch-invariant streams).
        restart: ``None`` keeps finished rows finished; an int deals new games into the rows
            that finished after each step, with seeds ``restart, restart + 1, ...`` in order.
        until_done: stop early once every row has finished (only without ``restart``).
        inplace: step with ``game.step_inplace`` instead of ``game.step`` (the same states).

    Returns:
        The state after play (a new state; ``start`` is not modified).

    Raises:
        ValueError: ``steps`` negative or not an int, ``restart`` negative, or bad seeds.
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 0:
        raise ValueError(f"steps must be a non-negative int, got {steps!r}")
    if restart is not None and (isinstance(restart, bool) or not isinstance(restart, (int, np.integer)) or restart < 0):
        raise ValueError(f"restart must be None or a non-negative int seed, got {restart!r}")
    state = start.clone() if isinstance(start, BatchState) else game.init(start)
    if callable(rng):
        policy = rng
    else:
        gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)

        def policy(mask: np.ndarray) -> np.ndarray:
            return random_legal_actions(mask, gen)

    next_seed = restart
    for _ in range(int(steps)):
        if until_done and restart is None and _done(state).all():
            break
        acts = policy(state.legal_action_mask)
        if inplace:
            game.step_inplace(state, acts)
        else:
            state = game.step(state, acts)
        if next_seed is not None:
            done = np.flatnonzero(_done(state))
            if done.size:
                state.put(done, game.init(next_seed + np.arange(done.size)))
                next_seed += done.size
    return state


def step_legal(game: Game, state: BatchState, actions: np.ndarray, where: str) -> BatchState:
    """``game.step`` of actions the mask allows; any error it raises is a failure (``AssertionError``)."""
    try:
        return game.step(state, actions)
    except Exception as e:
        raise AssertionError(f"{where}: step raised on masked-legal actions: {type(e).__name__}: {e}") from e


def _history(game: Game, seeds: Any, max_steps: int = MAX_GAME_STEPS) -> list[BatchState]:
    """States of random legal play from ``game.init(seeds)`` until every row ended (or ``max_steps``)."""
    s = game.init(seeds)
    pol = RowRandomPolicy(seeds)
    out = [s]
    for t in range(max_steps):
        if _done(s).all():
            break
        s = step_legal(game, s, pol(s.legal_action_mask), f"{game!r} random play, step {t}")
        out.append(s)
    return out


def state_pool(game: Game, seed: int, rows: int = 6, snapshots: int = 4) -> BatchState:
    """``rows * snapshots`` rows of random play: the same games at ``snapshots`` depths spread
    from the start to the end (the last snapshot: every game over)."""
    hist = _history(game, seed * 1000 + np.arange(rows))
    picks = np.unique(np.linspace(0, len(hist) - 1, snapshots).round().astype(int))
    return type(hist[0]).concat([hist[k] for k in picks])


def _game_fields(state: BatchState) -> list[str]:
    """The game's own fields (beyond the shared :class:`BatchState` ones)."""
    base = set(BatchState.field_names())
    return [f for f in type(state).field_names() if f not in base]


def _step_one(game: Game, state: BatchState, row: int, action: int) -> BatchState:
    return game.step(state.take([row]), np.array([action], dtype=np.int64))


# ============================================================================ PettingZoo
def check_pettingzoo_api(game: str | Game, config: Mapping[str, Any] | None = None, *, num_cycles: int = 100) -> None:
    """PettingZoo's ``api_test`` on ``env(**config)``; no warnings but the dict-observation ones."""
    from pettingzoo.test import api_test

    c = _ctx(game, config)
    env = c.aec()[0](**c.config)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(env, num_cycles=num_cycles)
    _no_warnings(caught, DICT_OBS_WARNINGS, f"api_test of {c.name} {c.config}")


def check_pettingzoo_seed(game: str | Game, config: Mapping[str, Any] | None = None, *, num_cycles: int = 100) -> None:
    """PettingZoo's ``seed_test``: two envs reset with the same seed play the same game."""
    from pettingzoo.test import seed_test

    c = _ctx(game, config)
    env_fn = c.aec()[0]
    seed_test(lambda: env_fn(**c.config), num_cycles=num_cycles)


def check_pettingzoo_render(game: str | Game, config: Mapping[str, Any] | None = None) -> None:
    """PettingZoo's ``render_test`` in every render mode (``"ansi"`` returns a non-empty str)."""
    from pettingzoo.test import render_test

    c = _ctx(game, config)
    env_fn = c.aec()[0]
    try:
        render_test(
            lambda render_mode=None: env_fn(**c.config, render_mode=render_mode),
            custom_tests={"ansi": lambda r: isinstance(r, str) and r.strip() != ""},
        )
    except AssertionError as e:
        raise AssertionError(f"render_test of {c.name} {c.config}: {e or 'a picture is not a non-empty str'}") from e


def check_pettingzoo_parallel(
    game: str | Game, config: Mapping[str, Any] | None = None, *, num_cycles: int = 100
) -> None:
    """Simultaneous games, every face with its default arguments:

    * PettingZoo's ``parallel_api_test`` and ``parallel_seed_test`` on ``parallel_env(**config)``
      (the seed test samples without the masks: its illegal actions end the game, the default
      policy), and the seed test with masked samples (deeper into the game);
    * both again on ``aec_to_parallel(env(**config))``, PettingZoo's conversion of the AEC env,
      which must play the native env's games: the same seed and actions (masked samples, now and
      then an unmasked one, so illegal actions too) give the same observations (masks included),
      rewards, ends and infos, tick by tick, over two episodes;
    * a seeded game whose every observation lies in its space.
    """
    c = _ctx(game, config)
    if not c.spec.simultaneous:
        raise CheckSkipped(f"{c.name} is sequential: it has no ParallelEnv")
    if importlib.util.find_spec("monkey_envs.core.parallel") is None:
        raise CheckSkipped("monkey_envs.core.parallel is not there yet")
    from pettingzoo.test import parallel_api_test, parallel_seed_test
    from pettingzoo.utils.conversions import aec_to_parallel
    from pettingzoo.utils.env_logger import EnvLogger

    from monkey_envs.core.versioned import versioned_module

    module = versioned_module(f"{c.spec.name}_v{c.spec.version}")
    faces = {
        "parallel_env": lambda: module.parallel_env(**c.config),
        "aec_to_parallel(env())": lambda: aec_to_parallel(module.env(**c.config)),
    }
    EnvLogger.suppress_output()  # PettingZoo prints its illegal-move warning for each forfeit
    try:
        for what, make in faces.items():
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                parallel_api_test(make(), num_cycles=num_cycles)
            _no_warnings(caught, (), f"parallel_api_test of {what} of {c.name} {c.config}")
            try:
                parallel_seed_test(make, num_cycles=num_cycles)
            except AssertionError as e:
                raise AssertionError(f"parallel_seed_test of {what} of {c.name} {c.config}: {e}") from e
            except Exception as e:
                raise AssertionError(
                    f"parallel_seed_test of {what} of {c.name} {c.config} raised {type(e).__name__}: {e}"
                ) from e
        _parallel_seed_test(faces["parallel_env"], num_cycles=num_cycles)
        _converted_plays_native(c, faces["parallel_env"](), faces["aec_to_parallel(env())"](), num_cycles // 2)
    finally:
        EnvLogger.unsuppress_output()
    env = module.parallel_env(**c.config)
    obs, _ = env.reset(seed=5)
    pol = np.random.default_rng(5)
    for _ in range(num_cycles):
        for agent, o in obs.items():
            _expect(
                env.observation_space(agent).contains(o), f"parallel env: {agent}'s observation is outside its space"
            )
        if not env.agents:
            break
        actions = {}
        for a in env.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            _expect(legal.size > 0, f"parallel env: live agent {a} has no legal action")
            actions[a] = int(pol.choice(legal))
        obs, *_ = env.step(actions)


#: Share of the actions the second episode of :func:`_converted_plays_native` draws without the
#: mask (illegal ones end the game); the first episode plays masked actions to the game's end.
_UNMASKED_SHARE = 0.05


def _converted_plays_native(c: _Ctx, native: Any, converted: Any, num_cycles: int) -> None:
    """``aec_to_parallel(env())`` and ``parallel_env()`` step alike under the same seeded actions:
    an episode of masked actions to its end (within ``MAX_GAME_STEPS`` ticks), then up to
    ``num_cycles`` ticks where some actions are drawn without the mask (the episode ends by an
    illegal one, as a rule)."""
    from gymnasium.utils.env_checker import data_equivalence

    what = f"aec_to_parallel(env()) of {c.name} {c.config}"
    rng = np.random.default_rng(17)
    A = c.game.num_actions
    for episode, unmasked in enumerate((0.0, _UNMASKED_SHARE)):
        seed = 23 if episode == 0 else None  # the second episode continues the seed's stream
        obs_n, info_n = native.reset(seed=seed)
        obs_c, info_c = converted.reset(seed=seed)
        _expect(data_equivalence(obs_c, obs_n), f"{what}: reset observations differ from parallel_env's")
        _expect(data_equivalence(info_c, info_n), f"{what}: reset infos differ from parallel_env's")
        for t in range(MAX_GAME_STEPS if episode == 0 else num_cycles):
            if not native.agents:
                break
            _expect(list(converted.agents) == native.agents, f"{what}, tick {t}: agents {converted.agents}")
            actions = {
                a: int(rng.integers(A) if rng.random() < unmasked else rng.choice(np.flatnonzero(o["action_mask"])))
                for a, o in obs_n.items()
                if a in native.agents
            }
            out_n = native.step(actions)
            out_c = converted.step(actions)
            for name, got, want in zip(
                ("observations", "rewards", "terminations", "truncations", "infos"), out_c, out_n, strict=True
            ):
                if not data_equivalence(dict(got), want):  # (the message only then: reprs are slow)
                    _fail(
                        f"{what}, episode {episode}, tick {t}: {name} differ from parallel_env's: {dict(got)!r:.300} vs {want!r:.300}"
                    )
            obs_n = out_n[0]
        _expect(
            list(converted.agents) == native.agents,
            f"{what}: agents {converted.agents} at the end, parallel_env {native.agents}",
        )


def _parallel_seed_test(make: Callable[[], Any], num_cycles: int) -> None:
    """PettingZoo's ``parallel_seed_test`` with each action sampled from the agent's ``action_mask``.

    PettingZoo's version samples ``action_space.sample()`` without the mask, so it steps illegal
    actions in any game whose masks forbid some (the env then raises); this one is the same
    determinism check (two envs reset with seed 42, seeded action spaces, equal steps) with
    masked samples, as PettingZoo's AEC ``seed_test`` does.
    """
    from gymnasium.utils.env_checker import data_equivalence

    envs = [make(), make()]
    obs = [e.reset(seed=42)[0] for e in envs]
    for e in envs:
        for i, agent in enumerate(e.agents):
            e.action_space(agent).seed(42 + i)
    for _ in range(num_cycles):
        if not envs[0].agents:
            break
        acts = [
            {a: e.action_space(a).sample(o[a]["action_mask"]) for a in e.agents} for e, o in zip(envs, obs, strict=True)
        ]
        _expect(data_equivalence(acts[0], acts[1]), "parallel seed test: incorrect action seeding")
        out = [e.step(a) for e, a in zip(envs, acts, strict=True)]
        _expect(data_equivalence(out[0], out[1]), "parallel seed test: two envs seeded alike stepped differently")
        obs = [o[0] for o in out]
    for e in envs:
        e.close()


# ============================================================================ gymnasium / SB3 checkers
_BOUND_WARNINGS = ("infinity",)  # gymnasium's note on a Box without finite bounds


def check_gymnasium_check_env(game: str | Game, config: Mapping[str, Any] | None = None) -> None:
    """gymnasium's ``check_env`` on ``gymnasium.make(<registered id>)`` with default arguments (``config`` unused)."""
    import gymnasium
    from gymnasium.utils.env_checker import check_env

    c = _ctx(game, None if isinstance(game, Game) else {})
    env = gymnasium.make(c.gym_id)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    _no_warnings(caught, _BOUND_WARNINGS, f"gymnasium check_env of {c.gym_id}")


def check_sb3_check_env(game: str | Game, config: Mapping[str, Any] | None = None) -> None:
    """Stable-Baselines3's ``check_env`` on ``gymnasium.make(<registered id>)`` with default arguments."""
    try:
        from stable_baselines3.common.env_checker import check_env
    except ImportError as e:
        raise CheckSkipped(f"stable_baselines3 is not installed ({e})") from e
    import gymnasium

    c = _ctx(game, None if isinstance(game, Game) else {})
    env = gymnasium.make(c.gym_id).unwrapped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env, warn=True)
    _no_warnings(caught, _BOUND_WARNINGS, f"SB3 check_env of {c.gym_id}")


# ============================================================================ vector faces == single env
def _vector_info_row(info: Mapping[str, Any], i: int) -> dict[str, Any]:
    """Env ``i``'s entries of a gymnasium vector ``info`` dict (arrays with ``_key`` masks)."""
    out: dict[str, Any] = {}
    for k, v in info.items():
        if k.startswith("_"):
            continue
        m = info.get(f"_{k}")
        if m is None or not m[i]:
            continue
        out[k] = _vector_info_row(v, i) if isinstance(v, Mapping) else v[i]
    return out


def check_vector_equivalence(
    game: str | Game,
    config: Mapping[str, Any] | None = None,
    *,
    num_envs: int = 4,
    seed: int = 100,
    episodes: int = 3,
    max_steps: int = MAX_GAME_STEPS,
) -> None:
    """The gymnasium vector env and the SB3 VecEnv replay the single env, env by env (see the module docs)."""
    import gymnasium

    c = _ctx(game, config)
    n = num_envs
    vec = gymnasium.make_vec(c.gym_id, num_envs=n, vectorization_mode="vector_entry_point", **c.config)
    singles = [gymnasium.make(c.gym_id, **c.config) for _ in range(n)]
    try:
        from monkey_envs.core.sb3_vec import MonkeyVecEnv

        sb3 = MonkeyVecEnv(c.name, n, seed=seed, **c.config)
    except ImportError:
        sb3 = None
    obs_v, inf_v = vec.reset(seed=seed)
    obs_b = sb3.reset() if sb3 is not None else None
    masks, seats = [], []
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=seed + i)
        where = f"{c.name} {c.config} env {i} after reset"
        _expect(np.array_equal(o, obs_v[i]), f"{where}: vector env observation != single env seeded {seed + i}")
        _expect(np.array_equal(inf["action_mask"], inf_v["action_mask"][i]), f"{where}: vector env mask differs")
        _expect(inf["learner_seat"] == inf_v["learner_seat"][i], f"{where}: vector env learner seat differs")
        if sb3 is not None:
            _expect(np.array_equal(o, obs_b[i]), f"{where}: SB3 VecEnv observation differs")
            _expect(sb3.reset_infos[i]["learner_seat"] == inf["learner_seat"], f"{where}: SB3 learner seat differs")
            _expect(
                np.array_equal(sb3.action_masks()[i], inf["action_mask"].astype(bool)), f"{where}: SB3 mask differs"
            )
        masks.append(inf["action_mask"])
        seats.append(inf["learner_seat"])
    pol_v = RowRandomPolicy(seed + np.arange(n))
    pol_s = [RowRandomPolicy([seed + i]) for i in range(n)]
    ended = np.zeros(n, dtype=np.int64)
    for t in range(max_steps):
        acts = pol_v(inf_v["action_mask"])
        obs_v, r_v, te_v, tr_v, inf_v = vec.step(acts)
        if sb3 is not None:
            obs_b, r_b, d_b, inf_b = sb3.step(acts)
        for i, env in enumerate(singles):
            where = f"{c.name} {c.config} env {i} step {t}"
            a = int(pol_s[i](masks[i][None])[0])
            _expect(a == acts[i], f"{where}: the single env's mask gave another action ({a} vs {acts[i]})")
            o, r, te, tr, inf = env.step(a)
            _expect(r == r_v[i], f"{where}: vector env reward {r_v[i]} != single env {r}")
            _expect(te == te_v[i] and tr == tr_v[i], f"{where}: vector env end ({te_v[i]}, {tr_v[i]}) != ({te}, {tr})")
            if sb3 is not None:
                _expect(np.float32(r) == r_b[i], f"{where}: SB3 reward {r_b[i]} != single env {r}")
                _expect(d_b[i] == (te or tr), f"{where}: SB3 done {d_b[i]} != single env {te or tr}")
            if te or tr:
                final = {k: v for k, v in inf.items() if k != "action_mask"}
                _expect(
                    np.array_equal(inf_v["final_obs"][i], o), f"{where}: vector env final_obs != single terminal obs"
                )
                row_info = _vector_info_row(inf_v["final_info"], i)
                _expect(_same(row_info, final), f"{where}: vector final_info {row_info} != single env info {final}")
                if sb3 is not None:
                    b = dict(inf_b[i])
                    _expect(
                        np.array_equal(b.pop("terminal_observation"), o), f"{where}: SB3 terminal_observation differs"
                    )
                    _expect(b.pop("TimeLimit.truncated") == (tr and not te), f"{where}: SB3 TimeLimit.truncated")
                    _expect(_same(b, final), f"{where}: SB3 info {b} != single env info {final}")
                o, inf = env.reset()
                ended[i] += 1
            _expect(np.array_equal(o, obs_v[i]), f"{where}: vector env observation != single env")
            _expect(np.array_equal(inf["action_mask"], inf_v["action_mask"][i]), f"{where}: vector env mask differs")
            _expect(inf["learner_seat"] == inf_v["learner_seat"][i], f"{where}: vector env learner seat differs")
            if sb3 is not None:
                _expect(np.array_equal(o, obs_b[i]), f"{where}: SB3 observation != single env")
                _expect(np.array_equal(sb3.action_masks()[i], inf["action_mask"].astype(bool)), f"{where}: SB3 mask")
                _expect(sb3.learner_seat[i] == inf["learner_seat"], f"{where}: SB3 learner seat differs")
            masks[i] = inf["action_mask"]
        if ended.min() >= episodes:
            return
    _fail(f"{c.name} {c.config}: envs finished only {ended.tolist()} episodes in {max_steps} steps")


def check_vector_next_step(
    game: str | Game,
    config: Mapping[str, Any] | None = None,
    *,
    num_envs: int = 3,
    seed: int = 300,
    episodes: int = 2,
    max_steps: int = MAX_GAME_STEPS,
) -> None:
    """The vector env with ``autoreset_mode=NEXT_STEP`` replays the single env, env by env.

    Env ``i`` (seeded ``s + i``) equals a single env seeded ``s + i`` that calls ``reset()`` after
    each episode: per step the observation, reward, ends and info row (terminal info included);
    the step after an end shows the reset (first observation, reward 0, not done) and ignores
    the env's action.
    """
    import gymnasium
    from gymnasium.vector import AutoresetMode

    c = _ctx(game, config)
    n = num_envs
    vec = gymnasium.make_vec(
        c.gym_id,
        num_envs=n,
        vectorization_mode="vector_entry_point",
        autoreset_mode=AutoresetMode.NEXT_STEP,
        **c.config,
    )
    _expect(vec.metadata.get("autoreset_mode") == AutoresetMode.NEXT_STEP, f"{c.name}: metadata autoreset_mode")
    singles = [gymnasium.make(c.gym_id, **c.config) for _ in range(n)]
    obs_v, inf_v = vec.reset(seed=seed)
    masks = []
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=seed + i)
        _expect(np.array_equal(o, obs_v[i]), f"{c.name} {c.config} env {i}: reset observation differs")
        _expect(_same(_vector_info_row(inf_v, i), inf), f"{c.name} {c.config} env {i}: reset info differs")
        masks.append(inf["action_mask"])
    pol_v = RowRandomPolicy(seed + np.arange(n))
    pol_s = [RowRandomPolicy([seed + i]) for i in range(n)]
    restart = np.zeros(n, dtype=bool)
    ended = np.zeros(n, dtype=np.int64)
    for t in range(max_steps):
        acts = pol_v(inf_v["action_mask"])
        obs_v, r_v, te_v, tr_v, inf_v = vec.step(acts)
        for i, env in enumerate(singles):
            where = f"{c.name} {c.config} NEXT_STEP env {i} step {t}"
            a = int(pol_s[i](masks[i][None])[0])  # drawn in either case: the streams stay aligned
            if restart[i]:
                o, inf = env.reset()
                r, te, tr = 0.0, False, False
            else:
                _expect(a == acts[i], f"{where}: the single env's mask gave another action ({a} vs {acts[i]})")
                o, r, te, tr, inf = env.step(a)
            _expect(np.array_equal(o, obs_v[i]), f"{where}: observation != single env's")
            _expect(r == r_v[i], f"{where}: reward {r_v[i]} != single env's {r}")
            _expect(
                te == te_v[i] and tr == tr_v[i], f"{where}: end ({te_v[i]}, {tr_v[i]}) != single env's ({te}, {tr})"
            )
            row = _vector_info_row(inf_v, i)
            _expect(_same(row, inf), f"{where}: info {row} != single env's {inf}")
            masks[i] = inf["action_mask"]
            restart[i] = te or tr
            ended[i] += int(te or tr)
        if ended.min() >= episodes:
            return
    _fail(f"{c.name} {c.config}: NEXT_STEP envs finished only {ended.tolist()} episodes in {max_steps} steps")


# ============================================================================ core: batch invariance
def check_batch_invariance(
    game: str | Game,
    config: Mapping[str, Any] | None = None,
    *,
    seeds: Sequence[int] = (3, 11, 0, 7, 1000, 3, 2**33 + 5),
    max_steps: int = MAX_GAME_STEPS,
) -> None:
    """Row ``i`` of a batch equals seed ``seeds[i]`` played alone (every array, every seat's observation)."""
    c = _ctx(game, config)
    g = c.game
    seeds = np.asarray(seeds, dtype=np.int64)
    big = g.init(seeds)
    pol = RowRandomPolicy(seeds)
    small = [g.init(seeds[i : i + 1]) for i in range(seeds.size)]
    pols = [RowRandomPolicy(seeds[i : i + 1]) for i in range(seeds.size)]
    for t in range(max_steps + 1):
        for i, s in enumerate(small):
            where = f"{c.name} {c.config} seed {seeds[i]} (row {i}) after {t} steps"
            _row_equal(big, i, s, 0, where)
            for p in range(g.num_players):
                _expect(
                    np.array_equal(g.observe(big, p)[i], g.observe(s, p)[0]),
                    f"{where}: seat {p}'s observation depends on the other rows",
                )
        if _done(big).all():
            return
        acts = pol(big.legal_action_mask)
        big = step_legal(g, big, acts, f"{c.name} {c.config} batch step {t}")
        for i in range(seeds.size):
            a = pols[i](small[i].legal_action_mask)
            _expect(a[0] == acts[i], f"{c.name}: row {i} step {t}: the one-row mask gave another action")
            small[i] = step_legal(g, small[i], a, f"{c.name} {c.config} seed {seeds[i]} alone, step {t}")


# ============================================================================ core: round trips
def _round_trips(state: BatchState, game: Game, rng: np.random.Generator) -> dict[str, Callable[[], BatchState]]:
    cls = type(state)
    b = state.batch_size
    perm = rng.permutation(b)
    k = max(1, b // 2)
    parts = cls.concat([state.take(perm[:k]), state.take(perm[k:])])
    assert_states_equal(parts, state.take(perm), "concat of two takes != take of the whole permutation")
    assert_states_equal(state.take(np.ones(b, dtype=bool)), state, "take(all-True mask) != the state")
    assert_states_equal(state.take(slice(None)), state, "take(slice(None)) != the state")
    put = game.init(np.arange(b) + 777)
    put.put(perm, parts)
    data = state.get_state()
    buf = io.BytesIO()
    state.save(buf)
    buf.seek(0)
    return {  # made one after the other by check_round_trips: the copies first, then the validating loaders
        "clone": state.clone,
        "copy.deepcopy": lambda: copy.deepcopy(state),
        "pickle": lambda: pickle.loads(pickle.dumps(state)),
        "take/concat/put": lambda: put,
        "get_state/set_state (via JSON)": lambda: cls.set_state(json.loads(json.dumps(data))),
        "to_json/from_json": lambda: cls.from_json(state.to_json()),
        "save/load": lambda: cls.load(buf),
    }


def check_round_trips(
    game: str | Game, config: Mapping[str, Any] | None = None, *, seed: int = 2, steps_after: int = 4
) -> None:
    """Every copy and serialisation of mid-game states is equal, shares no memory and steps
    identically; the game pickles and its copy steps those states identically."""
    c = _ctx(game, config)
    g = c.game
    state = state_pool(g, seed, rows=3, snapshots=3)
    before = state.clone()
    copies = _round_trips(state, g, np.random.default_rng(seed))
    for how, make in copies.items():
        where = f"{c.name} {c.config}: {how}"
        try:
            twin = make()
        except ValueError as e:
            raise AssertionError(f"{where} refused a state of the game's own play: {e}") from e
        assert_states_equal(twin, state, where)
        for f in type(state).field_names():
            _expect(not np.shares_memory(getattr(twin, f), getattr(state, f)), f"{where}: field {f!r} shares memory")
        a, b = state, twin
        pa, pb = RowRandomPolicy(np.arange(a.batch_size)), RowRandomPolicy(np.arange(a.batch_size))
        for t in range(steps_after):
            a, b = g.step(a, pa(a.legal_action_mask)), g.step(b, pb(b.legal_action_mask))
            assert_states_equal(b, a, f"{where}, then {t + 1} steps")
    assert_states_equal(state, before, f"{c.name}: the round trips changed the original state")
    # the game itself travels too (multiprocessing, Ray workers): it pickles as its class and options
    import pickle

    try:
        g2 = pickle.loads(pickle.dumps(g))
    except Exception as e:  # any failure is the finding
        raise AssertionError(f"{c.name} {c.config}: the game does not pickle ({type(e).__name__}: {e})") from e
    _expect(type(g2) is type(g) and g2.config == g.config, f"{c.name} {c.config}: a pickled game came back as {g2!r}")
    a, b = state.clone(), state.clone()
    pa, pb = RowRandomPolicy(np.arange(a.batch_size)), RowRandomPolicy(np.arange(a.batch_size))
    for t in range(steps_after):
        a, b = g.step(a, pa(a.legal_action_mask)), g2.step(b, pb(b.legal_action_mask))
        assert_states_equal(b, a, f"{c.name} {c.config}: the unpickled game, {t + 1} steps")


# ============================================================================ core: in-place forms
def check_in_place(
    game: str | Game,
    config: Mapping[str, Any] | None = None,
    *,
    seed: int = 5,
    steps: int = 6,
    long_rows: int = 16,
    long_steps: int = 300,
) -> None:
    """``reset_rows``, ``step_inplace`` and ``observe(out=)`` equal their copying forms bit for bit.

    ``reset_rows(s, rows, seeds)`` leaves ``s`` equal to ``s.put(rows, init(seeds))`` (rows in any
    order, seeds beyond 32 bits), on rows of every depth of play and on rows holding random bytes
    (a compiled deal must set every array of the row; the other rows stay as they were);
    ``step_inplace`` equals ``step`` for several steps of random play (mid-game and finished rows);
    ``observe(s, p, out=buf)`` returns ``buf`` holding ``observe(s, p)`` (every cell written, for
    every seat and for ``current_player``); and a long loop of ``step_inplace`` + ``reset_rows`` +
    ``observe(out=)`` (about ``long_rows`` games of every depth, ``long_steps`` steps, finished games
    restarted) stays equal to ``step`` + ``put(init)`` + ``observe`` at every step. Bad rows,
    seeds, actions or buffers raise a ``ValueError`` and change nothing.
    """
    c = _ctx(game, config)
    g = c.game
    state = state_pool(g, seed, rows=4, snapshots=3)
    B, D, P = state.batch_size, g.obs_dim, g.num_players
    rng = np.random.default_rng(seed)
    for n in sorted({1, B // 2, B}):
        rows = rng.choice(B, n, replace=False)
        seeds = rng.integers(0, 2**40, n)
        want = state.clone()
        want.put(rows, g.init(seeds))
        got = state.clone()
        g.reset_rows(got, rows, seeds)
        assert_states_equal(got, want, f"{c.name} {c.config}: reset_rows of {n} of {B} rows != put(rows, init(seeds))")
    junk = state.clone()
    for arr in junk.arrays().values():
        raw = arr.view(np.uint8)
        raw[...] = rng.integers(0, 256, raw.shape, dtype=np.uint8)
    rows = rng.choice(B, min(4, B), replace=False)
    seeds = rng.integers(0, 2**40, rows.size)
    want = junk.clone()
    want.put(rows, g.init(seeds))
    g.reset_rows(junk, rows, seeds)
    assert_states_equal(junk, want, f"{c.name} {c.config}: reset_rows of rows holding random bytes != put(init)")
    _long_in_place_loop(c, long_rows, long_steps, seed)
    a, b = state.clone(), state.clone()
    pol = RowRandomPolicy(np.arange(B) + seed)
    for t in range(steps):
        acts = pol(a.legal_action_mask)
        a = g.step(a, acts)
        g.step_inplace(b, acts)
        where = f"{c.name} {c.config}: step_inplace, step {t + 1}"
        assert_states_equal(b, a, where)
        seats: list[Any] = [*range(P), np.where(a.current_player >= 0, a.current_player, 0).astype(np.int64)]
        for seat in seats:
            buf = np.full((B, D), np.nan, np.float32)
            _expect(g.observe(b, seat, out=buf) is buf, f"{where}: observe(out=) did not return out")
            want_obs = g.observe(a, seat)
            _expect(
                np.array_equal(buf.view(np.uint32), want_obs.view(np.uint32)),
                f"{where}: observe(out=) != observe for seat {seat!r}",
            )
        if _done(a).all():
            a, b = state.clone(), state.clone()
    # bad input changes nothing
    before = b.clone()
    bad_resets: list[tuple[Any, Any, str]] = [
        ([0, 0], [1, 2], "repeated rows"),
        ([B], [1], "a row out of range"),
        ([-1], [1], "a negative row"),
        ([0.0], [1], "float rows"),
        ([[0]], [1], "2-D rows"),
        ([0, 1], [1], "fewer seeds than rows"),
        ([0], [-3], "a negative seed"),
        ([0], [1.5], "a float seed"),
    ]
    for rows, seeds, what in bad_resets:
        _raises(ValueError, lambda r=rows, s=seeds: g.reset_rows(b, r, s), f"{c.name} reset_rows with {what}")
        assert_states_equal(b, before, f"{c.name}: reset_rows with {what} changed the state")
    _raises(ValueError, lambda: g.reset_rows(b.get_state(), [0], [1]), f"{c.name}: reset_rows of a dict")
    for acts, what in ((np.zeros(B + 1, np.int64), "too many actions"), (np.full(B, g.num_actions), "out of range")):
        _raises(ValueError, lambda x=acts: g.step_inplace(b, x), f"{c.name} step_inplace with {what}")
        assert_states_equal(b, before, f"{c.name}: step_inplace with {what} changed the state")
    illegal = _illegal_rows(g, seed + 1, 4)
    if illegal is not None:
        acts = illegal.legal_action_mask.argmax(1)
        acts[2] = (~illegal.legal_action_mask[2]).argmax()
        kept = illegal.clone()
        _raises(ValueError, lambda: g.step_inplace(illegal, acts), f"{c.name} step_inplace with an illegal action")
        assert_states_equal(illegal, kept, f"{c.name}: a rejected step_inplace changed the state")
    for buf, what in (
        (np.zeros((B, D + 1), np.float32), "a buffer one column too wide"),
        (np.zeros((B + 1, D), np.float32), "a buffer one row too many"),
        (np.zeros((B, D), np.float64), "a float64 buffer"),
        (np.zeros((D, B), np.float32).T, "a Fortran-ordered buffer"),
        ([[0.0] * D] * B, "a list"),
    ):
        snapshot = np.array(buf, copy=True)
        _raises(ValueError, lambda o=buf: g.observe(b, 0, out=o), f"{c.name} observe(out=) with {what}")
        _expect(np.array_equal(np.asarray(buf), snapshot), f"{c.name}: observe(out=) with {what} wrote into it")


def _long_in_place_loop(c: _Ctx, rows: int, steps: int, seed: int) -> None:
    """``step_inplace`` + ``reset_rows`` + ``observe(out=)`` == ``step`` + ``put(init)`` + ``observe``, step by step."""
    g = c.game
    D, P = g.obs_dim, g.num_players
    a = state_pool(g, seed + 1, rows=max(rows // 4, 1), snapshots=4)  # every depth, the last one over
    rows = a.batch_size
    next_seed = seed * 10_000
    b = a.clone()
    pol = RowRandomPolicy(seed * 10_000 + 5_000 + np.arange(rows))
    buf = np.full((rows, D), np.nan, np.float32)
    restarted = 0
    for t in range(steps):
        where = f"{c.name} {c.config}: long in-place loop, step {t + 1}"
        acts = pol(a.legal_action_mask)
        a = g.step(a, acts)
        g.step_inplace(b, acts)
        done = np.flatnonzero(_done(a))
        if done.size:
            seeds = next_seed + np.arange(done.size)
            next_seed += done.size
            a.put(done, g.init(seeds))
            g.reset_rows(b, done, seeds)
            restarted += done.size
        assert_states_equal(b, a, where)
        seats: list[Any] = [np.where(a.current_player >= 0, a.current_player, 0).astype(np.int64)]
        if t % 10 == 0:
            seats += list(range(P))
        for seat in seats:
            g.observe(b, seat, out=buf)
            _expect(
                np.array_equal(buf.view(np.uint32), g.observe(a, seat).view(np.uint32)),
                f"{where}: observe(out=) != observe for seat {seat!r}",
            )
    _expect(restarted > 0, f"{c.name} {c.config}: no game ended in {steps} steps of the long in-place loop")


def check_strided_state(
    game: str | Game, config: Mapping[str, Any] | None = None, *, seed: int = 6, steps: int = 5
) -> None:
    """A state whose arrays are strided views steps, restarts and observes as its contiguous copy.

    numpy users slice batches (``a[::2]`` of every array gives a state of every other row); the
    rules must read and write such arrays in place exactly as they do contiguous ones: through
    ``step_inplace``, ``step``, ``reset_rows`` and ``observe`` (with and without ``out=``) of every
    seat, bit for bit, over several steps of random play.
    """
    c = _ctx(game, config)
    g = c.game
    contiguous = state_pool(g, seed, rows=3, snapshots=3)
    B, P = contiguous.batch_size, g.num_players
    views = {}
    for name, a in contiguous.arrays().items():
        wide = np.empty((2 * B, *a.shape[1:]), a.dtype)
        wide[0::2] = a
        wide[1::2] = a
        views[name] = wide[0::2]  # every other row: a view, strided on its batch axis
    strided = type(contiguous)(**views)
    _expect(
        not all(a.flags.c_contiguous for a in strided.arrays().values()),
        f"{c.name}: the strided state's arrays came out contiguous (the check would prove nothing)",
    )
    pol = RowRandomPolicy(np.arange(B) + seed)
    rng = np.random.default_rng(seed)
    for t in range(steps):
        where = f"{c.name} {c.config}: strided state, step {t + 1}"
        acts = pol(contiguous.legal_action_mask)
        assert_states_equal(g.step(strided, acts), g.step(contiguous, acts), f"{where}: step")
        g.step_inplace(strided, acts)
        g.step_inplace(contiguous, acts)
        assert_states_equal(strided, contiguous, f"{where}: step_inplace")
        done = np.flatnonzero(_done(contiguous))
        if done.size:
            seeds = rng.integers(0, 2**31, done.size)
            g.reset_rows(strided, done, seeds)
            g.reset_rows(contiguous, done, seeds)
            assert_states_equal(strided, contiguous, f"{where}: reset_rows")
        for seat in [
            *range(P),
            np.where(contiguous.current_player >= 0, contiguous.current_player, 0).astype(np.int64),
        ]:
            want = g.observe(contiguous, seat)
            buf = np.full_like(want, np.nan)
            g.observe(strided, seat, out=buf)
            _expect(
                np.array_equal(g.observe(strided, seat).view(np.uint32), want.view(np.uint32))
                and np.array_equal(buf.view(np.uint32), want.view(np.uint32)),
                f"{where}: observe of a strided state != of its contiguous copy for seat {seat!r}",
            )


# ============================================================================ bad input
def _illegal_rows(game: Game, seed: int, want: int) -> BatchState | None:
    """Up to ``want`` running rows that have an in-range illegal action, from random play."""
    pool = state_pool(game, seed, rows=8, snapshots=6)
    ok = np.flatnonzero(~_done(pool) & ~pool.legal_action_mask.all(1))
    if ok.size == 0:
        return None
    return pool.take(np.resize(ok, want))


def _check_core_bad_input(c: _Ctx, seed: int) -> None:
    g = c.game
    A, P = g.num_actions, g.num_players
    pool = state_pool(g, seed, rows=4, snapshots=3)
    running = pool.take(np.resize(np.flatnonzero(~_done(pool)), 4))
    B = running.batch_size
    legal = running.legal_action_mask.argmax(1)

    def rejects(actions: Any, what: str, state: BatchState = running, match: str = "") -> None:
        before = state.clone()
        _raises(ValueError, lambda: g.step(state, actions), f"{c.name} {c.config} core step with {what}", match)
        assert_states_equal(state, before, f"{c.name} core step with {what} changed the state")

    for bad in (-1, A, A + 1, 2**40, -(2**40)):
        acts = legal.copy()
        acts[1] = bad
        rejects(acts, f"out-of-range action {bad} in row 1", match=r"\[1\b")  # the message names the row
    rejects(legal.astype(np.float32), "float actions naming legal ones")
    rejects(legal + 0.5, "fractional actions")
    rejects([float(a) for a in legal], "a list of floats")
    rejects(np.ones(B, dtype=bool), "bool actions")
    rejects([str(a) for a in legal], "string actions")
    rejects([None] * B, "None actions")
    rejects("0" * B, "a string")
    for what, acts in (
        ("too few actions", legal[:-1]),
        ("too many actions", np.concatenate([legal, legal[:1]])),
        ("a (B, 1) batch", legal[:, None]),
        ("a (1, B) batch", legal[None, :]),
        ("a scalar for B > 1", legal[0]),
    ):
        rejects(acts, what)
    one = running.take([0])
    a0 = int(legal[0])
    assert_states_equal(g.step(one, a0), g.step(one, np.array([a0])), f"{c.name}: a scalar action for B = 1")
    illegal = _illegal_rows(g, seed + 1, 4)
    if illegal is not None:
        acts = illegal.legal_action_mask.argmax(1)
        acts[2] = (~illegal.legal_action_mask[2]).argmax()
        rejects(acts, "an illegal action in row 2", illegal, match=r"\[2\b")
    # finished rows ignore their action, even out of range
    end = state_pool(g, seed + 2, rows=2, snapshots=2).take([2, 3])  # the last snapshot: games over
    _expect(_done(end).all(), f"{c.name}: random play did not end the games")
    mixed = type(end).concat([end, running.take([0])])
    for bad in (-5, A + 7, 0):
        out = g.step(mixed, np.array([bad, bad, a0]))
        for r in (0, 1):
            _expect((out.rewards[r] == 0).all(), f"{c.name}: a finished row got rewards")
            for f in type(out).field_names():
                if f != "rewards":
                    _expect(
                        np.array_equal(getattr(out, f)[r], getattr(mixed, f)[r]),
                        f"{c.name}: a finished row changed field {f!r} on action {bad}",
                    )
    # seeds
    for seeds in (-1, [3, -2], 1.5, [1.0, 2.0], [], np.zeros(0, np.int64), [[1, 2], [3, 4]], "7", [True, False]):
        _raises(ValueError, lambda s=seeds: g.init(s), f"{c.name} init({seeds!r})")
    # seats
    for seat in (-1, P, P + 5, np.full(B, P), np.zeros(B + 1, int), np.zeros((B, 1), int), 0.5, np.zeros(B), True):
        before = running.clone()
        _raises(ValueError, lambda p=seat: g.observe(running, p), f"{c.name} observe with seat {seat!r}")
        assert_states_equal(running, before, f"{c.name}: observe with a bad seat changed the state")
    # foreign states
    _raises(ValueError, lambda: g.step(running.get_state(), legal), f"{c.name}: stepping a dict instead of a state")
    for other_cfg in type(g).test_configs:
        other = type(g)(**other_cfg)
        if other.num_actions != A or other.num_players != P:
            foreign = other.init(np.arange(B))
            before = foreign.clone()
            _raises(
                ValueError,
                lambda o=foreign: g.step(o, np.zeros(B, np.int64)),
                f"{c.name} {c.config}: stepping a state of {other_cfg}",
            )
            assert_states_equal(foreign, before, f"{c.name}: a rejected foreign state changed")
            break


def _aec_illegal_position(raw: Any, seeds: range) -> tuple[int, list[int], str, int] | None:
    """``(seed, actions, agent, illegal action)``: a position of the raw AEC env where the agent to
    move has an in-range illegal action (``actions`` replay it from ``reset(seed)``)."""
    for seed in seeds:
        raw.reset(seed=seed)
        pol = np.random.default_rng(seed)
        played: list[int] = []
        for _ in range(60):
            agent = raw.agent_selection
            if raw.terminations[agent] or raw.truncations[agent]:
                break
            mask = raw.observe(agent)["action_mask"]
            if not mask.all():
                return seed, played, agent, int(np.flatnonzero(mask == 0)[0])
            a = int(pol.choice(np.flatnonzero(mask)))
            raw.step(a)
            played.append(a)
    return None


def _check_aec_bad_input(c: _Ctx) -> None:
    env_fn, raw_fn = c.aec()
    A = c.game.num_actions
    raw = raw_fn(**c.config)
    pos = _aec_illegal_position(raw, range(40))
    raw.reset(seed=0)
    agent = raw.agent_selection
    for bad in (A, -1, 1.5, True):
        before = raw.core_state.clone()
        _raises(ValueError, lambda b=bad: raw.step(b), f"{c.name} raw AEC env step({bad!r})")
        assert_states_equal(raw.core_state, before, f"{c.name} raw AEC env: a rejected step({bad!r}) changed the game")
        _expect(raw.agent_selection == agent, f"{c.name} raw AEC env: a rejected step moved agent_selection")
    env = env_fn(**c.config)
    env.reset(seed=0)
    _raises(AssertionError, lambda: env.step(A), f"{c.name} env(): an out-of-range action")
    if pos is None:
        return
    seed, played, agent, illegal = pos
    raw.reset(seed=seed)
    for a in played:
        raw.step(a)
    before = raw.core_state.clone()
    _raises(ValueError, lambda: raw.step(illegal), f"{c.name} raw AEC env: illegal action {illegal}")
    assert_states_equal(raw.core_state, before, f"{c.name} raw AEC env: a rejected illegal move changed the game")
    _expect(
        raw.agent_selection == agent and not any(raw.terminations.values()),
        f"{c.name} raw AEC env: a rejected illegal move changed who moves or ended the game",
    )
    mask = raw.observe(agent)["action_mask"]
    raw.step(int(np.flatnonzero(mask)[0]))  # still playable
    env = env_fn(**c.config)
    env.reset(seed=seed)
    for a in played:
        env.step(a)
    env.observe(env.agent_selection)
    env.step(illegal)
    if c.spec.simultaneous:  # the game ends when the tick's last seat has committed (legal stand-ins here)
        for _ in range(c.game.num_players):
            if all(env.terminations.values()):
                break
            _expect(
                env.agent_selection != agent,
                f"{c.name} env(): the offender {agent} was asked again in the tick of its illegal commit",
            )
            env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    _expect(
        all(env.terminations.values()) or all(env.truncations.values()),
        f"{c.name} env(): an illegal move did not end the game"
        + (" when its tick's last seat had committed" if c.spec.simultaneous else ""),
    )
    seen: dict[str, float] = {}
    for a in env.agent_iter():
        _, reward, term, trunc, _ = env.last()
        _expect(term or trunc, f"{c.name} env(): {a} still alive after an illegal move")
        seen[a] = reward
        env.step(None)
    _expect(seen.get(agent) == -1, f"{c.name} env(): the offender {agent} got {seen.get(agent)}, not -1")
    others = {a: r for a, r in seen.items() if a != agent}
    _expect(all(r == 0 for r in others.values()), f"{c.name} env(): the others got {others} after an illegal move")


def _gym_illegal_position(make: Callable[[], Any], seeds: range) -> tuple[int, list[int], int] | None:
    env = make()
    for seed in seeds:
        _, info = env.reset(seed=seed)
        pol = np.random.default_rng(seed)
        played: list[int] = []
        for _ in range(60):
            mask = info["action_mask"]
            if not mask.all():
                return seed, played, int(np.flatnonzero(mask == 0)[0])
            a = int(pol.choice(np.flatnonzero(mask)))
            _, _, term, trunc, info = env.step(a)
            played.append(a)
            if term or trunc:
                break
    return None


def _check_gym_bad_input(c: _Ctx) -> None:
    import gymnasium

    A = c.game.num_actions
    loss = float(c.spec.reward_range[0])

    def make(policy: str) -> Any:
        return gymnasium.make(c.gym_id, illegal_action=policy, **c.config)

    env = make("raise")
    env.reset(seed=0)
    for bad in (A, -1, 1.5):
        before = env.unwrapped.driver.state.clone()
        _raises(ValueError, lambda b=bad: env.step(b), f"{c.name} gym env (raise): step({bad!r})")
        assert_states_equal(env.unwrapped.driver.state, before, f"{c.name} gym env: a rejected step({bad!r}) changed")
    pos = _gym_illegal_position(lambda: make("raise"), range(40))
    if pos is not None:
        seed, played, illegal = pos
        env = make("raise")
        env.reset(seed=seed)
        for a in played:
            env.step(a)
        before = env.unwrapped.driver.state.clone()
        _raises(ValueError, lambda: env.step(illegal), f"{c.name} gym env (raise): illegal action {illegal}")
        assert_states_equal(env.unwrapped.driver.state, before, f"{c.name} gym env: a rejected illegal move changed")
        env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))  # still playable
        for bad in (illegal, A):
            lose = make("lose")
            lose.reset(seed=seed)
            for a in played:
                lose.step(a)
            _, reward, term, trunc, info = lose.step(bad)
            where = f"{c.name} gym env (lose): action {bad}"
            _expect(term and not trunc, f"{where} did not end the episode")
            _expect(reward == loss, f"{where}: reward {reward}, not the loss {loss}")
            _expect(info.get("illegal_action") is True, f"{where}: info lacks illegal_action=True")
            _expect(not info["action_mask"].any(), f"{where}: the mask is not empty after the end")
            _raises(ValueError, lambda e=lose: e.step(0), f"{where}: a step after the end", match="reset")


def _vec_illegal_position(
    make: Callable[[], Any], masks: Callable[[Any], np.ndarray], step: Callable[[Any, np.ndarray], Any], n: int
) -> tuple[list[np.ndarray], int, int] | None:
    """``(actions, row, illegal)``: replaying ``actions`` after the seeded reset reaches a step where
    env ``row`` has the in-range illegal action ``illegal``."""
    env = make()
    pol = RowRandomPolicy(np.arange(n))
    played: list[np.ndarray] = []
    for _ in range(60):
        m = masks(env)
        rows = np.flatnonzero(~m.all(1))
        if rows.size:
            return played, int(rows[0]), int(np.flatnonzero(~m[rows[0]])[0])
        a = pol(m)
        step(env, a)
        played.append(a)
    return None


def _check_vector_bad_input(c: _Ctx, num_envs: int = 4, seed: int = 9) -> None:
    import gymnasium

    A = c.game.num_actions
    loss = float(c.spec.reward_range[0])
    faces: list[tuple[str, Callable[[str], Any], Callable[[Any], np.ndarray], Callable[[Any, np.ndarray], Any]]] = []

    def make_gym(policy: str) -> Any:
        env = gymnasium.make_vec(
            c.gym_id, num_envs=num_envs, vectorization_mode="vector_entry_point", illegal_action=policy, **c.config
        )
        env.reset(seed=seed)
        return env

    faces.append(("gym vector env", make_gym, lambda e: e.unwrapped.action_masks(), lambda e, a: e.step(a)))
    try:
        from monkey_envs.core.sb3_vec import MonkeyVecEnv

        def make_sb3(policy: str) -> Any:
            env = MonkeyVecEnv(c.name, num_envs, seed=seed, illegal_action=policy, **c.config)
            env.reset()
            return env

        faces.append(("SB3 VecEnv", make_sb3, lambda e: e.action_masks(), lambda e, a: e.step(a)))
    except ImportError:
        pass
    for face, make, masks, step in faces:
        env = make("raise")
        legal = masks(env).argmax(1)
        for what, acts in (
            ("out-of-range", np.where(np.arange(num_envs) == 1, A, legal)),
            ("float", legal.astype(np.float64)),
            ("wrongly shaped", legal[:-1]),
            ("bool", np.ones(num_envs, dtype=bool)),
        ):
            before = env.unwrapped.driver.state.clone() if face.startswith("gym") else env.driver.state.clone()
            _raises(ValueError, lambda e=env, a=acts, f=step: f(e, a), f"{c.name} {face} (raise): {what} actions")
            now = env.unwrapped.driver.state if face.startswith("gym") else env.driver.state
            assert_states_equal(now, before, f"{c.name} {face}: rejected {what} actions changed the games")
        pos = _vec_illegal_position(lambda m=make: m("raise"), masks, step, num_envs)
        if pos is None:
            continue
        played, row, illegal = pos
        env = make("raise")
        for a in played:
            step(env, a)
        acts = masks(env).argmax(1)
        acts[row] = illegal
        _raises(
            ValueError, lambda e=env, a=acts, f=step: f(e, a), f"{c.name} {face} (raise): illegal action in env {row}"
        )
        lose = make("lose")
        for a in played:
            step(lose, a)
        out = step(lose, acts)
        where = f"{c.name} {face} (lose): illegal action in env {row}"
        if face.startswith("gym"):
            _, rewards, terms, truncs, infos = out
            _expect(terms[row] and not truncs[row], f"{where} did not end its episode")
            flag = infos["final_info"].get("illegal_action")
            _expect(flag is not None and bool(flag[row]), f"{where}: final_info lacks illegal_action")
            mask = infos["final_info"].get("_illegal_action", np.zeros(num_envs, bool)) & np.asarray(flag, bool)
            _expect(mask.sum() == 1, f"{where}: other envs forfeited too ({np.flatnonzero(mask).tolist()})")
        else:
            _, rewards, dones, infos = out
            _expect(dones[row], f"{where} did not end its episode")
            _expect(infos[row].get("illegal_action") is True, f"{where}: info lacks illegal_action")
            others = [i for i in range(num_envs) if i != row and infos[i].get("illegal_action")]
            _expect(not others, f"{where}: envs {others} forfeited too")
        _expect(rewards[row] == loss, f"{where}: reward {rewards[row]}, not the loss {loss}")


def check_bad_input(game: str | Game, config: Mapping[str, Any] | None = None, *, seed: int = 4) -> None:
    """Bad actions, seeds, seats, states and options on every face (see the module docs)."""
    c = _ctx(game, config)
    _check_core_bad_input(c, seed)
    _check_aec_bad_input(c)
    _check_gym_bad_input(c)
    _check_vector_bad_input(c)
    import gymnasium

    from monkey_envs.core.registry import make_game

    bad = {**c.config, UNKNOWN_OPTION: 1}
    for what, fn in (
        ("make_game", lambda: make_game(c.name, **bad)),
        ("the AEC env", lambda: c.aec()[0](**bad)),
        ("gymnasium.make", lambda: gymnasium.make(c.gym_id, **bad)),
    ):
        _raises((ValueError, TypeError), fn, f"{c.name}: {what} with an unknown option", match=UNKNOWN_OPTION)


# ============================================================================ no peeking
def _differs_beyond_rng(a: BatchState, b: BatchState) -> bool:
    return any(not np.array_equal(getattr(a, f), getattr(b, f)) for f in type(a).field_names() if f != "rng")


def check_no_peeking(
    game: str | Game,
    config: Mapping[str, Any] | None = None,
    *,
    seed: int = 6,
    resample_seeds: Sequence[int] = (0, 1, 2),
    aec_rows: int = 3,
    render_rows: int = 6,
    commit_rows: int = 8,
) -> None:
    """What a seat sees does not depend on what it may not know (see the module docs)."""
    c = _ctx(game, config)
    g = c.game
    pool = state_pool(g, seed, rows=6, snapshots=5)
    state = pool.take(np.flatnonzero(~_done(pool)))
    _expect(state.batch_size > 0, f"{c.name}: random play left no running state")
    raw = c.aec()[1](**c.config)
    original = state.clone()
    changed = False
    for seat in range(g.num_players):
        base_obs = g.observe(state, seat)
        mine = state.current_player == seat
        agent = raw.possible_agents[seat]
        for i, k in enumerate(resample_seeds):
            where = f"{c.name} {c.config}: seat {seat}, resample seed {k}"
            twin = g.resample_hidden(state, seat, k)
            assert_states_equal(state, original, f"{where}: resample_hidden changed the state it was given")
            if twin is None:
                continue
            _expect(
                type(twin) is type(state) and twin.batch_size == state.batch_size, f"{where}: not a state of the batch"
            )
            bad = g.state_violations(twin)
            _expect(not bad, f"{where}: the resampled state breaks the game's laws: {bad[:5]}")
            again = g.resample_hidden(state, seat, k)
            _expect(again is not None, f"{where}: a second call with the same seed gave None")
            assert_states_equal(again, twin, f"{where}: the same seed resampled differently (not deterministic)")
            if i == 0:  # the resampled state is a position of the game: it plays on
                nxt = step_legal(
                    g, twin, RowRandomPolicy(np.arange(twin.batch_size) + k)(twin.legal_action_mask), where
                )
                bad = g.state_violations(nxt)
                _expect(not bad, f"{where}: a random legal step of the resampled state broke the laws: {bad[:5]}")
            changed |= _differs_beyond_rng(twin, state)
            obs = g.observe(twin, seat)
            rows = np.flatnonzero((obs != base_obs).any(1))
            _expect(rows.size == 0, f"{where}: the seat's observation changed in rows {rows[:10].tolist()}")
            _expect(np.array_equal(twin.current_player == seat, mine), f"{where}: whether the seat is to move changed")
            _expect(
                np.array_equal(twin.legal_action_mask[mine], state.legal_action_mask[mine]),
                f"{where}: the seat's legal actions changed",
            )
            for r in range(min(render_rows, state.batch_size)):
                _expect(
                    g.render(twin, r, viewer=seat) == g.render(state, r, viewer=seat),
                    f"{where}: render(viewer={seat}) of row {r} changed",
                )
            for r in range(min(aec_rows, state.batch_size)):
                raw.load_state(state.take([r]))
                o, info = raw.observe(agent), dict(raw.infos[agent])
                raw.load_state(twin.take([r]))
                o2, info2 = raw.observe(agent), dict(raw.infos[agent])
                _expect(
                    all(np.array_equal(o[key], o2[key]) for key in o),
                    f"{where}: AEC observe({agent}) of row {r} changed",
                )
                _expect(_same(info, info2), f"{where}: AEC infos[{agent}] of row {r} changed")
    _rng_is_unseen(c, state, render_rows)
    if c.spec.information == "imperfect" and g.num_players > 1 and len(resample_seeds) > 0:
        _expect(
            changed,
            f"{c.name}: resample_hidden changed nothing but the RNG in any state: an imperfect-information game "
            "must resample what each seat cannot see (other hands, draw order, face-down pieces)",
        )
    if c.spec.simultaneous:
        _check_hidden_commits(c, state, commit_rows)


def _rng_is_unseen(c: _Ctx, state: BatchState, render_rows: int) -> None:
    """No seat observes the RNG (the next chance events): scrambling every row's ``rng`` changes
    no seat's observation nor picture (``render(viewer=seat)``)."""
    g = c.game
    twin = state.clone()
    twin.rng[:, 0] ^= np.uint64(0xDEADBEEF)
    twin.rng[:, -1] += np.uint64(17)
    for seat in range(g.num_players):
        rows = np.flatnonzero((g.observe(twin, seat) != g.observe(state, seat)).any(1))
        _expect(rows.size == 0, f"{c.name} {c.config}: seat {seat} observes the RNG (rows {rows[:10].tolist()})")
        for r in range(min(render_rows, state.batch_size)):
            _expect(
                g.render(twin, r, viewer=seat) == g.render(state, r, viewer=seat),
                f"{c.name} {c.config}: render(viewer={seat}) of row {r} shows the RNG",
            )


def _check_hidden_commits(c: _Ctx, state: BatchState, max_rows: int) -> None:
    """Simultaneous games: the current mover's commit is invisible to every other seat until the tick resolves."""
    g = c.game
    movers = g.movers(state)
    cp = state.current_player.astype(np.int64)
    rows = [r for r in range(state.batch_size) if cp[r] >= 0 and movers[r, cp[r]] and movers[r].sum() >= 2]
    _expect(rows, f"{c.name}: random play found no tick with a later mover")
    for r in rows[:max_rows]:
        mover = int(cp[r])
        outs = [(int(a), _step_one(g, state, r, int(a))) for a in np.flatnonzero(state.legal_action_mask[r])]
        a0, first = outs[0]
        for a, s in outs[1:]:
            where = f"{c.name} {c.config} row {r}: seat {mover} commits {a} instead of {a0}"
            _expect(s.current_player[0] == first.current_player[0], f"{where}: who commits next changed")
            nxt = int(first.current_player[0])
            if nxt >= 0 and nxt != mover:
                _expect(
                    np.array_equal(s.legal_action_mask, first.legal_action_mask),
                    f"{where}: the next mover's (seat {nxt}) legal actions changed",
                )
            for q in range(g.num_players):
                if q == mover:
                    continue
                _expect(
                    np.array_equal(g.observe(s, q), g.observe(first, q)), f"{where}: seat {q}'s observation changed"
                )
                _expect(
                    g.render(s, 0, viewer=q) == g.render(first, 0, viewer=q), f"{where}: seat {q}'s picture changed"
                )
            _expect(g.render(s, 0) == g.render(first, 0), f"{where}: the public picture changed")


# ============================================================================ random-play fuzz
def _corruption_flagged(g: Game, state: BatchState, trials: int, seed: int) -> tuple[int, dict[str, int]]:
    """Corrupt one entry of one game field of one running row per trial; count the trials
    ``state_violations`` flags (total and per field)."""
    fields = [f for f in _game_fields(state) if getattr(state, f).dtype.kind in "biuf" and getattr(state, f).size]
    running = np.flatnonzero(~_done(state))
    per_field = dict.fromkeys(fields, 0)
    if not fields or running.size == 0:
        return -1, per_field
    rng = np.random.default_rng(seed)
    flagged = 0
    for k in range(trials):
        f = fields[k % len(fields)]
        bad = state.clone()
        r = int(rng.choice(running))
        row = getattr(bad, f)[r]
        flat = row.reshape(-1)
        j = int(rng.integers(flat.size)) if flat.size else 0
        if row.ndim == 0:
            arr = getattr(bad, f)
            arr[r] = _nudge(arr[r], k)
        else:
            flat[j] = _nudge(flat[j], k)
            getattr(bad, f)[r] = flat.reshape(row.shape)
        found = g.state_violations(bad)
        if found:
            _violations_name_the_row(found, r, f"{g!r}: state_violations of a copy with {f!r} of row {r} changed")
            flagged += 1
            per_field[f] += 1
    return flagged, per_field


def _violations_name_the_row(found: Any, row: int, where: str) -> None:
    """``found`` is a list of ``(field, row, why)`` triples that all name ``row`` (rows are independent)."""
    _expect(isinstance(found, list), f"{where}: state_violations returned {type(found).__name__}, not a list")
    for v in found:
        _expect(
            isinstance(v, tuple)
            and len(v) == 3
            and isinstance(v[0], str)
            and isinstance(v[1], int)
            and not isinstance(v[1], bool)
            and isinstance(v[2], str),
            f"{where}: {v!r} is no (field, row, why) triple of str, int, str",
        )
    rows = sorted({v[1] for v in found})
    _expect(rows == [row], f"{where}: violations reported in rows {rows}, not in row {row} alone: {found[:5]}")


def _garbage_is_refused(g: Game, state: BatchState, seed: int, where: str) -> None:
    """Garbage values (the layout intact) in any one field give ``state_violations`` a list of
    ``(field, row, why)`` triples or an exception (which :meth:`Game.validate_state` turns into a
    refusal), never another kind of answer; garbage in every field at once is never a valid state."""
    rng = np.random.default_rng(seed)
    everything = state.clone()

    def laws(s: BatchState) -> list[Any] | None:
        try:
            found = g.state_violations(s)
        except Exception:  # an unreadable law: validate_state refuses the state
            return None
        _expect(isinstance(found, list), f"{where}: state_violations gave {type(found).__name__}, not a list")
        for v in found:
            _expect(
                isinstance(v, tuple) and len(v) == 3 and isinstance(v[0], str) and isinstance(v[2], str),
                f"{where}: {v!r} is no (field, row, why) triple",
            )
            _expect(isinstance(v[1], int) and not isinstance(v[1], bool), f"{where}: {v!r}: the row is no int")
        return found

    for name in type(state).field_names():
        for k in range(2):
            bad = state.clone()
            for arr in (getattr(bad, name), getattr(everything, name)) if k == 0 else (getattr(bad, name),):
                if arr.dtype == np.bool_:
                    arr[...] = rng.random(arr.shape) < 0.5
                elif arr.dtype.kind in "iu":
                    info = np.iinfo(arr.dtype)
                    arr[...] = rng.integers(info.min, info.max, size=arr.shape, endpoint=True, dtype=arr.dtype)
                elif arr.dtype.kind == "f":
                    arr[...] = rng.normal(size=arr.shape) * 1e30
                    if arr.size:
                        arr.flat[0] = np.nan
            laws(bad)
    _expect(laws(everything) != [], f"{where}: garbage in every field at once passes state_violations")


def _nudge(v: Any, k: int) -> Any:
    """``v`` changed a little: a bool flipped, an integer moved by one (within its dtype), a float by one."""
    v = np.asarray(v)
    if v.dtype.kind == "b":
        return ~v
    if v.dtype.kind in "iu":
        info = np.iinfo(v.dtype)
        step = 1 if (k % 2 == 0 and v < info.max) or v <= info.min else -1
        return (v.astype(np.int64) + step).astype(v.dtype)
    return v + 1.0


def _info_layout(info: Any, where: str) -> dict[str, Any]:
    """``key -> (shape, dtype kind)`` (nested for dicts) of an ``episode_info``; fails on a non-numeric value.

    Infos must be numeric and fixed-shape (RL libraries stack them into arrays): ``bool`` /
    ``int`` / ``float`` / numpy scalars, numpy arrays of bool or numbers, and dicts of those;
    ``end_reason`` an int code and ``winners`` a ``(P,) bool`` array.
    """
    _expect(isinstance(info, Mapping), f"{where}: not a dict but {type(info).__name__}")
    out: dict[str, Any] = {}
    for key, value in info.items():
        if isinstance(value, Mapping):
            out[key] = _info_layout(value, f"{where}[{key!r}]")
        elif isinstance(value, (bool, int, float, np.bool_, np.number)):
            out[key] = ((), np.asarray(value).dtype.kind)
        elif isinstance(value, np.ndarray) and value.dtype.kind in "biuf":
            out[key] = (value.shape, value.dtype.kind)
        else:
            _fail(
                f"{where}: {key!r} is {type(value).__name__} {value!r}: infos hold numbers, bools and numeric "
                "arrays of a fixed shape only (a string or a list of varying length breaks RL libraries' buffers)"
            )
    return out


def _check_info_layout(info: Any, layout: dict[str, Any], where: str) -> None:
    got = _info_layout(info, where)
    _expect(got == layout, f"{where}: keys, shapes or dtypes {got} differ from a fresh game's {layout}")
    if "end_reason" in got or "winners" in got:
        _expect(got.get("end_reason") == ((), "i"), f"{where}: end_reason must be an int code")


def check_random_play_fuzz(
    game: str | Game,
    config: Mapping[str, Any] | None = None,
    *,
    batch: int = 64,
    steps: int = 300,
    seed: int = 8,
    max_game_steps: int = MAX_GAME_STEPS,
    corruptions: int = 48,
    observe_every: int = 10,
) -> None:
    """Random legal play with the game's invariants checked after every step (see the module docs)."""
    c = _ctx(game, config)
    g = c.game
    spec = g.spec
    lo, hi = spec.reward_range
    A, P, D = g.num_actions, g.num_players, g.obs_dim
    olo, ohi = float(np.min(getattr(g, "obs_low", -np.inf))), float(np.max(getattr(g, "obs_high", np.inf)))
    next_seed = seed * 100_000
    s = g.init(next_seed + np.arange(batch))
    next_seed += batch
    pol = RowRandomPolicy(seed * 100_000 + 50_000 + np.arange(batch))
    age = np.zeros(batch, dtype=np.int64)
    ended = np.zeros(batch, dtype=bool)
    probe: BatchState | None = None
    info_layout = _info_layout(g.episode_info(s, 0), f"{c.name} {c.config}: episode_info of a fresh game")
    bad0 = g.state_violations(s)
    _expect(not bad0, f"{c.name} {c.config}: fresh games break the game's laws: {bad0[:5]}")
    for t in range(steps + max_game_steps):
        where = f"{c.name} {c.config} fuzz step {t}"
        done = _done(s)
        acts = pol(s.legal_action_mask)
        acts[done] = A + 3  # finished rows must ignore even an out-of-range action
        new = step_legal(g, s, acts, where)
        bad = g.state_violations(new)
        _expect(not bad, f"{where}: state_violations {bad[:5]}")
        _expect(
            ((new.rewards >= lo) & (new.rewards <= hi)).all(),
            f"{where}: rewards {new.rewards[~((new.rewards >= lo) & (new.rewards <= hi)).all(1)][:3].tolist()} "
            f"outside reward_range {spec.reward_range}",
        )
        held = np.flatnonzero(done)
        for r in held.tolist():
            _expect((new.rewards[r] == 0).all(), f"{where}: finished row {r} got rewards")
            for f in type(new).field_names():
                if f != "rewards" and not np.array_equal(getattr(new, f)[r], getattr(s, f)[r]):
                    _fail(f"{where}: finished row {r} changed field {f!r}")
        now = _done(new)
        live = ~now
        newly = now & ~done
        _expect(not new.truncated[~done].any(), f"{where}: the rules truncated a game (only faces truncate)")
        _expect((new.step_count[~done] == s.step_count[~done] + 1).all(), f"{where}: step_count did not advance by 1")
        _expect((new.end_reason[live] == 0).all(), f"{where}: a running game has an end_reason")
        _expect(not new.winners_mask[live].any(), f"{where}: a running game has winners")
        codes = new.end_reason[newly].astype(np.int64)
        _expect(
            ((codes >= 1) & (codes < len(spec.end_reasons))).all(),
            f"{where}: ended games got end_reason codes {codes.tolist()} (valid: 1..{len(spec.end_reasons) - 1})",
        )
        _expect((new.current_player[now] == -1).all(), f"{where}: a finished game has a current player")
        _expect(not new.legal_action_mask[now].any(), f"{where}: a finished game has legal actions")
        _expect(np.array_equal(g.winners(new), new.winners_mask), f"{where}: winners() != winners_mask")
        names = g.end_reason_names(new)
        _expect(len(names) == batch, f"{where}: end_reason_names gave {len(names)} names for {batch} rows")
        for r in range(batch):
            ok = names[r] == spec.end_reasons[0] if live[r] else names[r] in spec.end_reasons[1:]
            _expect(ok, f"{where}: row {r} ({'running' if live[r] else 'over'}) has end reason name {names[r]!r}")
        for r in np.flatnonzero(newly).tolist():
            info = g.episode_info(new, r)
            _check_info_layout(info, info_layout, f"{where}: episode_info of ended row {r}")
            _expect(info["end_reason"] == int(new.end_reason[r]), f"{where}: info end_reason != state.end_reason")
            _expect(np.array_equal(info["winners"], new.winners_mask[r]), f"{where}: info winners != winners_mask")
        if t % observe_every == 0 and live.any():
            r = int(np.flatnonzero(live)[0])
            _check_info_layout(g.episode_info(new, r), info_layout, f"{where}: episode_info of running row {r}")
        seats = [np.maximum(new.current_player, 0).astype(np.int64)]
        if t % observe_every == 0:
            seats += [np.full(batch, p, dtype=np.int64) for p in range(P)]
        for seat in seats:
            obs = g.observe(new, seat)
            _expect(
                obs.shape == (batch, D) and obs.dtype == np.float32, f"{where}: observation {obs.shape} {obs.dtype}"
            )
            _expect(np.isfinite(obs).all(), f"{where}: a non-finite observation")
            _expect(
                ((obs >= olo) & (obs <= ohi)).all(),
                f"{where}: observation values {obs[(obs < olo) | (obs > ohi)][:5].tolist()} outside [{olo}, {ohi}]",
            )
        age[~done] += 1
        long = np.flatnonzero(age > max_game_steps)
        _expect(long.size == 0, f"{where}: games in rows {long[:5].tolist()} ran {max_game_steps} steps without ending")
        ended |= newly
        if held.size:  # held for one step: restart them
            new.put(held, g.init(next_seed + np.arange(held.size)))
            next_seed += held.size
            age[held] = 0
        if probe is None and t >= 8 and (~_done(new)).sum() >= batch // 2:
            probe = new.clone()
        s = new
        if t + 1 >= steps and ended.all():
            break
    if probe is None:
        probe = s
    flagged, per_field = _corruption_flagged(g, probe, corruptions, seed)
    _garbage_is_refused(g, probe, seed, f"{c.name} {c.config}")
    if flagged == 0:
        _fail(
            f"{c.name} {c.config}: state_violations flagged none of {corruptions} corrupted copies of running states "
            f"(one entry of {sorted(per_field)} changed by one each): it checks none of the game's own laws "
            "(conservation of its pieces, value ranges, a phase that exists)"
        )


# ============================================================================ masks
def check_legal_masks(
    game: str | Game, config: Mapping[str, Any] | None = None, *, seed: int = 10, rows: int = 4, snapshots: int = 4
) -> None:
    """Every masked-legal action steps; every masked-illegal one raises ``ValueError``; finished rows have none."""
    c = _ctx(game, config)
    g = c.game
    pool = state_pool(g, seed, rows=rows, snapshots=snapshots)
    done = _done(pool)
    _expect(not pool.legal_action_mask[done].any(), f"{c.name} {c.config}: a finished row has legal actions")
    for r in np.flatnonzero(~done).tolist():
        one = pool.take([r])
        before = one.clone()
        _expect(one.legal_action_mask[0].any(), f"{c.name} {c.config}: running row {r} has no legal action")
        for a in range(g.num_actions):
            where = f"{c.name} {c.config} pool row {r} (step {int(one.step_count[0])}), action {a}"
            if one.legal_action_mask[0, a]:
                try:
                    out = g.step(one, np.array([a]))
                except Exception as e:
                    raise AssertionError(f"{where}: masked legal, but step raised {type(e).__name__}: {e}") from e
                bad = g.state_violations(out)
                _expect(not bad, f"{where}: masked legal, but it leads to a state breaking the game's laws: {bad[:3]}")
            else:
                _raises(ValueError, lambda a=a, s=one: g.step(s, np.array([a])), f"{where}: masked illegal")
            assert_states_equal(one, before, f"{where}: stepping changed the given state")


# ============================================================================ pictures
def check_pictures(
    game: str | Game,
    config: Mapping[str, Any] | None = None,
    *,
    seed: int = 3,
    max_frames: int = 40,
    resample_seeds: Sequence[int] = (0,),
    rows: int = 2,
) -> None:
    """``render_mode="rgb_array"`` works on the AEC and gymnasium faces, and pictures do not peek (module docs)."""
    import xml.etree.ElementTree as ET

    from monkey_envs.core.pictures import has_picture

    c = _ctx(game, config)
    g = c.game
    _expect(
        has_picture(g),
        f"{c.name}: draws no picture -- give its View a picture hook (returning a monkey_envs.core.pictures.Picture); "
        "every registered game renders rgb_array",
    )
    env = c.aec()[0](**c.config, render_mode="rgb_array")
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    frames = []
    for agent in env.agent_iter(max_frames):
        frame = env.render()
        _expect(
            isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8,
            f"{c.name} {c.config}: AEC render() in rgb_array mode gave {type(frame).__name__} "
            f"{getattr(frame, 'shape', '')} {getattr(frame, 'dtype', '')}, not an (H, W, 3) uint8 image",
        )
        _expect(not frames or frame.shape == frames[0].shape, f"{c.name} {c.config}: the picture changed size mid-game")
        frames.append(frame)
        _, _, term, trunc, _ = env.last()
        mask = env.observe(agent)["action_mask"]
        env.step(None if term or trunc else int(rng.choice(np.flatnonzero(mask))))
    _expect(
        len(frames) < 2 or any(not np.array_equal(f, frames[0]) for f in frames[1:]),
        f"{c.name} {c.config}: every picture of a game is the same",
    )
    env.close()
    import gymnasium

    genv = gymnasium.make(c.gym_id, render_mode="rgb_array", **c.config)
    genv.reset(seed=seed)
    frame = genv.render()
    _expect(
        isinstance(frame, np.ndarray) and frame.ndim == 3 and frame.shape[2] == 3 and frame.dtype == np.uint8,
        f"{c.name} {c.config}: gymnasium render() in rgb_array mode is no (H, W, 3) uint8 image",
    )
    genv.close()
    pool = state_pool(g, seed, rows=rows, snapshots=3)
    for seat in range(g.num_players):
        base = [g.picture(pool, r, seat).to_array() for r in range(pool.batch_size)]
        for k in resample_seeds:
            twin = g.resample_hidden(pool, seat, k)
            for r in range(pool.batch_size if twin is not None else 0):
                same = np.array_equal(g.picture(twin, r, seat).to_array(), base[r])
                _expect(same, f"{c.name} {c.config}: seat {seat}'s picture of row {r} changed after resample seed {k}")
    try:
        ET.fromstring(g.picture(pool, 0, None).to_svg())
    except ET.ParseError as e:
        raise AssertionError(f"{c.name} {c.config}: the SVG export is no XML: {e}") from e


# ============================================================================ playthroughs
def default_playthrough_dir() -> Path:
    """``tests/playthroughs`` of the source checkout this package lives in."""
    return Path(__file__).resolve().parents[2] / "tests" / "playthroughs"


def check_playthroughs(
    game: str | Game, config: Mapping[str, Any] | None = None, *, directory: str | Path | None = None
) -> None:
    """A recorded playthrough of the game exists (a ``*.txt`` whose header says ``game: <name>``)."""
    if importlib.util.find_spec("monkey_envs.core.playthrough") is None:
        raise CheckSkipped("monkey_envs.core.playthrough is not there yet: no playthroughs to look for")
    from monkey_envs.core.playthrough import read_header

    name = game.spec.name if isinstance(game, Game) else game
    d = Path(directory) if directory is not None else default_playthrough_dir()
    found = []
    for path in sorted(d.glob("*.txt")):
        try:
            header = read_header(path.read_text(encoding="utf-8"), str(path))
        except (ValueError, OSError):
            continue
        if header["game"] == name:
            found.append(path.name)
    _expect(
        found,
        f"no recorded playthrough of {name!r} in {d}: record one with `python -m monkey_envs.core.playthrough "
        f"record --game {name} --config '{{}}' --seeds 0 1 2 -o {d}/{name}__default.txt`",
    )


# ============================================================================ registry of checks
#: Check name -> function ``check(game, config, **options)``.
CHECKS: dict[str, Callable[..., None]] = {
    "pettingzoo_api": check_pettingzoo_api,
    "pettingzoo_seed": check_pettingzoo_seed,
    "pettingzoo_render": check_pettingzoo_render,
    "pettingzoo_parallel": check_pettingzoo_parallel,
    "gymnasium_check_env": check_gymnasium_check_env,
    "sb3_check_env": check_sb3_check_env,
    "vector_equivalence": check_vector_equivalence,
    "vector_next_step": check_vector_next_step,
    "batch_invariance": check_batch_invariance,
    "round_trips": check_round_trips,
    "in_place": check_in_place,
    "strided_state": check_strided_state,
    "bad_input": check_bad_input,
    "no_peeking": check_no_peeking,
    "random_play_fuzz": check_random_play_fuzz,
    "legal_masks": check_legal_masks,
    "pictures": check_pictures,
    "playthroughs": check_playthroughs,
}
#: Checks that run once per game with default arguments (not per configuration).
PER_GAME_CHECKS = frozenset(
    {"gymnasium_check_env", "sb3_check_env", "vector_next_step", "playthroughs", "strided_state"}
)
#: Checks only simultaneous games get.
SIMULTANEOUS_CHECKS = frozenset({"pettingzoo_parallel"})


def package_games() -> list[str]:
    """The games shipped in the package (rules in its own modules: ``registry.shipped_games``), not
    games that tests or plug-ins register from their own modules."""
    from monkey_envs.core.registry import shipped_games

    return shipped_games()


def _config_id(config: Mapping[str, Any]) -> str:
    return "-".join(f"{k}={v}" for k, v in config.items()) or "default"


def conformance_params(
    games: Sequence[str] | None = None, checks: Sequence[str] | None = None, exclude: Sequence[str] = ()
) -> list[Any]:
    """pytest params ``(game, config, check)``: each game x each of its ``test_configs`` x each check.

    Args:
        games: registered game names; ``None`` = :func:`package_games` (games registered by tests
            or plug-ins are only included when named).
        checks: names from :data:`CHECKS` (default: all); :data:`PER_GAME_CHECKS` get one param
            per game (config ``{}``: default arguments), :data:`SIMULTANEOUS_CHECKS` only
            simultaneous games.
        exclude: check names left out.
    """
    import pytest

    from monkey_envs.core.registry import game_class

    names = list(games) if games is not None else package_games()
    wanted = [k for k in (checks if checks is not None else CHECKS) if k not in exclude]
    unknown = [k for k in wanted if k not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; known: {sorted(CHECKS)}")
    out = []
    for name in names:
        cls = game_class(name)
        for check in wanted:
            if check in SIMULTANEOUS_CHECKS and not cls.spec.simultaneous:
                continue
            configs = [{}] if check in PER_GAME_CHECKS else [dict(cfg) for cfg in cls.test_configs]
            for cfg in configs:
                out.append(pytest.param(name, cfg, check, id=f"{name}-{_config_id(cfg)}-{check}"))
    return out


def run_check(game: str | Game, config: Mapping[str, Any] | None, check: str, **options: Any) -> None:
    """Run check ``check`` (a key of :data:`CHECKS`); a :class:`CheckSkipped` becomes ``pytest.skip``."""
    if check not in CHECKS:
        raise ValueError(f"unknown check {check!r}; known: {sorted(CHECKS)}")
    try:
        CHECKS[check](game, config, **options)
    except CheckSkipped as e:
        import pytest

        pytest.skip(str(e))


__all__ = [
    "CHECKS",
    "MAX_GAME_STEPS",
    "PER_GAME_CHECKS",
    "SIMULTANEOUS_CHECKS",
    "CheckSkipped",
    "RowRandomPolicy",
    "assert_states_equal",
    "conformance_params",
    "package_games",
    "play_random",
    "random_legal_actions",
    "run_check",
    "state_pool",
]
