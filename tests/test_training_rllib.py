"""``python -m training.run`` with ``algo: rllib_ppo`` (issue 27 item 1): RLlib's PPO over the batched core.

A tiny run with one remote env runner trains, writes its folder (config, the policy in the safe
format, Ray's checkpoint, progress, evaluation) and its policy plays as ``rllib:<run folder>``;
self-play (the SB3 path's ``selfplay`` keys) sends snapshots of the policy to the env runners'
opponent pools; keys the RLlib path does not take yet, and bad ``ray`` values, are
``error: <key>: <why>`` (exit 2, nothing written), as on the SB3 path.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_agent
from monkey_envs.games import make_game
from training.run import main

pytest.importorskip("ray.rllib", reason="Ray RLlib is not installed (pip install -e '.[clients]')")


@pytest.fixture(scope="module", autouse=True)
def one_ray():
    """One local Ray for the module: each run joins it (``run_rllib`` starts a Ray only when none is
    up), which saves a Ray start per run."""
    import ray

    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


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
    assert summary["learners"] == {"remote": False, "count": 1}  # ray.num_learners: 0, the update in this process
    assert set(summary["evaluation"]) == {"random", "greedy"}
    assert summary["evaluation"]["random"]["agents"][0]["games"] == 40
    agent = make_agent(f"rllib:{run}", make_game("monkey_fun"), 0)
    g = make_game("monkey_fun")
    s = g.init([0, 1, 2])
    a = agent.act(g.observe(s, s.current_player), s.legal_action_mask)
    assert s.legal_action_mask[[0, 1, 2], a].all()
    # a snapshot that samples (selfplay.deterministic: false) draws from its masked softmax
    from agents.rllib_policy import RLlibPolicyAgent

    s = g.init(list(range(64)))
    obs, mask = g.observe(s, s.current_player), s.legal_action_mask
    a = RLlibPolicyAgent(str(run), g, deterministic=False, seed=3).act(obs, mask)
    b = RLlibPolicyAgent(str(run), g, deterministic=False, seed=3).act(obs, mask)
    greedy = RLlibPolicyAgent(str(run), g).act(obs, mask)
    assert np.array_equal(a, b) and mask[np.arange(64), a].all()
    assert not np.array_equal(a, greedy)  # a barely trained policy's softmax is nearly flat: samples differ


@pytest.mark.parametrize("name", ["funky_monkey", "monki", "four_monkeys"])
def test_every_game_has_an_rllib_config_that_trains_and_plays(name, tmp_path):
    """``configs/<game>_rllib.yaml`` trains (one tiny iteration here) and its policy plays as ``rllib:<run>``."""
    args = ["--config", f"configs/{name}_rllib.yaml", "--set", "total_timesteps=512", "--set", "ppo.n_steps=16"]
    args += ["--set", "ppo.n_epochs=1", "--set", "ppo.net_arch=[32]", "--set", "ray.num_envs_per_env_runner=32"]
    args += ["--set", "ray.num_cpus=2", "--set", "eval.num_games=0", "--set", "progress_bar=false"]
    assert main([*args, "--set", f"runs_dir={tmp_path}"]) == 0
    (run,) = list(tmp_path.iterdir())
    game = make_game(name, **({"num_players": 4} if name != "monki" else {}))
    agent = make_agent(f"rllib:{run}", game, 0)
    s = game.init([0, 1, 2])
    assert s.legal_action_mask[[0, 1, 2], agent.act(game.observe(s, s.current_player), s.legal_action_mask)].all()


def test_ray_num_learners_trains_on_a_remote_learner(tmp_path):
    """``ray.num_learners: 1``: the update runs in a learner actor of its own (RLlib's ``LearnerGroup``)."""
    args = [*TINY, "--set", "ray.num_learners=1", "--set", "eval.num_games=8", "--set", f"runs_dir={tmp_path}"]
    assert main(args) == 0
    (run,) = list(tmp_path.iterdir())
    summary = json.loads((run / "eval.json").read_text())
    assert summary["learners"] == {"remote": True, "count": 1} and summary["timesteps"] >= 2048


@pytest.mark.parametrize(
    ("override", "message"),
    [
        ("pretrain.teacher=greedy", "error: pretrain.teacher: pretraining is not on the rllib_ppo path yet"),
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


def test_rllib_self_play_sends_snapshots_to_the_runners_pools_and_plays_them(tmp_path):
    """Iterations of about 32 x 32 = 1,024 steps, a snapshot every 1,024: three snapshots (one at 0)."""
    args = [*TINY, "--set", "selfplay.enabled=true", "--set", "selfplay.snapshot_every=1024"]
    args += ["--set", "selfplay.heuristic_share=0.5", "--set", "eval.num_games=8", "--set", f"runs_dir={tmp_path}"]
    assert main(args) == 0
    (run,) = list(tmp_path.iterdir())
    summary = json.loads((run / "eval.json").read_text())["selfplay"]
    snaps = summary["snapshots"]  # RLlib samples a little past each 1,024 (it ends its fragments' episodes)
    assert len(snaps) == 3 and snaps[0] == 0 and 1024 <= snaps[1] < 2048 <= snaps[2]
    pool = summary["pool_of_one_runner"]  # the remote runner's pool after the last update
    assert pool["members"] == ["random", "greedy", *(f"snapshot_{n}" for n in snaps)]
    assert pool["weights"][:2] == [0.25, 0.25] and abs(sum(pool["weights"]) - 1) < 1e-3
    assert all(w > 0 for w in pool["weights"][2:])  # uniform over the window
    assert pool["games"][2] > 0  # the first snapshot was drawn and played in the second iteration
    game = make_game("monkey_fun")
    s = game.init([0, 1, 2])
    for steps in snaps:
        agent = make_agent(f"rllib:{run / 'snapshots' / f'snapshot_{steps}'}", game, 0)
        assert s.legal_action_mask[[0, 1, 2], agent.act(game.observe(s, s.current_player), s.legal_action_mask)].all()
