"""Agents: the greedy Monkey Fun heuristic and the batched, seat-balanced evaluator."""

from __future__ import annotations

import numpy as np
import pytest

from agents import RandomAgent, make_agent
from agents.evaluate import play_games, seat_assignment, wilson_interval
from agents.heuristics.monkey_fun import GreedyMonkeyFun, hit_probability
from monkey_envs.monkey_fun import MonkeyFun
from monkey_envs.monkey_fun import data as D

CONFIGS = [
    dict(num_players=2),
    dict(num_players=2, variant="quick"),
    dict(num_players=3, board_side=2),
    dict(num_players=4),
    dict(num_players=1),
]


def greedy_choice(game: MonkeyFun, state, seed: int = 0) -> str:
    """The greedy agent's move in row 0 of ``state``, as its action name."""
    agent = make_agent("greedy", game, seed)
    obs = game.observe(state, state.current_player)
    action = int(agent.act(obs, state.legal_action_mask)[0])
    assert state.legal_action_mask[0, action]
    return game.action_name(state, 0, action)


# ---------------------------------------------------------------- legality and determinism
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_greedy_only_plays_legal_moves_in_every_variant(config):
    game = MonkeyFun(**config)
    agent = make_agent("greedy", game, seed=1)
    state = game.init(np.arange(48))
    for _ in range(200):
        live = state.current_player >= 0
        if not live.any():
            break
        obs = game.observe(state, np.maximum(state.current_player, 0))
        actions = agent.act(obs, state.legal_action_mask)
        assert actions.dtype == np.int64 and actions.shape == (48,)
        assert state.legal_action_mask[np.flatnonzero(live), actions[live]].all()
        state = game.step(state, actions)
    assert not (state.current_player >= 0).any(), "every game ends"


def test_greedy_is_deterministic_for_a_seed():
    game = MonkeyFun(num_players=3)
    a = play_games(game, ["greedy", "greedy", "random"], 30, seed=4)
    b = play_games(game, ["greedy", "greedy", "random"], 30, seed=4)
    assert [x.to_dict() for x in a.agents] == [x.to_dict() for x in b.agents]
    state = game.init(np.arange(16))
    obs = game.observe(state, state.current_player)
    acts = [GreedyMonkeyFun(game, seed=9).act(obs, state.legal_action_mask) for _ in range(2)]
    np.testing.assert_array_equal(acts[0], acts[1])


def test_greedy_rejects_bad_input():
    game = MonkeyFun(num_players=2)
    agent = GreedyMonkeyFun(game)
    state = game.init(np.arange(2))
    obs = game.observe(state, state.current_player)
    with pytest.raises(ValueError, match="obs must have shape"):
        agent.act(obs[:, :-1], state.legal_action_mask)
    with pytest.raises(ValueError, match="mask must have shape"):
        agent.act(obs, state.legal_action_mask[:1])
    with pytest.raises(ValueError, match="monkey_fun"):
        GreedyMonkeyFun(object())


# ---------------------------------------------------------------- strategy scenarios
def test_greedy_completes_a_winning_line():
    """Row 0 of side 1 is 23 1 34 29: we hold 23, 1, 34; 7+10+12 = 29 wins at once."""
    game = MonkeyFun(num_players=2)
    state = game.position(hands=[[3, 7, 10, 12], [1, 2, 3, 4]], board={23: [1, 0], 1: [1, 0], 34: [1, 0]})
    assert greedy_choice(game, state) == "play 7+10+12 = 29"


def test_greedy_blocks_an_opponents_line():
    """Seat 0 secured 23, 1 and 34; seat 1 must put a monkey on 29 (7+10+12) to stop the line."""
    game = MonkeyFun(num_players=2)
    state = game.position(
        hands=[[1, 2, 3, 4], [2, 7, 10, 12]],
        board={23: [2, 0], 1: [2, 0], 34: [2, 0]},
        owners={23: 0, 1: 0, 34: 0},
        current_player=1,
    )
    assert greedy_choice(game, state) == "play 7+10+12 = 29"


