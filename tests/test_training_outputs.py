"""training.outputs: the learning-curve callback on a tiny real MaskablePPO run, its plot, the Markdown report."""

from __future__ import annotations

import csv
import json
import re

import pytest

pytest.importorskip("sb3_contrib")
pytest.importorskip("matplotlib")

from training.outputs import CURVE_COLUMNS, CurveCallback, plot_learning_curve, read_curve, write_eval_md

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
OPPONENTS = ["random", "greedy"]


@pytest.fixture(scope="module")
def curve_run(tmp_path_factory):
    """A tiny MaskablePPO run (8 envs x 16 steps = 128 per rollout, 4 rollouts) with the curve callback."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.logger import configure

    from agents.policy import PolicyAgent
    from monkey_envs.core.sb3_vec import MonkeyVecEnv
    from monkey_envs.games import make_game

    torch.set_num_threads(1)
    out = tmp_path_factory.mktemp("curve")
    game = make_game("monkey_fun", num_players=2)
    venv = MonkeyVecEnv("monkey_fun", num_envs=8, opponent="random", seed=0, num_players=2)
    model = MaskablePPO(
        "MlpPolicy",
        venv,
        n_steps=16,
        batch_size=64,
        n_epochs=1,
        policy_kwargs={"net_arch": [16]},
        seed=0,
        device="cpu",
        verbose=0,
    )
    model.set_logger(configure(str(out), ["csv"]))
    callback = CurveCallback(
        game,
        OPPONENTS,
        make_policy=lambda m: PolicyAgent(m, game, deterministic=True, name="trained"),
        every=128,
        num_games=20,
        seed=7,
        csv_path=out / "curve.csv",
    )
    model.learn(400, callback=callback)
    venv.close()
    return model, callback, out


def test_curve_csv_has_the_columns_and_increasing_points_per_opponent(curve_run):
    model, callback, out = curve_run
    with (out / "curve.csv").open(newline="") as f:
        reader = csv.DictReader(f)
        assert tuple(reader.fieldnames) == CURVE_COLUMNS
        raw = list(reader)
    rows = read_curve(out / "curve.csv")
    assert len(rows) == len(raw) and rows == callback.points
    # start (0), every 128 steps (one rollout each), the end (512 = 4 rollouts: already evaluated)
    assert model.num_timesteps == 512
    expected = [0, 128, 256, 384, 512]
    for name in OPPONENTS:
        pts = [r for r in rows if r["opponent"] == name]
        assert [r["timesteps"] for r in pts] == expected
        walls = [r["wall_seconds"] for r in pts]
        assert walls == sorted(walls) and walls[0] >= 0
    for r in rows:
        assert r["games"] == 20
        assert 0.0 <= r["ci_low"] <= r["win_rate"] <= r["ci_high"] <= 1.0
        assert r["ci_low"] < r["ci_high"]
        assert r["mean_score"] is not None  # Monkey Fun keeps scores


def test_curve_callback_logs_win_rates_to_the_sb3_logger(curve_run):
    _, callback, out = curve_run
    with (out / "progress.csv").open(newline="") as f:
        logged = list(csv.DictReader(f))
    for name in OPPONENTS:
        key = f"eval/win_rate_{name}"
        values = [float(r[key]) for r in logged if r.get(key)]
        assert values, f"{key} never reached progress.csv"
        # the final evaluation is dumped, and it is the curve's last point
        assert values[-1] == pytest.approx([p for p in callback.points if p["opponent"] == name][-1]["win_rate"])


def test_curve_callback_evaluates_at_training_end_when_not_on_a_multiple(tmp_path):
    """every larger than the run: points at the start and the end only; same deals give the same start point."""
    from sb3_contrib import MaskablePPO

    from agents.policy import PolicyAgent
    from monkey_envs.core.sb3_vec import MonkeyVecEnv
    from monkey_envs.games import make_game

    game = make_game("monkey_fun", num_players=2)
    venv = MonkeyVecEnv("monkey_fun", num_envs=8, opponent="random", seed=0, num_players=2)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [8]}, seed=0
    )
    callback = CurveCallback(
        game,
        ["random"],
        make_policy=lambda m: PolicyAgent(m, game, deterministic=True),
        every=10_000,
        num_games=10,
        seed=3,
        csv_path=tmp_path / "sub" / "curve.csv",
    )
    model.learn(128, callback=callback)
    venv.close()
    assert [p["timesteps"] for p in callback.points] == [0, 128]
    assert len(read_curve(tmp_path / "sub" / "curve.csv")) == 2


def test_curve_points_are_the_policy_trained_on_their_steps_the_last_point_the_final_policy(tmp_path):
    """Issue 24 (approximate exploitability reports the best response's learning curve): each
    point is evaluated after the updates of its steps, so the last point is the final policy --
    not the policy before the last update (as when points were taken mid-rollout)."""
    import torch
    from sb3_contrib import MaskablePPO

    from agents.policy import PolicyAgent
    from monkey_envs.core.sb3_vec import MonkeyVecEnv
    from monkey_envs.games import make_game

    game = make_game("monkey_fun", num_players=2)
    venv = MonkeyVecEnv("monkey_fun", num_envs=8, opponent="random", seed=0, num_players=2)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=16, batch_size=64, n_epochs=1, policy_kwargs={"net_arch": [8]}, seed=0
    )
    seen: list[tuple[int, torch.Tensor]] = []

    def make_policy(m):
        seen.append((m.num_timesteps, torch.cat([p.detach().flatten().clone() for p in m.policy.parameters()])))
        return PolicyAgent(m, game, deterministic=True)

    callback = CurveCallback(
        game, ["random"], make_policy=make_policy, every=128, num_games=10, seed=3, csv_path=tmp_path / "curve.csv"
    )
    model.learn(256, callback=callback)  # two rollouts of 128 steps, two updates
    venv.close()
    assert [p["timesteps"] for p in callback.points] == [0, 128, 256]
    final = torch.cat([p.detach().flatten() for p in model.policy.parameters()])
    assert [t for t, _ in seen] == [0, 128, 256]
    assert torch.equal(seen[-1][1], final)  # the last point plays the final policy
    assert not torch.equal(seen[0][1], seen[1][1])  # the point at 128 steps plays the policy after one update
    assert not torch.equal(seen[1][1], seen[2][1])


def test_curve_callback_rejects_bad_arguments(tmp_path):
    from monkey_envs.games import make_game

    game = make_game("monkey_fun", num_players=2)
    kw = {"make_policy": lambda m: m, "num_games": 10, "seed": 0, "csv_path": tmp_path / "c.csv"}
    with pytest.raises(ValueError, match="every"):
        CurveCallback(game, ["random"], every=0, **kw)
    with pytest.raises(ValueError, match="opponent"):
        CurveCallback(game, [], every=10, **kw)
    with pytest.raises(ValueError, match="num_games"):
        CurveCallback(game, ["random"], every=10, **{**kw, "num_games": 0})


def test_plot_learning_curve_writes_a_png(curve_run, tmp_path):
    _, _, out = curve_run
    png = plot_learning_curve(out / "curve.csv", tmp_path / "plots" / "curve.png", title="tiny run", num_players=2)
    assert png == tmp_path / "plots" / "curve.png"
    data = png.read_bytes()
    assert data[:8] == PNG_SIGNATURE and len(data) > 5_000


def test_plot_learning_curve_of_an_empty_csv_still_writes_a_png(tmp_path):
    (tmp_path / "empty.csv").write_text(",".join(CURVE_COLUMNS) + "\n")
    png = plot_learning_curve(tmp_path / "empty.csv", tmp_path / "empty.png")
    assert png.read_bytes()[:8] == PNG_SIGNATURE


# ====================================================================== eval.md


def _summary(tmp_path):
    """A summary shaped like training.run's eval.json, from real small evaluations."""
    from agents.evaluate import play_games
    from monkey_envs.games import make_game

    game = make_game("monkey_fun", num_players=2)
    evaluation = {
        name: play_games(game, ["greedy", name], 20, seed=5, names=["trained", name]).to_dict()
        for name in ("random", "greedy")
    }
    summary = {
        "run_dir": str(tmp_path / "run"),
        "game": {"name": "monkey_fun", **game.config},
        "algo": "maskable_ppo",
        "seed": 0,
        "training": {"timesteps": 4096, "seconds": 12.34, "steps_per_second": 331.9, "opponent": "greedy"},
        "evaluation_seconds": 1.5,
        "evaluation": evaluation,
    }
    return json.loads(json.dumps(summary))  # as read back from eval.json


def _table_rows(text):
    rows = {}
    for line in text.splitlines():
        m = re.fullmatch(r"\| (\S+) \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+) \| \[([\d.]+), ([\d.]+)\] \|", line)
        if m:
            name, *nums = m.groups()
            rows[name] = [int(x) for x in nums[:4]] + [float(x) for x in nums[4:]]
    return rows


def test_write_eval_md_table_matches_the_summary(tmp_path):
    summary = _summary(tmp_path)
    path = write_eval_md(summary, tmp_path / "eval.md")
    text = path.read_text()
    assert text.startswith("# monkey_fun -- maskable_ppo, seed 0")
    assert "| opponent | games | wins | draws | losses | win rate | 95% CI |" in text
    assert "4,096" in text and "12.3 s" in text and "greedy" in text
    rows = _table_rows(text)
    assert set(rows) == {"random", "greedy"}
    for name, result in summary["evaluation"].items():
        me = result["agents"][0]
        assert me["name"] == "trained"
        games, wins, draws, losses, rate, lo, hi = rows[name]
        assert (games, wins, draws, losses) == (me["games"], me["wins"], me["draws"], me["losses"])
        assert wins + draws + losses == games == 20
        assert rate == pytest.approx(me["win_rate"], abs=5e-4)
        assert (lo, hi) == (pytest.approx(me["ci_low"], abs=5e-4), pytest.approx(me["ci_high"], abs=5e-4))
    assert "bluff" not in text.lower() and "![" not in text


def test_write_eval_md_includes_optional_analytics_and_curve(tmp_path):
    summary = _summary(tmp_path)
    summary["analytics_title"] = "Bluff analytics"
    summary["analytics"] = {"bluffs": 12, "caught": 3, "by_seat": {"0": 5, "1": 7}}
    summary["curve_png"] = "curve.png"
    text = write_eval_md(summary, tmp_path / "eval.md").read_text()
    assert "## Bluff analytics" in text
    assert "- bluffs: 12" in text and "- caught: 3" in text and "  - 0: 5" in text
    assert "![learning curve](curve.png)" in text


def test_write_eval_md_tolerates_a_sparse_summary(tmp_path):
    text = write_eval_md({"game": {"name": "monkey_fun"}, "evaluation": {}}, tmp_path / "x" / "eval.md").read_text()
    assert text.startswith("# monkey_fun")
    assert "No evaluation games were played." in text
