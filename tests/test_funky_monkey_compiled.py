"""Funky Monkey's compiled core (``funky_monkey/kernels.py``) against its numpy reference.

The game steps, observes, deals and writes masks with numba kernels, its one rules
implementation; the numpy rules they were compiled from are the test oracle
(``tests/funky_monkey_numpy_reference.py``: ``NumpyFunkyMonkey._step_reference`` / ``_step``,
``NumpySetup.deal``, ``NumpyObserver.observe``; masks by ``MaskTable.refresh``, which the package
keeps for built positions and the laws). Rule checked here: both give
bit-identical games -- every state array after every step (decisions, chance draws, rewards,
analytics), every seat's float32 observation and the legal masks -- over random batches of every
player count and flag, with finished rows left in the batch, and the same refusals of bad actions.
Also (issue 23 item 2, cold start): a new game and its observation compile each rule body once,
in the kernel that runs it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from funky_monkey_numpy_reference import NumpyFunkyMonkey

from monkey_envs.core.testing import random_legal_actions
from monkey_envs.funky_monkey import FunkyMonkey, FunkyMonkeyState
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.state import END_REASONS, NUM_PHASES, PH_OVER

CONFIGS = [
    {"num_players": 2},
    {"num_players": 3, "tile_visibility": "every_second"},
    {"num_players": 4},
    {"num_players": 5, "crown_bonus": True},
    {"num_players": 6},
    {"num_players": 7, "tile_visibility": "all", "crown_bonus": True},
]


def _ids(cfg: dict) -> str:
    return "-".join(f"{k}={v}" for k, v in cfg.items())


_ORACLES: dict[tuple, NumpyFunkyMonkey] = {}


def oracle(game: FunkyMonkey) -> NumpyFunkyMonkey:
    """The numpy-rules twin of ``game`` (same configuration), built once per configuration."""
    key = tuple(sorted(game.config.items()))
    if key not in _ORACLES:
        _ORACLES[key] = NumpyFunkyMonkey(**game.config)
    return _ORACLES[key]


def reference_init(game: FunkyMonkey, seeds: np.ndarray) -> FunkyMonkeyState:
    """New games by the numpy setup and masks (what ``FunkyMonkey._init`` computed before the kernels)."""
    return oracle(game).reference_init(seeds)


def step_reference(game: FunkyMonkey, s: FunkyMonkeyState, actions: np.ndarray) -> bool:
    """``s`` stepped in place by the numpy rules, validated as the kernel validates (False: refused)."""
    return oracle(game)._step_reference(s, actions)


def assert_same_state(a: FunkyMonkeyState, b: FunkyMonkeyState, where: str) -> None:
    assert list(a.arrays()) == list(b.arrays())
    for name, x in a.arrays().items():
        y = getattr(b, name)
        assert x.dtype == y.dtype and x.shape == y.shape, f"{where}: {name} {x.dtype}{x.shape} vs {y.dtype}{y.shape}"
        if not np.array_equal(x, y):
            rows = np.flatnonzero((x != y).reshape(x.shape[0], -1).any(1))
            pytest.fail(f"{where}: field {name!r} differs in rows {rows[:10].tolist()}")


def assert_same_observations(game: FunkyMonkey, s: FunkyMonkeyState, where: str) -> None:
    for seat in range(game.num_players):
        got = game.observe(s, seat)
        want = oracle(game).reference_observe(s, np.full(s.batch_size, seat, np.int64))
        assert got.dtype == want.dtype == np.float32
        if not np.array_equal(got, want):
            rows, cols = np.nonzero(got != want)
            pytest.fail(
                f"{where}: seat {seat} observation differs at rows {rows[:5].tolist()} cols {cols[:5].tolist()}"
            )


@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_compiled_deal_is_the_numpy_setup(cfg: dict) -> None:
    """Rule: the compiled deal draws setup's chance as ``Setup.deal`` (tiles, cards, chips, spaces) and writes its masks."""
    game = FunkyMonkey(**cfg)
    seeds = np.array([0, 1, 2, 7, 123456789, 2**40 + 3, 2**62])
    assert_same_state(game.init(seeds), reference_init(game, seeds), "init")
    # batch invariance: a row of a batch is the game of its seed alone
    single = game.init(seeds[4])
    assert_same_state(single, game.init(seeds).take([4]), "single row")


