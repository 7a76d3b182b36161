"""agents.paired: a candidate and a baseline in the same seats, same opponents, same deals; the
paired difference of their wins with a deal-clustered interval (issue 25's paired comparisons)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import paired as pa
from monkey_envs.games import make_game


def test_the_same_agent_twice_plays_the_same_games_and_differs_by_exactly_zero():
    """Common random numbers: identical agents and seeds give identical games, so every d is 0."""
    game = make_game("funky_monkey", num_players=3)
    r = pa.paired_comparison(game, "track", "track", ["honest", "skeptic"], num_games=24, seed=3)
    assert r["games"] == 24 and r["seating"] == "permutations"  # 3! seatings, 4 rounds
    assert r["candidate"] == r["baseline"]
    d = r["difference"]
    assert d["mean"] == 0 and d["ci_low"] == 0 and d["ci_high"] == 0 and d["same_outcome"] == 1.0
    assert not d["better"]


def test_a_stronger_candidate_wins_more_than_the_baseline_in_its_seats():
    """greedy against greedy wins about half; random in the same seats almost never: d > 0, excluding 0."""
    game = make_game("monkey_fun", num_players=2)
    r = pa.paired_comparison(game, "greedy", "random", ["greedy"], num_games=60, seed=0)
    c, b, d = r["candidate"], r["baseline"], r["difference"]
    assert r["games"] == 60 and r["deals"] == 30  # each deal from both seats
    assert c["win_rate"] > 0.3 and b["win_rate"] < 0.1
    assert d["mean"] == pytest.approx(c["win_rate"] - b["win_rate"])
    assert d["ci_low"] > 0 and d["better"]
    assert [x is not None for x in c["by_seat"]] == [True, True]
    # the reverse comparison is the mirror image
    back = pa.paired_comparison(game, "random", "greedy", ["greedy"], num_games=60, seed=0)
    assert back["difference"]["mean"] == pytest.approx(-d["mean"]) and not back["difference"]["better"]


def test_wrong_opponent_counts_are_refused():
    game = make_game("funky_monkey", num_players=4)
    with pytest.raises(ValueError, match="needs 3 opponents"):
        pa.paired_comparison(game, "track", "honest", ["skeptic"], num_games=24)


def test_the_command_writes_its_report(tmp_path, capsys):
    out = tmp_path / "p"
    rc = pa.main(
        [
            "--game",
            "monkey_fun",
            "--players",
            "2",
            "--candidate",
            "greedy",
            "--baseline",
            "random",
            "--opponents",
            "greedy",
            "--games",
            "20",
            "--out",
            str(out),
        ]
    )
    assert rc == 0
    report = json.loads((out / "paired.json").read_text())
    assert report["candidate_spec"] == "greedy" and report["opponents"] == ["greedy"]
    assert report["command"].startswith("python -m agents.paired --game monkey_fun")
    md = (out / "paired.md").read_text()
    assert "Paired difference" in md and f"{report['difference']['mean']:+.3f}" in md
    assert "the candidate wins more: **yes**" in capsys.readouterr().out


#: A valid command line; each bad case below changes one part of it.
GOOD = ["--game", "monkey_fun", "--candidate", "greedy", "--baseline", "random", "--opponents", "greedy"]


@pytest.mark.parametrize(
    "args, option",
    [
        (["--game", "no_such_game", *GOOD[2:]], "--game"),
        ([*GOOD[:3], "nope", *GOOD[4:]], "--candidate"),
        ([*GOOD, "random"], "--opponents"),  # two opponents for two seats
        ([*GOOD, "--games", "0"], "--games"),
    ],
)
def test_bad_arguments_exit_2_naming_the_option_and_write_nothing(args, option, tmp_path, capsys):
    out = tmp_path / "p"
    assert pa.main([*args, "--out", str(out)]) == 2
    assert capsys.readouterr().err.startswith(f"error: {option}: ")
    assert not out.exists()


def test_one_deal_gives_no_interval_and_no_claim():
    """The interval comes from the spread of per-deal means: one deal (both seats of it) has none."""
    game = make_game("monkey_fun", num_players=2)
    r = pa.paired_comparison(game, "greedy", "random", ["greedy"], num_games=2, seed=1)
    d = r["difference"]
    assert r["deals"] == 1 and d["ci_low"] == -np.inf and d["ci_high"] == np.inf and not d["better"]
