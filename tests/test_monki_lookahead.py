"""The Monki ``lookahead`` agent: expectimax over a turn's flips from what the seat sees.

Rules checked: a second token of a fruit already face up busts (the turn's fruit is lost), so
the agent values a flip by the chance of a double drawn from the face-down tokens of the top's
colour; the last empty space of row 1 filled wins at once (by a pass or by a ruby); every choice
is legal in every layout; each row is decided alone (batch invariance). The compiled search is
cached on disk and a fresh process that loads it back decides the same (a cached recursive kernel
used to crash there).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agents.heuristics.monki import WIN_VALUE, _flip_kernel
from agents.registry import make_agent
from monkey_envs.games import make_game
from monkey_envs.monki import Monki

SEVEN = [
    "green banana",
    "green fig",
    "green pineapple",
    "green grapes",
    "blue banana",
    "blue fig",
    "blue pineapple",
]


def _choice(game: Monki, state) -> str:
    agent = make_agent("lookahead", game, 0)
    obs = game.observe(state, state.current_player.astype(np.int64))
    a = agent.act(obs, state.legal_action_mask)
    assert state.legal_action_mask[0, a[0]]
    return game.action_name(state, 0, int(a[0]))


def _one(avail_cols, d, gold, useful, fm, k, need, can_pass, per_stack):
    avail = np.zeros((1, 12), bool)
    cols = np.zeros((1, 12), np.int64)
    for s, c in avail_cols.items():
        avail[0, s] = True
        cols[0, s] = c
    return _flip_kernel(
        avail,
        cols,
        np.array([d], np.int64),
        np.array([gold], np.int64),
        np.array([useful], np.int64),
        np.array([fm], np.int64),
        np.array([k], np.int64),
        np.array([need], np.int64),
        0.0,
        np.array([can_pass]),
        per_stack,
    )[0]


def test_a_flip_that_may_double_is_worth_the_fruit_kept_only_without_a_double():
    # banana face up (kept 1 so far); the green pool holds one of each fruit: a banana doubles
    # (1/4: all is lost), any other fruit is kept (3/4: 2 fruits)
    d = [[1, 1, 1, 1], [0, 0, 0, 0]]
    useful = [[1, 1, 1, 1], [1, 1, 1, 1]]
    v = _one({3: 0}, d, [0, 0], useful, fm=0b0001, k=1, need=8, can_pass=True, per_stack=True)
    assert v[3] == pytest.approx(0.75 * 2)
    assert v[12] == pytest.approx(1.0)  # pass keeps the banana
    assert (v[[0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11]] < -1e17).all()  # stacks not in sight


def test_the_value_of_a_turn_plays_on_only_while_it_pays():
    # first flip forced (collect phase): one green stack, then nothing left to flip: the fruit drawn
    # is kept if useful (3 of the 4 fruits fill a space), a golden one (1 of 5) keeps nothing
    d = [[1, 1, 1, 1], [0, 0, 0, 0]]
    useful = [[1, 1, 1, 0], [0, 0, 0, 0]]
    v = _one({0: 0}, d, [1, 0], useful, fm=0, k=0, need=8, can_pass=False, per_stack=False)
    assert v[0] == pytest.approx(3 / 5)


def test_keeping_the_last_empty_space_of_row_one_wins():
    d = [[4, 4, 4, 4], [4, 4, 4, 4]]
    useful = [[0, 0, 0, 0], [0, 0, 0, 1]]
    v = _one({0: 0}, d, [2, 2], useful, fm=0b1000, k=1, need=1, can_pass=True, per_stack=True)
    assert v[12] == pytest.approx(1 + WIN_VALUE)
    assert v[0] < v[12]


def _pass_wins_position(g: Monki) -> object:
    """Seat 0 flipping with a seven-fruit board: collecting the flipped fruit wins at once."""
    return g.position(
        stacks={0: ["green golden fig", "blue banana", "blue grapes"]},
        boards=[SEVEN, []],
        monkis=[(0, 0), (5, 5)],
        phase="flipping",
        face_up=[0],
    )


def test_it_passes_when_the_pass_wins():
    g = Monki()
    s = _pass_wins_position(g)
    assert _choice(g, s) == "pass (collect the flipped fruit)"


def test_it_uses_the_ruby_that_completes_row_one():
    g = Monki()
    s = g.position(
        statues={0: ["blue grapes"]},
        boards=[SEVEN, []],
        monkis=[(0, 0), (5, 5)],
        phase="collect",
    )
    assert _choice(g, s) == "use the grapes ruby"


@pytest.mark.parametrize("config", Monki.test_configs, ids=lambda c: str(c) or "default")
def test_it_plays_only_legal_moves_and_decides_each_row_alone(config):
    g = Monki(**config)
    agent = make_agent("lookahead", g, 0)
    rnd = make_agent("random", g, 1)
    s = g.init(np.arange(24))
    checked = 0
    for _ in range(400):
        live = ~(s.terminated | s.truncated)
        if not live.any():
            break
        cp = np.maximum(s.current_player.astype(np.int64), 0)
        obs = g.observe(s, cp)
        a = agent.act(obs, s.legal_action_mask)
        rows = np.flatnonzero(live)
        assert s.legal_action_mask[rows, a[rows]].all()
        if checked < 12:  # each row alone gives the same choice as inside the batch
            r = int(rows[checked % rows.size])
            assert agent.act(obs[r : r + 1], s.legal_action_mask[r : r + 1])[0] == a[r]
            checked += 1
        # lookahead in even rows, random in odd rows (both seats)
        ra = rnd.act(obs, s.legal_action_mask)
        act = np.where(np.arange(s.batch_size) % 2 == 0, a, ra)
        act[~live] = 0
        s = g.step(s, act)
    assert (s.terminated | s.truncated).all()


@pytest.mark.parametrize("config", Monki.test_configs, ids=lambda c: str(c) or "default")
def test_the_legal_actions_rebuilt_from_the_observation_match_the_rules_mask(config):
    g = Monki(**config)
    agent = make_agent("lookahead", g, 0)
    rnd = make_agent("random", g, 2)
    s = g.init(np.arange(32) + 7)
    for _ in range(300):
        live = ~(s.terminated | s.truncated)
        if not live.any():
            break
        cp = np.maximum(s.current_player.astype(np.int64), 0)
        obs = g.observe(s, cp)
        rows = np.flatnonzero(live)
        rebuilt = agent.legal_from_obs(obs[rows])
        assert (rebuilt == s.legal_action_mask[rows]).all()
        a = rnd.act(obs, s.legal_action_mask)
        a[~live] = 0
        s = g.step(s, a)


def test_the_lookahead_features_carry_the_agents_choice_and_values():
    from gymnasium import spaces

    from agents.heuristics.monki_features import LookaheadFeatures
    from agents.registry import features_class

    g = Monki()
    assert features_class("lookahead", g) is LookaheadFeatures
    fe = LookaheadFeatures(spaces.Box(0.0, 1.0, (g.obs_layout.size,), np.float32), "monki")
    agent = make_agent("lookahead", g, 0)
    rnd = make_agent("random", g, 3)
    s = g.init(np.arange(16))
    for _ in range(40):
        s = g.step(s, rnd.act(g.observe(s, s.current_player.astype(np.int64)), s.legal_action_mask))
    live = ~(s.terminated | s.truncated)
    obs = g.observe(s, np.maximum(s.current_player.astype(np.int64), 0))[live]
    terms = fe.terms(obs)
    A = g.num_actions
    assert terms.shape == (obs.shape[0], 2 * A)
    choice = terms[:, A:]
    assert (choice.sum(1) == 1).all()
    assert (choice.argmax(1) == agent.act(obs, s.legal_action_mask[live])).all()
    assert (terms[:, :A] >= -0.25).all() and (terms[:, :A] <= 2.5).all()
    with pytest.raises(ValueError, match="Monki"):
        LookaheadFeatures.check_game(make_game("monkey_fun"))


def _decisions() -> dict:
    """Known decisions and the digest of the agent's scores over positions of random play (run here
    and in a fresh interpreter by the next test)."""
    import agents.heuristics.monki as lookahead_module

    g = Monki()
    s = _pass_wins_position(g)
    passes = _choice(g, s)
    d = [[1, 1, 1, 1], [0, 0, 0, 0]]
    flip = _one({3: 0}, d, [0, 0], [[1, 1, 1, 1], [1, 1, 1, 1]], fm=0b0001, k=1, need=8, can_pass=True, per_stack=True)
    agent = make_agent("lookahead", g, 0)
    rnd = make_agent("random", g, 5)
    s = g.init(np.arange(16) + 100)
    digest = hashlib.sha256()
    for _ in range(60):
        live = ~(s.terminated | s.truncated)
        obs = g.observe(s, np.maximum(s.current_player.astype(np.int64), 0))
        digest.update(np.ascontiguousarray(agent.scores(obs[live], s.legal_action_mask[live])).tobytes())
        a = np.where(np.arange(16) % 2 == 0, agent.act(obs, s.legal_action_mask), rnd.act(obs, s.legal_action_mask))
        a[~live] = 0
        s = g.step(s, a)
    st = lookahead_module._flip_kernel.stats
    return {
        "pass": passes,
        "flip": float(flip[3]).hex(),
        "digest": digest.hexdigest(),
        "hits": sum(st.cache_hits.values()),
        "misses": sum(st.cache_misses.values()),
    }


def test_a_fresh_process_loads_the_compiled_search_from_the_cache_and_decides_the_same():
    # this process compiles the kernels (or loads them) and so leaves the on-disk cache warm
    here = _decisions()
    assert here["pass"] == "pass (collect the flipped fruit)"
    assert here["flip"] == (0.75 * 2).hex()  # exactly 3/4 of 2 fruits (test above)
    root = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")]))
    code = "import json, sys; sys.path.insert(0, 'tests'); import test_monki_lookahead as t; print(json.dumps(t._decisions()))"
    # a cold cache of the game kernels compiles them first (minutes under load)
    res = subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, f"exit {res.returncode}\n{res.stdout[-3000:]}\n{res.stderr[-3000:]}"
    there = json.loads(res.stdout.strip().splitlines()[-1])
    assert there["hits"] >= 1 and there["misses"] == 0, there  # loaded from disk, not compiled again
    assert {k: there[k] for k in ("pass", "flip", "digest")} == {k: here[k] for k in ("pass", "flip", "digest")}