def test_greedy_prefers_winning_over_blocking():
    """Seat 0 threatens 23-1-34-29 (row 0); seat 1 holds 25, 14, 6 of column 0 and 35 completes it.

    With 6 7 10 12 seat 1 can block (7+10+12 = 29) or win (6+7+10+12 = 35): it wins.
    """
    game = MonkeyFun(num_players=2)
    position = dict(
        board={23: [2, 0], 1: [2, 0], 34: [2, 0], 25: [0, 1], 14: [0, 1], 6: [0, 1]},
        owners={23: 0, 1: 0, 34: 0},
        current_player=1,
    )
    state = game.position(hands=[[1, 2, 3, 4], [6, 7, 10, 12]], **position)
    assert greedy_choice(game, state) == "play 6+7+10+12 = 35"
    # without the winning sum (5+7+10+12 = 34 is secured by seat 0) it blocks
    state = game.position(hands=[[1, 2, 3, 4], [5, 7, 10, 12]], **position)
    assert greedy_choice(game, state) == "play 7+10+12 = 29"


def test_greedy_completes_a_square_only_in_the_quick_game():
    """2x2 block 23 1 / 25 31: holding 23, 1, 25, the field 31 wins in the quick game only."""
    board = {23: [1, 0], 1: [1, 0], 25: [1, 0], 2: [0, 1], 28: [0, 1], 36: [0, 1]}
    hands = [[4, 8, 19, 11], [1, 1, 1, 1]]
    quick = MonkeyFun(num_players=2, variant="quick")
    assert greedy_choice(quick, quick.position(hands=hands, board=board)) in {"play 4+8+19 = 31"}
    normal = MonkeyFun(num_players=2)
    assert greedy_choice(normal, normal.position(hands=hands, board=board)) != "play 4+8+19 = 31"


def test_greedy_solo_extends_an_existing_minus_tower_first():
    """Solo, hand 1 1 1 1 reaches 1-4; inner 2, 3, 4 are occupied and 2 already is a tower."""
    game = MonkeyFun(num_players=1)
    state = game.position(hands=[[1, 1, 1, 1]], board={2: [2], 3: [1], 4: [1]})
    assert greedy_choice(game, state) == "play 1+1 = 2"


# ---------------------------------------------------------------- strength
def test_greedy_beats_random_by_a_wide_margin_two_players():
    game = MonkeyFun(num_players=2)
    result = play_games(game, ["greedy", "random"], 500, seed=123)
    greedy = result.agents[0]
    assert greedy.games == 500
    assert greedy.win_rate > 0.9 and greedy.ci_low > 0.9, result.table()


def test_greedy_evaluation_matches_a_full_board_recomputation():
    """The incremental scorer equals recomputing every window of every after-move board.

    Checked on a sample of (position, placement) pairs from random play in three configs (the
    reference is slow Python).
    """
    rng = np.random.default_rng(0)
    for config in (dict(num_players=2), dict(num_players=3, variant="quick"), dict(num_players=4)):
        game = MonkeyFun(**config)
        agent = GreedyMonkeyFun(game)
        random = RandomAgent(game, 3)
        state = game.init(rng.integers(0, 10_000, 16))
        for step in range(36):
            live = np.flatnonzero(state.current_player >= 0)
            if live.size == 0:
                break
            if step % 6 == 5:
                obs = game.observe(state, np.maximum(state.current_player, 0))[live]
                v = game.obs_layout.unflatten(obs)
                af = v["action_field"] > 0.5
                rows, acts = np.nonzero(af.any(2))
                pick = rng.choice(rows.size, size=min(12, rows.size), replace=False)
                rows, fields = rows[pick], af.argmax(2)[rows[pick], acts[pick]]
                numbers = np.rint(v["field_value"] * 36).astype(np.int64)
                fast, _ = agent._scores(v, rows, fields, numbers)
                slow = reference_scores(agent, v, rows, fields, numbers)
                np.testing.assert_allclose(fast, slow, rtol=1e-6, atol=1e-3)
            obs = game.observe(state, np.maximum(state.current_player, 0))
            state = game.step(state, random.act(obs, state.legal_action_mask))


