"""The arena (agents/arena.py) and its engine (agents/evaluate.play_lineups): seat-balanced
line-ups, head-to-head counts, Wilson intervals, determinism, bluff analytics, the command line
and a saved MaskablePPO policy as a participant."""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from agents.arena import (
    head_to_head,
    lineups,
    parse_agent_specs,
    rating_data,
    rosters,
    run_arena,
    schedule,
)
from agents.evaluate import GameRecords, agent_results, build_agents, play_lineups, wilson_interval
from monkey_envs.games import make_game

ROOT = Path(__file__).resolve().parents[1]


def records(seat_agent, winners, drawn=None) -> GameRecords:
    """Hand-made records of finished games (for the counting functions)."""
    sa = np.asarray(seat_agent, dtype=np.int64)
    w = np.asarray(winners, dtype=bool)
    n, P = sa.shape
    d = np.asarray(drawn, dtype=bool) if drawn is not None else (w.all(1) | ~w.any(1))
    return GameRecords(
        seeds=np.arange(n),
        seat_agent=sa,
        winners=w,
        drawn=d,
        scores=None,
        returns=np.zeros((n, P)),
        lengths=np.ones(n, dtype=np.int64),
        truncated=np.zeros(n, dtype=bool),
        end_reason=np.full(n, "x"),
        stats={},
        seconds=0.0,
    )


class FirstLegal:
    """A deterministic agent: the lowest legal action."""

    name = "first"

    def act(self, obs, mask):
        return np.asarray(mask).astype(bool).argmax(1).astype(np.int64)


# ---------------------------------------------------------------- Wilson interval
@pytest.mark.parametrize(
    ("successes", "n", "low", "high"),
    [  # Wilson (1927) score interval; values as tabulated by Newcombe (1998), Table I, method 3
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 10, 0.0, 0.2775),
    ],
)
def test_wilson_interval_matches_tabulated_values(successes, n, low, high):
    lo, hi = wilson_interval(successes, n)
    assert lo == pytest.approx(low, abs=5e-5) and hi == pytest.approx(high, abs=5e-5)


@pytest.mark.parametrize(("successes", "n"), [(1, 10), (37, 50), (1999, 2000), (412, 1632)])
def test_wilson_bounds_are_where_the_score_test_statistic_equals_1_96(successes, n):
    """The Wilson interval is {p : |p_hat - p| <= z sqrt(p (1 - p) / n)}: at each bound equality holds."""
    p_hat = successes / n
    for p in wilson_interval(successes, n):
        if 0 < p < 1:
            assert abs(p_hat - p) / math.sqrt(p * (1 - p) / n) == pytest.approx(1.959963984540054, rel=1e-9)


# ---------------------------------------------------------------- line-ups and seat balance
def test_rosters_with_more_agents_than_seats_are_every_combination():
    assert rosters(5, 4) == list(itertools.combinations(range(5), 4))
    assert len(rosters(6, 3)) == math.comb(6, 3)


def test_rosters_with_fewer_agents_than_seats_give_each_agent_one_to_p_minus_one_seats():
    """Two agents in four seats: A+BBB, AA+BB, AAA+B (every composition of 4 into 2 parts)."""
    assert sorted(rosters(2, 4)) == [(0, 0, 0, 1), (0, 0, 1, 1), (0, 1, 1, 1)]
    assert sorted(rosters(3, 4)) == [(0, 0, 1, 2), (0, 1, 1, 2), (0, 1, 2, 2)]
    assert len(rosters(3, 7)) == math.comb(6, 2)


@pytest.mark.parametrize(
    ("K", "P", "seating"),
    [(2, 2, "permutations"), (5, 4, "permutations"), (5, 4, "rotations"), (2, 4, "permutations"),
     (3, 4, "rotations"), (4, 4, "permutations"), (7, 7, "rotations"), (3, 5, "permutations")],
)  # fmt: skip
def test_every_agent_sits_in_every_seat_equally_often(K, P, seating):
    table, _ = lineups(K, P, seating)
    counts = np.stack([(table == k).sum(0) for k in range(K)])  # (K, P)
    assert (counts == counts[:, :1]).all(), counts
    # agents are interchangeable: every agent has the same number of seats
    assert (counts.sum(1) == counts.sum(1)[0]).all()