@pytest.mark.parametrize("cfg", CONFIGS, ids=_ids)
def test_compiled_step_and_observation_match_the_numpy_rules(cfg: dict) -> None:
    """Rule: every step of random play gives the same state, rewards and observations as the numpy rules.

    Finished rows stay in the batch (they ignore their actions), so each step mixes running and
    ended games; the run must reach every decision phase and end reason it can in that setting.
    """
    game = FunkyMonkey(**cfg)
    B = 96
    rng = np.random.default_rng(len(_ids(cfg)))
    seeds = rng.integers(0, 2**31, size=B)
    s = game.init(seeds)
    ref = reference_init(game, seeds)
    assert_same_state(s, ref, "init")
    phases_seen = np.zeros(NUM_PHASES, bool)
    for t in range(2000):
        if t % 3 == 0:
            assert_same_observations(game, s, f"step {t}")
        phases_seen[s.phase[s.phase >= 0]] = True
        acts = random_legal_actions(s.legal_action_mask, rng)
        acts[s.terminated] = rng.integers(-5, 100, size=int(s.terminated.sum()))  # ignored in ended rows
        new = game.step(s, acts)
        want = ref.clone()
        assert step_reference(game, want, acts)
        assert_same_state(new, want, f"step {t}")
        s, ref = new, want
        if s.terminated.all():
            break
    assert s.terminated.all(), "every game ends"
    assert_same_observations(game, s, "end")
    assert (s.phase == PH_OVER).all()
    # the run exercised the rules: every decision phase and the usual end reasons occurred
    assert phases_seen.all(), f"phases never reached: {np.flatnonzero(~phases_seen).tolist()}"
    reasons = {END_REASONS[r] for r in s.end_reason.tolist()}
    assert {"tiger", "last_monkey"} <= reasons or "quitting_time" in reasons, reasons


def test_long_random_run_of_every_player_count_matches() -> None:
    """Rule: as above over many more games (new games dealt into finished rows), every player count."""
    for P in range(D.MIN_PLAYERS, D.MAX_PLAYERS + 1):
        game = FunkyMonkey(P, crown_bonus=P % 2 == 1)
        B = 64
        rng = np.random.default_rng(100 + P)
        s = game.init(np.arange(B))
        ref = reference_init(game, np.arange(B))
        next_seed = B
        ended = np.zeros(len(END_REASONS), np.int64)
        for t in range(1500):
            acts = random_legal_actions(s.legal_action_mask, rng)
            s = game.step(s, acts)
            assert step_reference(game, ref, acts)
            done = np.flatnonzero(s.terminated)
            if t % 50 == 0 or done.size:
                assert_same_state(s, ref, f"{P}p step {t}")
            if done.size:
                np.add.at(ended, s.end_reason[done].astype(np.int64), 1)
                seeds = next_seed + np.arange(done.size)
                next_seed += done.size
                s.put(done, game.init(seeds))
                ref.put(done, reference_init(game, seeds))
                assert_same_observations(game, s, f"{P}p step {t} after resets")
        assert ended[1:].sum() > 100, f"{P}p: only {ended[1:].sum()} games ended"


@pytest.mark.parametrize("cfg", CONFIGS[:3], ids=_ids)
def test_compiled_step_refuses_what_the_rules_refuse_and_changes_nothing(cfg: dict) -> None:
    """Rule: an out-of-range or illegal action of a running row is a ValueError naming it; nothing changes."""
    game = FunkyMonkey(**cfg)
    s = game.init(np.arange(8))
    before = s.clone()
    for bad_action, row in ((game.num_actions, 3), (-1, 0)):
        acts = np.array([np.flatnonzero(m)[0] for m in s.legal_action_mask])
        acts[row] = bad_action
        with pytest.raises(ValueError, match=f"rows \\[{row}\\]"):
            game.step(s, acts)
        assert not game._step_fused(s.clone(), acts)
        ref = s.clone()
        assert not step_reference(game, ref, acts)
        assert_same_state(ref, before, "reference after a refusal")
    illegal = np.array([np.flatnonzero(~m)[0] for m in s.legal_action_mask])
    with pytest.raises(ValueError, match="illegal actions"):
        game.step(s, illegal)
    assert_same_state(s, before, "after refusals")


def test_compiled_step_works_in_place_and_keeps_no_hidden_entries() -> None:
    """Rule: ``_step_inplace`` (the AEC face's path) equals ``step``; a state holds its fields and nothing else."""
    game = FunkyMonkey(4)
    s = game.init(np.arange(16))
    own = s.clone()
    fields = {*type(s).field_names(), "_game"}
    rng = np.random.default_rng(5)
    for _ in range(300):
        if s.terminated.all():
            break
        acts = random_legal_actions(s.legal_action_mask, rng)
        s = game.step(s, acts)
        game._step_inplace(own, acts)
        assert set(vars(s)) == fields and set(vars(own)) == fields
        assert_same_state(own, s, "in place")