def reference_scores(agent, v, rows, fields, numbers):
    """Straightforward scorer: build each after-move board and recompute all window facts."""
    w = agent.weights
    P = agent.num_players
    counts = np.rint(v["counts"] * 4).astype(np.int64)[rows]  # (N, 36, P)
    owner = (v["owner"] > 0.5)[rows]
    n = np.arange(rows.size)
    counts[n, fields, 0] += 1
    at = counts[n, fields]
    secures = ~owner[n, fields].any(-1) & (at[:, 0] >= at[:, 1:].max(-1) + D.SECURE_MARGIN)
    owner[n[secures], fields[secures], 0] = True
    counts[n[secures], fields[secures], 1:] = 0
    out = np.zeros(rows.size)
    hit = hit_probability()
    for i in range(rows.size):
        c, o, nums = counts[i], owner[i], numbers[rows[i]]
        maj = np.zeros((36, P), bool)
        dead = np.zeros((36, P), bool)
        one = np.zeros((36, P), bool)
        for f in range(36):
            for q in range(P):
                others = max([c[f, r] for r in range(P) if r != q], default=0)
                maj[f, q] = o[f, q] or c[f, q] > others
                dead[f, q] = o[f].any() and not o[f, q]
                one[f, q] = not maj[f, q] and not dead[f, q] and c[f, q] + 1 > others
        shape, chance, material = np.zeros(P), np.zeros(P), np.zeros(P)
        win = False
        for q in range(P):
            hot_fields = set()
            for win_fields in agent.windows:
                k = maj[win_fields, q].sum()
                alive = not dead[win_fields, q].any()
                win |= q == 0 and k == 4
                if alive:
                    shape[q] += w.line_weights[k] if k < 4 else 0.0
                    missing = [f for f in win_fields if not maj[f, q]]
                    if k == 3 and one[missing[0], q]:
                        hot_fields.add(missing[0])
            chance[q] = 1.0 - np.prod([1.0 - hit[nums[f]] for f in hot_fields])
            material[q] = sum(nums[f] for f in range(36) if maj[f, q])
        danger = 1.0 - np.prod(1.0 - chance[1:])
        progress = 1.0 - v["supply"][rows[i], 0]
        out[i] = (
            w.win * win
            - w.block * danger
            + w.threat * chance[0]
            + shape[0]
            - w.opp_shape * shape[1:].max()
            + w.secure * o[:, 0].sum()
            + w.material * progress * (material[0] - material[1:].max())
        )
    return out


def test_hit_probability_is_exact_for_small_sums():
    """P(a 4-card hand holds a 1) = 1 - C(51,4)/C(55,4): only a single 1 card makes the sum 1."""
    from math import comb

    p = hit_probability()
    assert p[1] == pytest.approx(1 - comb(51, 4) / comb(55, 4))
    assert p[0] == 0.0 and p[70] > 0.0 and p[71] == 0.0 and (p <= 1.0).all()  # 19+18+17+16 = 70


# ---------------------------------------------------------------- evaluator
@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [  # Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3 (Wilson score)
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        (5, 10, 0.2366, 0.7634),
    ],
)
def test_wilson_interval_matches_published_values(successes, n, low, high):
    lo, hi = wilson_interval(successes, n)
    assert lo == pytest.approx(low, abs=5e-5) and hi == pytest.approx(high, abs=5e-5)


def test_wilson_interval_rejects_impossible_counts():
    with pytest.raises(ValueError):
        wilson_interval(11, 10)
    with pytest.raises(ValueError):
        wilson_interval(-1, 10)
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(0, 100)[0] == 0.0 and wilson_interval(100, 100)[1] == 1.0


def test_seat_assignment_rotates_every_agent_through_every_seat_on_the_same_deals():
    seeds, seat_agent = seat_assignment(12, 3, seed=5)
    for agent in range(3):
        assert [(seat_agent[:, s] == agent).sum() for s in range(3)] == [4, 4, 4]
    # each deal is played once per rotation
    assert (seeds.reshape(4, 3) == seeds.reshape(4, 3)[:, :1]).all()
    assert len(set(seeds.tolist())) == 4