@pytest.mark.parametrize(("K", "P"), [(5, 4), (6, 3), (4, 4)])
def test_every_pair_meets_equally_often_and_permutations_balance_left_neighbours(K, P):
    table, _ = lineups(K, P, "permutations")
    pairs = Counter()
    left = Counter()
    for row in table.tolist():
        pairs.update(itertools.combinations(sorted(row), 2))
        left.update((row[s], row[(s + 1) % P]) for s in range(P))  # who passes to whom
    assert len(set(pairs.values())) == 1 and len(pairs) == math.comb(K, 2)
    assert len(set(left.values())) == 1 and len(left) == K * (K - 1)


def test_schedule_plays_whole_rounds_and_shares_deals_between_rotations():
    s = schedule(5, 4, 2000, seed=3, seating="auto")
    assert s.seating == "permutations" and s.lineups.shape == (120, 4)
    assert s.seeds.size == 2040 and s.rounds == 17  # 2000 rounded up to whole rounds of 120
    for d in np.unique(s.deal)[:30]:
        rows = np.flatnonzero(s.deal == d)
        assert len(rows) == 4 and len(set(s.seeds[rows].tolist())) == 1
        # the games of one deal are the four rotations of one seating
        base = s.seat_agent[rows[0]].tolist()
        assert sorted(map(tuple, s.seat_agent[rows].tolist())) == sorted({tuple(base[r:] + base[:r]) for r in range(4)})
    assert np.unique(s.seeds).size == np.unique(s.deal).size  # distinct deals, distinct seeds


def test_schedule_falls_back_to_rotations_and_refuses_too_few_games():
    assert schedule(5, 4, 100, seating="auto").seating == "rotations"  # 120 permutations do not fit
    assert schedule(5, 4, 100, seating="auto").seeds.size == 100  # 5 rosters x 4 rotations x 5 rounds
    # 8 agents, 4 seats: one round of permutations is 1680 games, so 2000 asked would play 3360
    assert schedule(8, 4, 2000, seating="auto").seating == "rotations"
    with pytest.raises(ValueError, match="at least 20 games"):
        schedule(5, 4, 10, seating="rotations")
    with pytest.raises(ValueError, match="seating"):
        schedule(2, 2, 10, seating="random")
    with pytest.raises(ValueError, match="at least 2 agents"):
        rosters(1, 4)


# ---------------------------------------------------------------- counting
def test_head_to_head_counts_who_finished_ahead_of_whom():
    """Three 3-seat games of agents 0, 1, 2, 3:
    game 0: seats (0, 1, 2), seat 0 wins  -> 0 ahead of 1 and 2;
    game 1: seats (3, 1, 0), seat 1 wins  -> 1 ahead of 3 and 0;
    game 2: seats (2, 3, 1), shared by all -> a draw, nobody ahead."""
    rec = records([[0, 1, 2], [3, 1, 0], [2, 3, 1]], [[1, 0, 0], [0, 1, 0], [1, 1, 1]])
    together, ahead = head_to_head(rec, 4)
    assert together[0, 1] == 2 and together[1, 2] == 2 and together[0, 3] == 1 and together[2, 3] == 1
    assert ahead[0, 1] == 1 and ahead[0, 2] == 1 and ahead[1, 0] == 1 and ahead[1, 3] == 1
    assert ahead.sum() == 4 and (np.diag(together) == 0).all()
    seats, credit = rating_data(rec, 4)
    np.testing.assert_array_equal(seats, [[1, 1, 1, 0], [1, 1, 0, 1], [0, 1, 1, 1]])
    np.testing.assert_allclose(credit, [[1, 0, 0, 0], [0, 1, 0, 0], [0, 1 / 3, 1 / 3, 1 / 3]])