def test_positions_step_like_the_reference() -> None:
    """Rule: a built position (a near-empty draw pile, the pyramid ahead, Scales and Telescopes held) plays the same."""
    game = FunkyMonkey(3, tile_visibility="all")
    rng = np.random.default_rng(11)
    for seed in range(12):
        s = game.position(
            positions=[3, 5, 8],
            tiles={2: "pyramid", 7: "nearest_bowl", 10: "golden", 13: "pyramid", 14: "minus2"},
            hands=[[1, 2, 3, 4, "M"], [1, 1, 2, "M", 4], [3, 3, 2, 1, 4]],
            treasures=[["scales", "telescope"], ["telescope", "crown"], ["scales"]],
            draw_pile=[2],
            discard=[1, 3],
            golden=1,
            seed=seed,
        )
        ref = s.clone()
        for t in range(400):
            if s.terminated[0]:
                break
            assert_same_observations(game, s, f"seed {seed} step {t}")
            acts = random_legal_actions(s.legal_action_mask, rng)
            s = game.step(s, acts)
            assert step_reference(game, ref, acts)
            assert_same_state(s, ref, f"seed {seed} step {t}")
        assert s.terminated[0]


def test_reshuffles_of_the_draw_pile_step_like_the_reference() -> None:
    """Rule: the compiled reshuffle (the discard shuffled into a new draw pile when the pyramid
    finds the pile empty) deals the same pile and advances the row's stream as the numpy rules
    (``core.rng.shuffle_prefix``); a position with an empty pile and a pyramid next to the
    monkeys reshuffles in most games (random play rarely does)."""
    game = FunkyMonkey(3, tile_visibility="all")
    rng = np.random.default_rng(11)
    reshuffles = 0
    for seed in range(12):
        s = game.position(
            positions=[0, 1, 2],
            tiles={3: "pyramid", 13: "pyramid"},
            hands=[[1, 2, 3, 4, "M"], [1, 1, 2, "M", 4], [3, 3, 2, 1, 4]],
            treasures=[["scales", "telescope"], ["telescope", "crown"], ["scales"]],
            draw_pile=[],
            discard=[1, 3, 2, 4],
            golden=1,
            seed=seed,
        )
        ref = s.clone()
        for t in range(400):
            if s.terminated[0]:
                break
            size = int(s.draw_size[0])
            acts = random_legal_actions(s.legal_action_mask, rng)
            s = game.step(s, acts)
            assert step_reference(game, ref, acts)
            assert_same_state(s, ref, f"seed {seed} step {t}")
            assert_same_observations(game, s, f"seed {seed} step {t}")
            reshuffles += int(s.draw_size[0] > size)
        assert s.terminated[0]
    assert reshuffles >= 8  # 11 with these seeds: the case is exercised


# ------------------------------------------------------------------ the kernels' kept addresses
def test_field_layout_names_the_states_dtypes_and_dimensions() -> None:
    """Rule: the addresses are taken only of arrays of the state's layout, which ``kernels.FIELD_LAYOUT`` spells out."""
    from monkey_envs.funky_monkey import kernels as K

    for cfg in CONFIGS:
        layout = FunkyMonkey(**cfg).state_layout()
        assert list(layout) == list(K.STATE_FIELDS)
        for name, (dtype, ndim) in zip(K.STATE_FIELDS, K.FIELD_LAYOUT, strict=True):
            row_shape, want = layout[name]
            assert np.dtype(dtype) == want and ndim == len(row_shape) + 1, name


def test_kept_addresses_serve_only_the_state_and_arrays_they_were_taken_from() -> None:
    """Rule: a state steps the same whether the kernels reach it by kept addresses or by its arrays.

    The game keeps the addresses of the state it made or stepped last; replacing a field (by a
    copy, or by a non-contiguous array the addresses cannot describe) or stepping another state
    drops them, and the step then writes into the state's current arrays, never the old ones."""
    game = FunkyMonkey(3)
    rng = np.random.default_rng(9)
    ref = reference_init(game, np.arange(6))  # (the numpy deal replaces fields of its new state)
    s = game.init(np.arange(6))
    assert game._addressed.of(s) and not game._addressed.of(ref)

    def step_both(where: str) -> None:
        acts = random_legal_actions(s.legal_action_mask, rng)
        game.step_inplace(s, acts)
        assert step_reference(game, ref, acts)
        assert_same_state(s, ref, where)

    for i in range(5):
        step_both(f"kept addresses, step {i}")
    old = s.pos
    s.pos = old.copy()  # replaced: the kept address is of the old array
    assert not game._addressed.of(s)
    frozen = old.copy()
    step_both("after replacing pos")
    np.testing.assert_array_equal(old, frozen)  # the old array was not written
    assert game._addressed.of(s)  # that step took the new arrays' addresses
    s.tiles = np.asfortranarray(s.tiles)  # not C-contiguous: stepped through the arrays, no addresses kept
    step_both("non-contiguous tiles")
    assert not game._addressed.of(s)
    s.tiles = np.ascontiguousarray(s.tiles)
    other = game.init(np.arange(2))  # another state made: the kept addresses are its
    assert game._addressed.of(other) and not game._addressed.of(s)
    for i in range(3):
        step_both(f"after another state, step {i}")
    played = np.flatnonzero(s.step_count > 0)
    assert game._addressed.of(s)
    game.reset_rows(s, played[:2], np.array([50, 51]))  # by the kept addresses
    ref.put(played[:2], reference_init(game, [50, 51]))
    assert_same_state(s, ref, "reset_rows")
    clone = s.clone()  # not the kept state: reset through its arrays
    game.reset_rows(clone, np.array([0]), np.array([52]))
    ref.put(np.array([0]), reference_init(game, [52]))
    assert_same_state(clone, ref, "reset_rows of a clone")