def test_seat_assignment_turns_the_opponents_order_too():
    """Four players: 48 games play each of the 24 seatings twice, each deal in the four rotations
    of one order of the others; with two players it is the plain rotation (agent i in seat i + g)."""
    seeds, seat_agent = seat_assignment(48, 4, seed=1)
    rows, counts = np.unique(seat_agent, axis=0, return_counts=True)
    assert len(rows) == 24 and (counts == 2).all()
    for d in range(12):
        block = seat_agent[4 * d : 4 * d + 4]
        assert len(set(seeds[4 * d : 4 * d + 4].tolist())) == 1  # one deal per block of P games
        after = {tuple(np.roll(row, -int(np.flatnonzero(row == 0)[0]))) for row in block}
        assert len(after) == 1  # the same order around the table, turned
        assert sorted((block == 0).argmax(1).tolist()) == [0, 1, 2, 3]  # agent 0 in every seat
    followers = {tuple(np.roll(r, -int(np.flatnonzero(r == 0)[0]))[1:]) for r in seat_agent[::4]}
    assert len(followers) == 6  # every order of agents 1..3 after agent 0
    g = np.arange(10)
    two = seat_assignment(10, 2, seed=4)[1]
    assert (two == (np.arange(2)[None, :] - g[:, None]) % 2).all()
    plain = seat_assignment(12, 4, seed=1, turn_order=False)
    assert (plain[1] == (np.arange(4)[None, :] - np.arange(12)[:, None]) % 4).all()
    assert (plain[0] == seeds[:12]).all()  # the same deals


def test_one_agent_in_every_other_seat_plays_the_same_games_whatever_the_order():
    """Turning the order of copies of one agent object changes no game: the first agent's
    outcomes equal those of the plain rotation, game for game."""
    from agents.evaluate import agent_results, build_agents, play_lineups
    from monkey_envs.games import make_game

    game = make_game("funky_monkey", num_players=4)
    me, other = build_agents(game, ["random", "honest"], 3)
    seeds, turned = seat_assignment(48, 4, seed=2)
    plain = seat_assignment(48, 4, seed=2, turn_order=False)[1]
    assert (turned != plain).any()
    a = play_lineups(game, [me, other, other, other], seeds, turned)
    me2, other2 = build_agents(game, ["random", "honest"], 3)
    b = play_lineups(game, [me2, other2, other2, other2], seeds, plain)
    mine = lambda rec: rec.winners[rec.seat_agent == 0]  # noqa: E731 -- agent 0's seat, game by game
    np.testing.assert_array_equal(mine(a), mine(b))
    np.testing.assert_array_equal(a.lengths, b.lengths)
    assert agent_results(a, ["me", "o1", "o2", "o3"])[0].wins == agent_results(b, ["me", "o1", "o2", "o3"])[0].wins


def test_play_games_counts_add_up_and_seats_balance():
    game = MonkeyFun(num_players=2)
    result = play_games(game, ["random", "random"], 200, seed=2)
    a, b = result.agents
    assert a.wins + a.draws + a.losses == 200 == b.wins + b.draws + b.losses
    assert a.wins == b.losses and a.draws == b.draws
    assert a.name == "random#0" and b.name == "random#1"
    assert sum(a.wins_by_seat) == a.wins
    assert sum(result.end_reasons.values()) == 200
    assert result.to_dict()["agents"][0]["games"] == 200
    assert "win rate" in result.table()


def test_play_games_rejects_bad_arguments():
    game = MonkeyFun(num_players=2)
    with pytest.raises(ValueError, match="one agent per seat"):
        play_games(game, ["random"], 10)
    with pytest.raises(ValueError, match="num_games"):
        play_games(game, ["random", "random"], 0)
    with pytest.raises(ValueError, match="unknown agent"):
        play_games(game, ["random", "nobody"], 10)