def test_agent_holding_several_seats_wins_when_any_of_them_wins():
    """Agent 0 holds seats 0 and 2 of a 4-seat game won by seat 2: one win of its two seats."""
    rec = records([[0, 1, 0, 1], [0, 0, 0, 1]], [[0, 0, 1, 0], [0, 0, 0, 1]])
    a, b = agent_results(rec, ["A", "B"])
    assert (a.seats, a.wins, a.losses, a.games) == (5, 1, 4, 2)
    assert (b.seats, b.wins, b.losses, b.games) == (3, 1, 2, 2)
    assert a.wins_by_seat == [0, 0, 1, 0] and a.seats_by_seat == [2, 1, 2, 0]
    together, ahead = head_to_head(rec, 2)
    assert together[0, 1] == 2 and ahead[0, 1] == 1 and ahead[1, 0] == 1


# ---------------------------------------------------------------- the engine
def test_engine_batch_equals_one_game_at_a_time_for_deterministic_agents():
    game = make_game("funky_monkey", num_players=3)
    s = schedule(3, 3, 24, seed=1)
    agents = [FirstLegal(), FirstLegal(), FirstLegal()]
    batched = play_lineups(game, agents, s.seeds, s.seat_agent)
    single = play_lineups(game, agents, s.seeds, s.seat_agent, batch_size=1)
    for field in ("winners", "drawn", "returns", "lengths", "truncated", "end_reason"):
        np.testing.assert_array_equal(getattr(batched, field), getattr(single, field), err_msg=field)
    for k in batched.stats:
        np.testing.assert_array_equal(batched.stats[k], single.stats[k])


def test_engine_cuts_games_at_max_steps_as_truncated_draws():
    game = make_game("monkey_fun", num_players=2)
    rec = play_lineups(
        game, build_agents(game, ["random", "random"]), np.arange(6), np.tile([0, 1], (6, 1)), max_steps=3
    )
    assert rec.truncated.all() and rec.drawn.all() and not rec.winners.any()
    assert (rec.end_reason == "max_steps").all() and (rec.lengths == 3).all()
    with pytest.raises(ValueError, match="seat_agent"):
        play_lineups(game, [FirstLegal()], np.arange(2), np.array([[0, 1], [0, 1]]))


# ---------------------------------------------------------------- the agent contract (issue 22, item 3)
class Junk:
    """An agent object that returns ``make(mask)`` (what a buggy agent might return)."""

    name = "junk"

    def __init__(self, make) -> None:
        self.make = make

    def act(self, obs, mask):
        return self.make(np.asarray(mask).astype(bool))


JUNK = {  # what the agent returns -> a fragment of the refusal
    "argmax + 0.75": (lambda m: m.argmax(1) + 0.75, "integer actions"),
    "legal as floats": (lambda m: m.argmax(1).astype(np.float64), "integer actions"),
    "as strings": (lambda m: m.argmax(1).astype(str), "integer actions"),
    "bools": (lambda m: np.ones(len(m), dtype=bool), "integer actions"),
    "objects": (lambda m: m.argmax(1).astype(object), "integer actions"),
    "out of range": (lambda m: np.full(len(m), m.shape[1]), "out of range"),
    "illegal": (lambda m: (~m).argmax(1), "illegal actions"),
}


@pytest.mark.parametrize("kind", list(JUNK))
def test_the_arena_and_the_driver_refuse_the_same_junk_actions_naming_the_agent(kind):
    """Issue 22 item 3: the arena silently cast an agent object's floats (``argmax + 0.75``) and
    strings to actions; the env driver refused them. One check (the core's
    ``check_agent_actions``) now serves both, so both refuse every kind of junk alike."""
    from monkey_envs.core.gym_single import GameEnv

    make, fragment = JUNK[kind]
    with pytest.raises(ValueError, match=rf"agent 'junk'.*{fragment}"):
        run_arena("monkey_fun", [Junk(make), FirstLegal()], num_games=2, seed=0, num_players=2)
    env = GameEnv("monkey_fun", opponent=Junk(make), learner_seat=1)  # the opponent moves first
    with pytest.raises(ValueError, match=rf"agent 'junk'.*{fragment}"):
        env.reset(seed=0)


