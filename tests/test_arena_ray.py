"""The arena's batches are seeded per batch, and ``--ray`` spreads them over Ray workers (issue 27 item 6).

A batch's agents are built from the arena seed and the batch's number alone
(:func:`agents.evaluate.batch_seed`), so a batch gives the same games wherever it runs: the
arena on Ray reports exactly what the local run reports for the same seed and batch size.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.arena import main, run_arena, schedule
from agents.evaluate import batch_seed, build_agents, play_batch_of, play_lineups, play_tournament
from agents.registry import make_agent
from monkey_envs import make_game

GAME = "monkey_fun"  # any game: random agents draw from their generators every move
AGENTS = ["random", "greedy", "random"]


def _result(r) -> dict:
    d = r.to_dict()
    for k in ("seconds", "games_per_second", "command"):
        d.pop(k)
    return d


def test_batch_zero_keeps_the_seed_and_later_batches_get_independent_seeds():
    assert batch_seed(7, 0) == 7
    later = {batch_seed(s, b) for s in range(4) for b in range(1, 50)}
    assert len(later) == 4 * 49  # no two (seed, batch) pairs share a seed
    assert batch_seed(3, 5) == batch_seed(3, 5)


def test_a_one_batch_arena_plays_the_agents_built_once_with_seed_plus_i():
    """Seeding per batch changes nothing for an arena of one batch (every table of <= 4096 games)."""
    game = make_game(GAME, num_players=2)
    sched = schedule(3, 2, 60, seed=4)
    rec = play_lineups(game, build_agents(game, AGENTS, 4), sched.seeds, sched.seat_agent)
    mine = play_tournament(game, AGENTS, 4, sched.seeds, sched.seat_agent)
    assert np.array_equal(rec.winners, mine.winners) and np.array_equal(rec.lengths, mine.lengths)


def test_each_batch_plays_alone_what_it_plays_inside_the_tournament():
    game = make_game(GAME, num_players=2)
    sched = schedule(3, 2, 60, seed=1)
    whole = play_tournament(game, AGENTS, 1, sched.seeds, sched.seat_agent, batch_size=16, record_actions=True)
    third = play_batch_of(game, AGENTS, 1, 2, sched.seeds[32:48], sched.seat_agent[32:48], record_actions=True)
    assert np.array_equal(third.winners, whole.winners[32:48])
    assert all(np.array_equal(a, b) for a, b in zip(third.actions, whole.actions[32:48], strict=True))
    # the batch's own agents, not batch 0's: a random agent seeded as in batch 0 plays other moves
    wrong = play_lineups(
        game,
        [make_agent(a, game, 1 + i) for i, a in enumerate(AGENTS)],
        sched.seeds[32:48],
        sched.seat_agent[32:48],
        record_actions=True,
    )
    assert not all(np.array_equal(a, b) for a, b in zip(wrong.actions, third.actions, strict=True))


def test_agent_objects_are_refused_on_ray_before_ray_starts():
    game = make_game(GAME, num_players=2)
    sched = schedule(2, 2, 8, seed=0)
    with pytest.raises(ValueError, match="names or factories"):
        play_tournament(
            game, [make_agent("random", game, 0), "greedy"], 0, sched.seeds, sched.seat_agent, ray_address="local"
        )
    with pytest.raises(ValueError, match="no_such_agent"):
        play_tournament(game, ["no_such_agent", "greedy"], 0, sched.seeds, sched.seat_agent, ray_address="local")


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install -e '.[clients]')")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


def test_the_arena_on_ray_reports_exactly_the_local_run(ray_local, tmp_path):
    """Four batches as Ray tasks on two workers; every number of the report and every move equal."""
    kw = {"num_games": 60, "seed": 5, "batch_size": 16, "record_games": True, "num_players": 2}
    local = run_arena(GAME, AGENTS, **kw)
    on_ray = run_arena(GAME, AGENTS, ray="local", **kw)  # Ray is up: the arena uses it and leaves it up
    assert ray_local.is_initialized()
    assert _result(on_ray) == _result(local)
    assert [r.to_json() for r in on_ray.replays] == [r.to_json() for r in local.replays]
    # and it is not the one-batch tournament: the later batches' random agents play other games
    assert _result(run_arena(GAME, AGENTS, **{**kw, "batch_size": 4096})) != _result(local)


def test_the_arena_command_takes_ray(ray_local, tmp_path, capsys):
    args = ["--game", GAME, "--players", "2", "--agents", "random", "greedy", "--games", "24", "--batch-size", "8"]
    assert main([*args, "--seed", "2", "--quiet", "--out", str(tmp_path / "local")]) == 0
    assert main([*args, "--seed", "2", "--quiet", "--ray", "--out", str(tmp_path / "ray")]) == 0
    a = json.loads((tmp_path / "local" / "arena.json").read_text())
    b = json.loads((tmp_path / "ray" / "arena.json").read_text())
    assert a["agents"] == b["agents"] and a["ratings"] == b["ratings"]
    assert "--ray" in b["command"]


@pytest.mark.parametrize("name", ["monkey_fun", "funky_monkey", "monki", "four_monkeys"])
def test_a_game_pickles_as_its_options_and_plays_the_same_games_when_rebuilt(name):
    """A Ray worker unpickles the game: it must not get the sender's (read-only) work buffers."""
    import pickle

    game = make_game(name)
    blob = pickle.dumps(game)
    assert b"numpy" not in blob  # class and options only, no array
    other = pickle.loads(blob)
    assert type(other) is type(game) and other.config == game.config
    seeds = np.arange(6)
    a, b = game.init(seeds), other.init(seeds)
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in a.legal_action_mask])
        a, b = game.step(a, actions), other.step(b, actions)
    assert np.array_equal(a.legal_action_mask, b.legal_action_mask)
    assert np.array_equal(game.observe(a, a.current_player), other.observe(b, b.current_player))


def test_a_tournament_refuses_a_seating_that_does_not_fit_its_seeds():
    game = make_game(GAME, num_players=2)
    sched = schedule(3, 2, 12, seed=0)
    with pytest.raises(ValueError, match="seat_agent must be integers of shape"):
        play_tournament(game, AGENTS, 0, sched.seeds[:4], sched.seat_agent[:6])
    with pytest.raises(ValueError, match="indices must be in"):
        play_tournament(game, AGENTS[:2], 0, sched.seeds, sched.seat_agent)
