"""The training heartbeat (issue 23: a line at least every 10 s in every phase of a run)."""

from __future__ import annotations

import io
import re
import time

import pytest

from training.progress import Heartbeat


def test_a_silent_phase_still_prints_a_line_every_interval_with_its_count():
    out = io.StringIO()
    beat = Heartbeat(every=0.1, stream=out)
    with beat.phase("play-outs", total=4, unit="chunks") as p:
        p.advance(3)
        time.sleep(0.55)
    beat.close()
    lines = out.getvalue().splitlines()
    assert lines[0] == "play-outs ..."
    beats = [line for line in lines if line.startswith("  ... play-outs: 3/4 chunks, ")]
    assert len(beats) >= 3  # 0.55 s of silence at a 0.1 s interval
    assert lines[-1].startswith("play-outs: done in ")


def test_a_phase_that_prints_often_gets_no_heartbeat():
    out = io.StringIO()
    beat = Heartbeat(every=0.3, stream=out)
    with beat.phase("fitting"):
        for k in range(6):
            beat.say(f"epoch {k}")
            time.sleep(0.05)
    beat.close()
    assert not [line for line in out.getvalue().splitlines() if line.startswith("  ...")]


def test_no_heartbeat_between_phases_and_none_when_disabled():
    out = io.StringIO()
    beat = Heartbeat(every=0.05, stream=out)
    with beat.phase("evaluation"):
        pass
    time.sleep(0.3)  # no phase runs: nothing to report
    beat.close()
    assert out.getvalue().splitlines()[0] == "evaluation ..."
    assert len(out.getvalue().splitlines()) == 2
    quiet = io.StringIO()
    off = Heartbeat(every=0.05, stream=quiet, enabled=False)
    with off.phase("evaluation"):
        time.sleep(0.2)
    off.close()
    assert quiet.getvalue() == ""


@pytest.mark.parametrize("every", [0, -1.0, True, "10", float("nan")])
def test_a_bad_interval_is_a_value_error(every):
    with pytest.raises(ValueError, match="every"):
        Heartbeat(every=every)


def test_a_run_without_ppo_reports_its_phases_and_leaves_no_empty_ppo_outputs(tmp_path, capsys):
    """Issue 23: the embedded default has no PPO phase (rollout_q pretraining, total_timesteps 0);
    such a run printed "trained 0 steps", drew an empty bar and left an empty progress.csv. Now each
    phase prints its start and end, the fit is drawn as fit.png, and no PPO output is written."""
    pytest.importorskip("sb3_contrib")
    from training.run import main

    sets = [
        "total_timesteps=0",
        "tensorboard=false",
        f"runs_dir={tmp_path}",
        "env.num_envs=4",
        "ppo.batch_size=64",
        "pretrain.games=8",
        "pretrain.epochs=2",
        "pretrain.workers=1",
        "ppo.net_arch=[16]",
        "eval.num_games=8",
        "eval.opponents=[random]",
    ]
    assert main([x for kv in sets for x in ("--set", kv)]) == 0
    out = capsys.readouterr().out
    (run_dir,) = tmp_path.iterdir()
    for phase in ("setting up 4 monkey_fun envs", "pretraining: 8 'greedy' games", "pretraining: fitting 2 epochs"):
        assert f"\n{phase}" in f"\n{out}" and re.search(rf"{re.escape(phase)}[^\n]*: done in \d", out), phase
    assert "evaluation: 8 games vs random ...\n" in out
    assert "no PPO phase (total_timesteps: 0)" in out
    assert "trained 0 steps" not in out and "0/0" not in out
    names = {p.name for p in run_dir.iterdir()}
    assert {"model.zip", "eval.json", "eval.md", "fit.png"} <= names
    assert not names & {"progress.csv", "checkpoints", "tb"}
    assert "![pretraining fit](fit.png)" in (run_dir / "eval.md").read_text()


def test_the_fit_curve_plots_every_loss_of_its_history(tmp_path):
    from training.outputs import plot_fit_curve

    out = plot_fit_curve([{"epoch": 1, "train_bce": 0.7}, {"epoch": 2, "train_bce": 0.6}], tmp_path / "a" / "fit.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(ValueError, match="epoch"):
        plot_fit_curve([{"train_bce": 0.7}], tmp_path / "b.png")


@pytest.mark.parametrize("objective", ["rollout_q", "imitation"])
def test_the_fittings_epoch_lines_go_through_the_heartbeat(objective, capsys):
    """Issue 23 (training progress): the per-epoch lines of the pretraining fit bypassed the
    heartbeat (a plain ``print`` to stdout), so heartbeat lines landed among them -- even inside
    one of them, ``print`` writing the text and the newline apart -- and a phase printing an
    epoch a second still got heartbeats. Now every pretraining line goes through the heartbeat:
    on its stream, in order inside its phase, and none to stdout."""
    pytest.importorskip("sb3_contrib")
    from training.config import load_config
    from training.run import build_env, build_model, prepare, pretrain

    sets = ["env.num_envs=2", "ppo.batch_size=64", "ppo.net_arch=[8]", "pretrain.games=4", "pretrain.epochs=3"]
    cfg = load_config(None, [*sets, "pretrain.workers=1", f"pretrain.objective={objective}"]).validate()
    game = prepare(cfg, load_models=False)
    venv = build_env(cfg)
    try:
        model = build_model(cfg, venv)
        out = io.StringIO()
        beat = Heartbeat(every=60.0, stream=out)
        pretrain(model, cfg, game, beat)
        beat.close()
    finally:
        venv.close()
    assert capsys.readouterr().out == "", "pretraining printed past the heartbeat"
    lines = out.getvalue().splitlines()
    start = next(
        i for i, line in enumerate(lines) if line.startswith("pretraining: fitting 3 epochs") and "..." in line
    )
    epochs = [i for i, line in enumerate(lines) if line.startswith("  pretraining epoch ")]
    assert [lines[i].split(":")[0] for i in epochs] == [f"  pretraining epoch {k}/3" for k in (1, 2, 3)]
    assert start < epochs[0] and epochs == list(range(start + 1, start + 4))
    assert re.match(r"pretraining: fitting 3 epochs.*: done in \d", lines[start + 4])


def test_echo_prints_even_when_disabled_and_writes_whole_lines():
    """Heartbeat.echo is the run's own output: printed with the heartbeat off, one write per line."""

    class Writes(io.StringIO):
        def __init__(self) -> None:
            super().__init__()
            self.writes: list[str] = []

        def write(self, s: str) -> int:
            self.writes.append(s)
            return super().write(s)

    out = Writes()
    beat = Heartbeat(every=60.0, stream=out, enabled=False)
    beat.say("not printed")
    beat.echo("epoch 1/3")
    assert out.getvalue() == "epoch 1/3\n" and out.writes == ["epoch 1/3\n"]
    on = Writes()
    Heartbeat(every=60.0, stream=on).say("a heartbeat")
    assert on.writes == ["a heartbeat\n"], "a heartbeat line written in pieces can be split by another thread"