def test_a_recorded_agent_is_checked_before_its_actions_are_kept():
    """Issue 22 item 3: the decision recorder cast an agent's floats to int64 silently."""
    from agents.evaluate import RecordingAgent

    game = make_game("monkey_fun", num_players=2)
    state = game.init(np.arange(3))
    rec = RecordingAgent(Junk(lambda m: m.argmax(1) + 0.75), game)
    with pytest.raises(ValueError, match=r"agent 'junk'.*integer actions"):
        rec.act(game.observe(state, state.current_player.astype(np.int64)), state.legal_action_mask)
    assert rec.actions == []


# ---------------------------------------------------------------- whole arenas
@pytest.fixture(scope="module")
def fm_arena():
    return run_arena(
        "funky_monkey", ["random", "honest", "skeptic", "track", "believer"], num_games=120, seed=5, num_players=4
    )


def test_arena_counts_add_up_and_seats_balance(fm_arena):
    r = fm_arena
    assert r.num_games == 120 and r.seating == "permutations" and len(r.lineups) == 120
    for a in r.agents:
        assert a.wins + a.draws + a.losses == a.seats == a.games == 96  # 4 of 5 agents in each game
        assert len(set(a.seats_by_seat)) == 1
    # every game is a draw (a draw for all 4 seats) or has at least one winner (ties may share a win)
    drawn_games = sum(a.draws for a in r.agents) // 4
    assert r.num_games - drawn_games <= sum(a.wins for a in r.agents) <= 2 * (r.num_games - drawn_games)
    assert (r.together == r.together.T).all() and (r.together[~np.eye(5, dtype=bool)] == 72).all()
    d = r.to_dict()
    assert d["ratings"]["names"] == r.names and len(d["head_to_head"]["ahead_rate"]) == 5


def test_arena_reports_bluff_analytics_summed_over_each_agents_seats(fm_arena):
    r = fm_arena
    assert set(r.analytics) == set(r.names) and r.analytics_title == "Bluff analytics"
    honest, skeptic = r.analytics["honest"], r.analytics["skeptic"]
    assert honest["bluff_rate"] == 0.0 and honest["totals"]["bluffs"] == 0  # honest never bluffs
    assert skeptic["bluff_rate"] > 0.95  # skeptic bluffs on (almost) every play
    for b in r.analytics.values():
        t = b["totals"]
        assert b["plays_revealed"] == t["truthful"] + t["bluffs"] > 0
        assert 0 <= t["bluffs_accepted"] <= t["bluffs"]
        assert {"truth_bonus_use", "telescope_rate", "bluffs_accepted_rate"} <= set(b)
    assert "bluff_rate" in r.table() and "## Bluff analytics" in r.markdown()


def test_bluff_totals_equal_the_game_statistics_of_the_seats_each_agent_held():
    game = make_game("funky_monkey", num_players=3)
    s = schedule(3, 3, 12, seed=2)
    agents = build_agents(game, ["random", "honest", "track"], seed=2)
    rec = play_lineups(game, agents, s.seeds, s.seat_agent)
    res = agent_results(rec, ["random", "honest", "track"])
    for k, a in enumerate(res):
        assert a.stats["bluffs"] == int(rec.stats["bluffs"][s.seat_agent == k].sum())
    assert sum(a.stats["turns_active"] for a in res) == int(rec.stats["turns_active"].sum())


def test_arena_is_deterministic_for_a_seed():
    def run(seed):
        d = run_arena("monkey_fun", ["random", "greedy", "random"], num_games=24, seed=seed, num_players=2).to_dict()
        for k in ("seconds", "games_per_second"):
            d.pop(k)
        return d

    a, b = run(4), run(4)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert json.dumps(run(5), sort_keys=True) != json.dumps(a, sort_keys=True)


def test_two_agents_in_a_four_player_game_and_the_stronger_rating():
    r = run_arena("monkey_fun", ["random", "greedy"], num_games=56, seed=0, num_players=4)
    assert r.num_games == 56 and len(r.lineups) == 14  # 1v3, 2v2, 3v1 in every distinct order
    rnd, greedy = r.agents
    assert rnd.seats == greedy.seats == 2 * 56 and rnd.games == greedy.games == 56
    assert greedy.win_rate > rnd.win_rate
    i_rnd, i_greedy = r.names.index("random"), r.names.index("greedy")
    assert r.ratings.elo_low[i_greedy] > r.ratings.elo_high[i_rnd]