def test_a_state_wider_than_the_kernels_scratch_is_refused() -> None:
    """Rule: the kernels' scratch lives in their stack frames, sized for ``MAX_PLAYERS`` seats and a
    ``MAX_CARDS`` draw pile; a state with a wider pile (a replaced field) is refused with a
    ``ValueError`` and left as it was, never read or written past that scratch."""
    from monkey_envs.funky_monkey import kernels as K

    game = FunkyMonkey(3)
    s = game.init(np.arange(2))
    s.draw_pile = np.full((2, K.MAX_CARDS + 1), -1, np.int8)
    before = s.clone()
    with pytest.raises(ValueError, match="MAX_CARDS"):
        game.step_inplace(s, s.legal_action_mask.argmax(1))
    assert_same_state(s, before, "refused step")


def test_a_chain_reaction_that_does_not_settle_raises_from_compiled_code() -> None:
    """Rule: the guard against a chain reaction that never settles (a rules bug) raises RuntimeError
    out of compiled code; it is compiled apart from the step (which has no runtime for the dynamic
    raise numba would make of it without its rewrites) and called from it."""
    import numba

    from monkey_envs.funky_monkey import kernels as K

    @numba.njit
    def trip() -> None:
        K._chain_did_not_settle()

    with pytest.raises(RuntimeError, match="did not settle"):
        trip()


def test_a_copied_or_pickled_game_keeps_no_addresses() -> None:
    """Rule: kept addresses never leave the process's game object (a copy or a pickle starts without)."""
    import copy
    import pickle

    game = FunkyMonkey(2)
    s = game.init([3])
    for twin in (copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert twin._addressed.kept is None and not twin._addressed.of(s)
        got = twin.step(s, s.legal_action_mask.argmax(1))
        assert_same_state(got, game.step(s, s.legal_action_mask.argmax(1)), "copied game")


_COMPILED = """
import numpy as np
from numba.core.registry import CPUDispatcher
from monkey_envs.funky_monkey import FunkyMonkey, kernels as K
from monkey_envs import funky_monkey_v0
g = FunkyMonkey(3)
g.observe(g.init(np.arange(2)), 0)
env = funky_monkey_v0.raw_env(num_players=3)  # the AEC face in the same process: the same kernels
env.reset(seed=0)
env.last()
print(sorted((n, len(d.signatures)) for n, d in vars(K).items() if isinstance(d, CPUDispatcher) and d.signatures))
"""


def test_a_new_game_and_its_observation_compile_each_rule_body_once(tmp_path: Path) -> None:
    """Issue 23 item 2 (cold start): dealing and observing compile one kernel each on the state's
    addresses (``reset_rows_at``, ``observe_at``, and ``address``), each once, with one version of
    each helper they call: no second copy of a rule body for a tuple of the 48 arrays, no version
    for a literal argument, none for the AEC face's arguments (its seat arrays were read-only, a
    second numba type) in a process that also observes through the core. Measured in a fresh
    process with an empty numba cache, where nothing can be loaded instead of compiled."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "MONKEY_ENVS_QUIET_COMPILE": "1"}
    env["PYTHONPATH"] = os.pathsep.join([str(Path(D.__file__).parents[2]), env.get("PYTHONPATH", "")])
    run = subprocess.run([sys.executable, "-c", _COMPILED], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    want = [("_blank_row", 1), ("_stable_order", 1), ("address", 1), ("observe_at", 1), ("reset_rows_at", 1)]
    assert run.stdout.split("\n")[-2] == str(want), run.stdout
