"""Funky Monkey bluff rates by context (its decision_report hook, played by agents.evaluate.decision_report):
known agents give known answers."""

from __future__ import annotations

import numpy as np
import pytest

from agents.decision_report import main
from agents.evaluate import decision_report
from monkey_envs.funky_monkey.analytics import context_markdown
from monkey_envs.funky_monkey.rules import FunkyMonkey


def bluff_context(game, agent, opponents, num_games, seed=0, name="agent"):
    title, data, _ = decision_report(game, agent, opponents, num_games, seed=seed, name=name)
    assert title == "When does the agent bluff?"
    return data


@pytest.fixture(scope="module")
def game():
    return FunkyMonkey(num_players=3)


def totals(ctx, key):
    return sum(r["plays"] for r in ctx[key]), sum(r["bluffs"] for r in ctx[key])


def test_skeptic_always_bluffs_and_honest_never(game):
    """skeptic announces a value other than its card on every face-down play; honest never."""
    sk = bluff_context(game, "skeptic", ["honest", "track"], 30, seed=1, name="skeptic")
    assert sk["plays"] > 50 and sk["bluff_rate"] == 1.0
    assert all(r["bluffs"] == r["plays"] for r in sk["by_card"])
    hon = bluff_context(game, "honest", ["skeptic", "track"], 30, seed=1, name="honest")
    assert hon["plays"] > 50 and hon["bluff_rate"] == 0.0
    assert sum(hon["announced_when_bluffing"].values()) == 0
    # every table splits the same plays
    for ctx in (sk, hon):
        for key in ("by_card", "by_receiver_distance", "by_receiver_position"):
            assert totals(ctx, key) == (ctx["plays"], round(ctx["bluff_rate"] * ctx["plays"]))
        assert sum(ctx["announced_when_bluffing"].values()) == round(ctx["bluff_rate"] * ctx["plays"])


def test_track_bluffs_more_when_the_receiver_is_close_to_the_tiger(game):
    """track bluffs when the truth would help the receiver -- most when the receiver can reach the tiger."""
    ctx = bluff_context(game, "track", ["honest", "honest"], 90, seed=2, name="track")
    near, _, far = ctx["by_receiver_distance"]
    assert near["plays"] > 5 and far["plays"] > 50
    assert near["bluff_rate"] > far["bluff_rate"]
    text = context_markdown(ctx)
    assert "| 1-4 |" in text and "track" in text


def test_bad_input_and_cli(capsys, tmp_path):
    with pytest.raises(ValueError, match="need 2 opponents"):
        bluff_context(FunkyMonkey(num_players=3), "honest", ["track"], 3)
    from monkey_envs.monkey_fun import MonkeyFun

    assert decision_report(MonkeyFun(num_players=2), "random", ["random"], 2) is None  # no report for that game
    assert main(["--game", "monkey_fun", "--agent", "random", "--opponents", "random", "--games", "2"]) == 2
    out = tmp_path / "ctx.json"
    argv = ["--game", "funky_monkey", "--players", "2", "--agent", "skeptic", "--opponents", "honest"]
    assert main([*argv, "--games", "4", "--json", str(out)]) == 0
    assert "Bluff rate of **skeptic**" in capsys.readouterr().out
    import json

    assert json.loads(out.read_text())["bluff_rate"] == 1.0
    assert np.isfinite(json.loads(out.read_text())["win_rate"])