def test_agent_labels_and_bad_arena_input():
    specs, labels = parse_agent_specs(["random", "random", "best=ppo:runs/a/model.zip", "ppo:runs/b/ckpt_100.zip"])
    assert specs == ["random", "random", "ppo:runs/a/model.zip", "ppo:runs/b/ckpt_100.zip"]
    assert labels == ["random#0", "random#1", "best", "ppo:b/ckpt_100"]
    with pytest.raises(ValueError, match="at least 2 agents"):
        run_arena("monkey_fun", ["random"], num_games=4, num_players=2)
    with pytest.raises(ValueError, match="unknown agent"):
        run_arena("monkey_fun", ["random", "nobody"], num_games=4, num_players=2)
    with pytest.raises(ValueError, match="plays"):
        run_arena("monkey_fun", ["random", "track"], num_games=4, num_players=2)
    with pytest.raises(ValueError, match="anchor"):
        run_arena("monkey_fun", ["random", "greedy"], num_games=4, num_players=2, anchor="x")


# ---------------------------------------------------------------- command line
def test_cli_writes_every_output_file_with_game_options(tmp_path):
    out = tmp_path / "arena"
    env = {**os.environ, "MPLBACKEND": "Agg"}
    cmd = [sys.executable, "-m", "agents.arena", "--game", "funky_monkey", "--players", "3"]
    cmd += ["--agents", "random", "honest", "t=track", "--games", "12", "--seed", "1", "--set", "tile_visibility=all"]
    cmd += ["--anchor", "random", "--out", str(out)]
    # a cold numba cache compiles the game and the heuristics first
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    for name in ("arena.json", "arena.md", "arena.png"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0, name
    assert (out / "arena.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    d = json.loads((out / "arena.json").read_text())
    assert d["game"]["tile_visibility"] == "all" and d["game"]["num_players"] == 3
    assert d["names"] == ["random", "honest", "t"] and d["num_games"] == 12
    assert d["ratings"]["anchor"] == "random" and d["ratings"]["elo"][0] == 0.0
    assert set(d["analytics"]) == {"random", "honest", "t"}
    assert "Elo 95% CI" in proc.stdout and "head to head" in proc.stdout
    assert "--set tile_visibility=all" in (out / "arena.md").read_text()

    bad = subprocess.run(
        [sys.executable, "-m", "agents.arena", "--game", "monkey_fun", "--agents", "random", "nobody", "--out", str(out)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert bad.returncode == 2 and "unknown agent 'nobody'" in bad.stderr


# ---------------------------------------------------------------- a trained policy
def test_a_saved_maskable_ppo_model_plays_in_the_arena(tmp_path):
    sb3_contrib = pytest.importorskip("sb3_contrib")
    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    venv = MonkeyVecEnv("monkey_fun", num_envs=8, opponent="random", seed=0, num_players=2)
    model = sb3_contrib.MaskablePPO(
        "MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, seed=0, policy_kwargs={"net_arch": [16]}
    )
    model.learn(128)
    from agents.policy import save_policy

    path = tmp_path / "tiny" / "model.zip"
    save_policy(model, path, venv.game)
    venv.close()
    r = run_arena("monkey_fun", ["random", f"ppo:{path}"], num_games=20, seed=0, num_players=2)
    assert r.names == ["random", "ppo:tiny"]
    ppo = r.agents[1]
    assert ppo.seats == 20 and ppo.wins + ppo.draws + ppo.losses == 20 and ppo.seats_by_seat == [10, 10]


# ---------------------------------------------------------------- the speed benchmark runs
def test_arena_speed_benchmark_prints_a_row_per_case(capsys):
    from benchmark_scripts import load_benchmark

    bench = load_benchmark("arena_speed")
    assert bench.main(["--cases", "monkey_fun_2p_random", "--games", "8", "--single-games", "4", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| monkey_fun 2p: random#0 random#1 |" in out and out.strip().endswith("x |")
