"""A tiny training run end to end, in a subprocess: every output file and the printed evaluation."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    runs = tmp_path_factory.mktemp("runs")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run(
        [sys.executable, "-m", "training.run", "--config", "configs/smoke.yaml", "--set", f"runs_dir={runs}"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    dirs = list(runs.iterdir())
    assert len(dirs) == 1, dirs
    return proc, dirs[0]


def test_smoke_run_names_its_folder_game_algo_seed_time(smoke_run):
    _, run_dir = smoke_run
    assert re.fullmatch(r"monkey_fun__maskable_ppo__0__\d{8}-\d{6}", run_dir.name)
    assert {"config.yaml", "model.zip", "eval.json", "progress.csv"} <= {p.name for p in run_dir.iterdir()}


def test_smoke_run_writes_every_output_file(smoke_run):
    """Checkpoints, learning curve (csv + png), TensorBoard events, eval.md -- and their content."""
    _, run_dir = smoke_run
    ckpts = sorted(p.name for p in (run_dir / "checkpoints").iterdir())
    assert ckpts == [  # checkpoint_every: 512; each with its safe files
        f"model_{s}_steps.{ext}" for s in (1024, 512) for ext in ("json", "safetensors", "zip")
    ]
    assert list((run_dir / "tb").glob("events.out.tfevents.*")), "no TensorBoard event file"
    assert (run_dir / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    from training.outputs import read_curve

    points = read_curve(run_dir / "curve.csv")
    assert sorted({p["timesteps"] for p in points}) == [0, 512, 1024]  # curve_every: 512
    assert {p["opponent"] for p in points} == {"random", "greedy"}
    assert all(p["games"] == 20 for p in points)
    summary = json.loads((run_dir / "eval.json").read_text())
    md = (run_dir / "eval.md").read_text()
    for opponent in ("random", "greedy"):
        me = summary["evaluation"][opponent]["agents"][0]
        assert re.search(rf"\| {opponent} \| 100 \| {me['wins']} \| {me['draws']} \| {me['losses']} \|", md), md
    assert "curve.png" in md
    assert (run_dir / "fit.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"  # the pretraining fit per epoch
    assert "![pretraining fit](fit.png)" in md and summary["fit_png"] == "fit.png"
    # the pretraining step ran on the teacher's recorded decisions
    pre = summary["pretraining"]
    assert pre["teacher"] == "greedy" and pre["games"] == 16 and pre["decisions"] > 16
    assert 0.0 <= pre["accuracy"] <= 1.0


def test_smoke_run_saves_its_evaluation_games_as_replays_that_reproduce_them(smoke_run):
    """eval.save_games: every final-evaluation game is in games_vs_<opponent>.json, and each
    replays to the outcome (and win count) the evaluation reported."""
    from monkey_envs.replay import load_replays, replay

    _, run_dir = smoke_run
    summary = json.loads((run_dir / "eval.json").read_text())
    for opponent in ("random", "greedy"):
        reps = load_replays(run_dir / f"games_vs_{opponent}.json")
        assert len(reps.games) == 100
        wins = 0
        for rec in reps.games:
            replay(reps.game, rec)
            seat = rec.seats.index("trained")
            wins += rec.outcome["winners"][seat] and not all(rec.outcome["winners"])
        assert wins == summary["evaluation"][opponent]["agents"][0]["wins"]


def test_smoke_run_saves_the_resolved_config(smoke_run):
    _, run_dir = smoke_run
    saved = yaml.safe_load((run_dir / "config.yaml").read_text())
    smoke = yaml.safe_load((ROOT / "configs" / "smoke.yaml").read_text())
    assert saved["total_timesteps"] == smoke["total_timesteps"]
    assert saved["ppo"]["net_arch"] == smoke["ppo"]["net_arch"]
    assert saved["runs_dir"] == str(run_dir.parent)
    # resolved: keys the smoke file leaves out are filled with the defaults
    assert saved["ppo"]["gamma"] == 0.95 and saved["env"]["game"] == "monkey_fun"
    # the saved config reproduces the run's settings when loaded again
    from training.config import load_config

    assert load_config(run_dir / "config.yaml").to_dict() == saved


def test_smoke_run_evaluates_against_random_and_greedy(smoke_run):
    proc, run_dir = smoke_run
    summary = json.loads((run_dir / "eval.json").read_text())
    assert summary["training"]["timesteps"] >= 1024
    for opponent in ("random", "greedy"):
        result = summary["evaluation"][opponent]
        me = result["agents"][0]
        assert me["name"] == "trained" and me["games"] == result["num_games"] == 100
        assert me["wins"] + me["draws"] + me["losses"] == 100
        assert 0.0 <= me["ci_low"] <= me["win_rate"] <= me["ci_high"] <= 1.0
        printed = re.search(rf"win rate vs {opponent}: ([0-9.]+) \(95% CI \[([0-9.]+), ([0-9.]+)\]\)", proc.stdout)
        assert printed, proc.stdout[-2000:]
        assert float(printed.group(1)) == pytest.approx(me["win_rate"], abs=1e-3)


def test_saved_model_plays_as_a_ppo_agent(smoke_run):
    _, run_dir = smoke_run
    from agents import make_agent
    from monkey_envs.monkey_fun import MonkeyFun

    game = MonkeyFun(num_players=2)
    agent = make_agent(f"ppo:{run_dir / 'model.zip'}", game)
    state = game.init(np.arange(32))
    for _ in range(10):
        obs = game.observe(state, np.maximum(state.current_player, 0))
        actions = agent.act(obs, state.legal_action_mask)
        live = state.current_player >= 0
        assert state.legal_action_mask[np.flatnonzero(live), actions[live]].all()
        state = game.step(state, actions)
    with pytest.raises(ValueError, match="observations have shape"):
        make_agent(f"ppo:{run_dir / 'model.zip'}", MonkeyFun(num_players=3))
    with pytest.raises(ValueError, match="no saved model"):
        make_agent(f"ppo:{run_dir / 'missing.zip'}", game)


def test_rollout_win_rate_counts_a_shared_win_as_the_pool_does():
    from training.run import win_rate_callback

    cb = win_rate_callback()
    w = np.array  # final infos' winners: (P,) bool masks
    infos = [
        {"winners": w([True, False]), "learner_seat": 0, "illegal_action": False},  # win: 1
        {"winners": w([True, True]), "learner_seat": 1, "illegal_action": False},  # shared by two: 1/2
        {"winners": w([False, True]), "learner_seat": 0, "illegal_action": False},  # loss: 0
        {"winners": w([True, False]), "learner_seat": 0, "illegal_action": True},  # forfeit: 0
        {"winners": w([True, False]), "learner_seat": 0, "illegal_action": False},  # not done: not counted
    ]
    cb.locals = {"infos": infos, "dones": [True, True, True, True, False]}
    cb._on_step()
    assert list(cb.outcomes) == [1.0, 0.5, 0.0, 0.0]
