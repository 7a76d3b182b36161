"""The vectorised greedy Monkey Fun agent makes exactly the decisions of a slow per-row reference.

The reference below is the strategy of :mod:`agents.heuristics.monkey_fun` written out naively --
one row, one placement at a time, every field and window recomputed in Python -- with the float
arithmetic in the same dtypes and order (float32 where the agent uses float32). Scores must agree
to the last bit, so every action agrees, ties included (lowest legal index wins).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from agents import RandomAgent
from agents.heuristics.monkey_fun import GreedyMonkeyFun, hit_probability
from monkey_envs.monkey_fun import MonkeyFun
from monkey_envs.monkey_fun import data as D
from monkey_envs.monkey_fun.rules import NUM_SUBSETS, SUBSET_BITS

CONFIGS = [
    dict(num_players=2),
    dict(num_players=2, variant="quick", board_side=2),
    dict(num_players=3, board_side=2),
    dict(num_players=4, variant="quick"),
]


def reference_field_score(agent: GreedyMonkeyFun, v: dict, b: int, f: int, hot_sizes: list | None = None) -> float:
    """Score of placing one of our monkeys on field ``f`` in row ``b`` (the after-move board);
    ``hot_sizes`` collects each seat's number of immediate-win fields after it."""
    w = agent.weights
    P = agent.num_players
    counts = np.rint(v["counts"][b] * 4).astype(np.int64)  # (36, P)
    owner = v["owner"][b] > 0.5
    numbers = np.rint(v["field_value"][b] * 36).astype(np.int64)
    log_miss = np.log(np.clip(1.0 - hit_probability(), 1e-6, 1.0)).astype(np.float32)[numbers]  # (36,)
    own_before = int(owner[:, 0].sum())
    counts[f, 0] += 1
    if P > 1 and not owner[f].any() and counts[f, 0] >= counts[f, 1:].max() + D.SECURE_MARGIN:
        owner[f, 0] = True
        counts[f, 1:] = 0
    maj = np.zeros((36, P), bool)
    dead = np.zeros((36, P), bool)
    one = np.zeros((36, P), bool)
    for g in range(36):
        for q in range(P):
            others = max([counts[g, r] for r in range(P) if r != q], default=0)
            maj[g, q] = owner[g, q] or counts[g, q] > others
            dead[g, q] = owner[g].any() and not owner[g, q]
            one[g, q] = not maj[g, q] and not dead[g, q] and counts[g, q] + 1 > others
    win = False
    shape = [0.0] * P
    chance = np.zeros(P, dtype=np.float32)
    material = [0] * P
    for q in range(P):
        hot = np.zeros(36, dtype=bool)
        for fields in agent.windows:
            k = int(maj[fields, q].sum())
            win |= q == 0 and k == 4
            if not dead[fields, q].any():
                shape[q] += (*w.line_weights, 0.0)[k]
                missing = [g for g in fields if not maj[g, q]]
                if k == 3 and one[missing[0], q]:
                    hot[missing[0]] = True
        # float32 throughout, as the agent: 1 - exp(sum of log P(miss)) over the hot fields
        chance[q] = 1.0 - np.exp(np.where(hot, log_miss, 0.0).sum())
        if hot_sizes is not None:
            hot_sizes.append(int(hot.sum()))
        material[q] = int(numbers[maj[:, q]].sum())
    danger = 1.0 - np.prod(1.0 - chance[1:]) if P > 1 else 0.0
    progress = 1.0 - v["supply"][b, 0]  # float32
    score = (
        np.float64(w.win * win)  # the agent's arrays are float64 here (a bare Python float would give float32)
        - w.block * danger
        + w.threat * chance[0]
        + shape[0]
        - w.opp_shape * (max(shape[1:]) if P > 1 else 0.0)
        + w.secure * (own_before + int(owner[f, 0] and not (v["owner"][b, f, 0] > 0.5)))
        + w.material * progress * np.float64(material[0] - (max(material[1:]) if P > 1 else 0))
    )
    return float(score)


def reference_act(agent: GreedyMonkeyFun, obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, dict]:
    """Per-row actions, and the score of every evaluated (row, field)."""
    v = agent.layout.unflatten(obs)
    w = agent.weights
    out = np.zeros(obs.shape[0], dtype=np.int64)
    field_scores = {}
    for b in range(obs.shape[0]):
        hand = [int(x) for x in np.rint(v["hand"][b] * D.MAX_CARD)]
        best, best_a = -np.inf, 0
        for a in range(mask.shape[1]):
            if not mask[b, a]:
                continue
            if a < NUM_SUBSETS:
                target = np.flatnonzero(v["action_field"][b, a] > 0.5)
                s = 0.0
                if target.size:
                    if (b, int(target[0])) not in field_scores:
                        field_scores[b, int(target[0])] = reference_field_score(agent, v, b, int(target[0]))
                    s = field_scores[b, int(target[0])]
                kept = [x for x, used in zip(hand, SUBSET_BITS[a], strict=True) if not used and x > 0]
                reach = {
                    sum(c) for r in range(1, len(kept) + 1) for c in itertools.combinations(kept, r) if sum(c) <= 36
                }
                s = np.float64(s) + (w.flex * float(len(reach)) + w.cards * np.float32(SUBSET_BITS[a].sum()))
            else:
                s = 0.0
            if s > best:
                best, best_a = s, a
        out[b] = best_a
    return out, field_scores


