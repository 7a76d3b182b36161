"""The training-speed benchmark runs end to end (a smoke test with a tiny budget, not a benchmark)."""

from __future__ import annotations

import pytest
from benchmark_scripts import load_benchmark

pytest.importorskip("sb3_contrib")


def test_training_speed_prints_a_markdown_row_for_both_setups(capsys):
    bench = load_benchmark("training_speed")
    args = ["--timesteps", "64", "--num-envs", "4", "--n-steps", "16", "--batch-size", "32", "--n-epochs", "1"]
    assert bench.main([*args, "--markdown"]) == 0
    out = capsys.readouterr().out
    assert "| game | options | envs | timesteps | fps native | fps DummyVecEnv | ratio |" in out
    assert "| monkey_fun | defaults | 4 | 64 |" in out


def test_both_setups_train_the_same_number_of_timesteps():
    bench = load_benchmark("training_speed")
    res = bench.run("monkey_fun", num_envs=3, timesteps=48, n_steps=16, batch_size=24, n_epochs=1, num_players=3)
    assert res["timesteps_native"] == res["timesteps_dummy"] == 48
    assert res["fps_native"] > 0 and res["fps_dummy"] > 0
    assert res["ratio"] == pytest.approx(res["fps_native"] / res["fps_dummy"])
    assert "| monkey_fun | num_players=3 | 3 | 48 |" in bench.table(res, markdown=True)


def test_dummy_vec_env_serves_action_masks_the_way_maskable_ppo_asks():
    from sb3_contrib.common.maskable.utils import get_action_masks

    bench = load_benchmark("training_speed")
    venv = bench.dummy_env("funky_monkey", 2, {"num_players": 4})
    venv.reset()
    masks = get_action_masks(venv)
    assert masks.shape == (2, venv.action_space.n) and masks.any(1).all()
    venv.close()


def test_bad_sizes_are_rejected():
    bench = load_benchmark("training_speed")
    with pytest.raises(SystemExit):
        bench.main(["--timesteps", "0"])


def test_opponent_mode_trains_against_random_and_the_named_mix_and_reports_their_ratio(capsys):
    bench = load_benchmark("training_speed")
    args = ["--timesteps", "64", "--num-envs", "4", "--n-steps", "16", "--batch-size", "32", "--n-epochs", "1"]
    assert bench.main([*args, "--game", "funky_monkey", "--num-players", "4", "--opponent", "honest", "track"]) == 0
    out = capsys.readouterr().out
    assert "fps vs random" in out and "honest / track" in out and "DummyVecEnv" not in out
    res = bench.run_opponents("monkey_fun", ["greedy"], 3, 48, 16, 24, 1, rounds=2)
    assert len(res["rounds_random"]) == len(res["rounds_opponent"]) == 2 and res["timesteps"] == 48
    assert res["fps_random"] == max(res["rounds_random"]) and res["fps_opponent"] == max(res["rounds_opponent"])
    assert res["ratio"] == pytest.approx(res["fps_opponent"] / res["fps_random"])


def test_opponent_mode_rejects_zero_rounds():
    bench = load_benchmark("training_speed")
    with pytest.raises(SystemExit):
        bench.main(["--opponent", "greedy", "--rounds", "0"])
