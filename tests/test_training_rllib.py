"""``python -m training.run`` with ``algo: rllib_ppo`` (issue 27 item 1): RLlib's PPO over the batched core.

A tiny run with one remote env runner trains, writes its folder (config, the policy in the safe
format, Ray's checkpoint, progress, evaluation) and its policy plays as ``rllib:<run folder>``;
keys the RLlib path does not take yet, and bad ``ray`` values, are ``error: <key>: <why>`` (exit
2, nothing written), as on the SB3 path.
"""

from __future__ import annotations

import json

import pytest

from agents import make_agent
from monkey_envs.games import make_game
from training.run import main

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install -e '.[clients]')")

TINY = [
    "--config", "configs/monkey_fun_rllib.yaml",
    "--set", "total_timesteps=2048", "--set", "ppo.n_steps=32", "--set", "ppo.n_epochs=1",
    "--set", "ppo.net_arch=[32]", "--set", "ray.num_envs_per_env_runner=32", "--set", "ray.num_cpus=2",
    "--set", "eval.num_games=40", "--set", "progress_bar=false",
]  # fmt: skip


def test_a_tiny_rllib_run_trains_saves_and_evaluates(tmp_path):
    assert main([*TINY, "--set", f"runs_dir={tmp_path}"]) == 0
    (run,) = list(tmp_path.iterdir())
    names = {p.name for p in run.iterdir()}
    assert {"config.yaml", "rllib_module.safetensors", "rllib_module.json", "rllib_checkpoint"} <= names
    assert {"progress.csv", "eval.json", "eval.md"} <= names
    summary = json.loads((run / "eval.json").read_text())
    assert summary["algo"] == "rllib_ppo" and summary["timesteps"] >= 2048
    assert set(summary["evaluation"]) == {"random", "greedy"}
    assert summary["evaluation"]["random"]["agents"][0]["games"] == 40
    agent = make_agent(f"rllib:{run}", make_game("monkey_fun"), 0)
    g = make_game("monkey_fun")
    s = g.init([0, 1, 2])
    a = agent.act(g.observe(s, s.current_player), s.legal_action_mask)
    assert s.legal_action_mask[[0, 1, 2], a].all()


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("selfplay.enabled=true", "error: selfplay.enabled: self-play is not on the rllib_ppo path yet"),
        ("ppo.features=auto", "error: ppo.features: the rllib_ppo path reads the flat observation"),
        ("ray.num_env_runners=-1", "error: ray.num_env_runners:"),
        ("ray.num_envs_per_env_runner=0", "error: ray.num_envs_per_env_runner:"),
        ("env.opponent=[random, no_such_agent]", "no_such_agent"),
    ],
)
def test_bad_rllib_configs_are_clear_errors_before_anything_is_written(override, message, capsys, tmp_path):
    assert main([*TINY, "--set", override, "--set", f"runs_dir={tmp_path}"]) == 2
    assert message in capsys.readouterr().err
    assert not any(tmp_path.iterdir())