def positions(game: MonkeyFun, seed: int, rows: int, stride: int):
    """Observations and masks of the seat to move, every ``stride`` random moves until all games end."""
    random = RandomAgent(game, seed)
    state = game.init(np.arange(seed * 100, seed * 100 + rows))
    step = 0
    while (state.current_player >= 0).any():
        obs = game.observe(state, np.maximum(state.current_player, 0))
        if step % stride == 0:
            live = np.flatnonzero(state.current_player >= 0)
            yield obs[live], state.legal_action_mask[live]
        state = game.step(state, random.act(obs, state.legal_action_mask))
        step += 1


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_greedy_matches_the_per_row_reference_bit_for_bit(config):
    game = MonkeyFun(**config)
    agent = GreedyMonkeyFun(game)
    checked = 0
    P = config["num_players"]
    for obs, mask in positions(game, seed=len(config) + P, rows=6, stride=6 * P):
        expected, field_scores = reference_act(agent, obs, mask)
        np.testing.assert_array_equal(agent.act(obs, mask), expected)
        rows, fields = (np.array(x, dtype=np.int64) for x in zip(*field_scores, strict=True))
        numbers = np.rint(agent.layout.unflatten(obs)["field_value"] * 36).astype(np.int64)
        got, _ = agent._scores(agent.layout.unflatten(obs), rows, fields, numbers)
        np.testing.assert_array_equal(got, np.array([field_scores[k] for k in field_scores]))
        checked += obs.shape[0]
    assert checked > 15


#: The compiled scores (agents/heuristics/monkey_fun_kernels.py) apply to these; solo and one seat stay numpy.
COMPILED_CONFIGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=2, variant="quick"),
    dict(num_players=4, variant="quick", board_side=2),
]


@pytest.mark.parametrize("config", COMPILED_CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_the_compiled_scores_equal_the_numpy_scores_bit_for_bit(config):
    game = MonkeyFun(**config)
    agent = GreedyMonkeyFun(game)
    assert agent._kernel is not None
    greedy = GreedyMonkeyFun(game)
    rng = np.random.default_rng(7)
    state = game.init(np.arange(256))
    rows = 0
    while (state.current_player >= 0).any():
        obs = game.observe(state, np.maximum(state.current_player, 0))
        mask = state.legal_action_mask
        live = state.current_player >= 0
        got, want = agent.scores(obs, mask), agent.scores_numpy(obs, mask)
        legal = mask.astype(bool) & live[:, None]
        np.testing.assert_array_equal(np.where(legal, got, 0.0), np.where(legal, want, 0.0))
        rows += int(live.sum())
        # half greedy, half random moves: positions greedy reaches and others
        acts = np.where(
            rng.random(state.batch_size) < 0.5, greedy.act(obs, mask), RandomAgent(game, rows).act(obs, mask)
        )
        state = game.step(state, acts)
    assert rows > 5000


def test_the_compiled_scores_cover_three_or_more_immediate_win_fields():
    """The float32 sum over three or more hot fields follows numpy's dense (pairwise) order: positions
    where a seat has at least three immediate-win fields after a placement are scored alike."""
    game = MonkeyFun(num_players=2)
    agent = GreedyMonkeyFun(game)
    many = 0
    for obs, mask in positions(game, seed=3, rows=24, stride=1):
        v = agent.layout.unflatten(obs)
        for b in range(obs.shape[0]):
            targets = {
                int(np.flatnonzero(v["action_field"][b, a] > 0.5)[0])
                for a in range(NUM_SUBSETS)
                if mask[b, a] and (v["action_field"][b, a] > 0.5).any()
            }
            sizes: list[int] = []
            for f in targets:
                reference_field_score(agent, v, b, f, sizes)
            if max(sizes, default=0) >= 3:
                many += 1
                np.testing.assert_array_equal(
                    np.where(mask[b : b + 1], agent.scores(obs[b : b + 1], mask[b : b + 1]), 0.0),
                    np.where(mask[b : b + 1], agent.scores_numpy(obs[b : b + 1], mask[b : b + 1]), 0.0),
                )
    assert many > 0
