"""Issue 22, item 3 (training): SIGINT / SIGTERM during ``python -m training.run`` save a checkpoint
(the model so far, in the run's checkpoint format, loadable as ``ppo:PATH``), print where it is and
the exact command that resumes from it (``--resume``), and exit 128 + the signal (130 / 143) without
a traceback -- in every phase: before a model exists, pretraining, PPO, evaluation. And two runs
started in the same second with the same config never share a run folder.

The subprocess tests run the real command line with a tiny config and signal it once its output
(and a first checkpoint on disk) shows that PPO is training; the in-process tests put a real
signal into one phase each by patching that phase's first call.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import yaml

pytest.importorskip("sb3_contrib")

ROOT = Path(__file__).resolve().parents[1]

#: A run that would train for an hour: it is only ever stopped by the signal.
LONG = {
    "total_timesteps": 2_000_000,
    "progress_bar": False,
    "tensorboard": False,
    "checkpoint_every": 256,
    "env": {"num_envs": 8, "opponent": "random"},
    "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1, "net_arch": [16]},
    "eval": {"opponents": ["random"], "num_games": 10, "curve_every": 0},
}
#: A run of one PPO update (in process), with a 4-game imitation warm start.
TINY = {
    **LONG,
    "total_timesteps": 256,
    "checkpoint_every": 0,
    "pretrain": {"teacher": "random", "games": 4, "epochs": 1, "batch_size": 64},
}


def _config(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "run.yaml"
    path.write_text(yaml.safe_dump({**data, "runs_dir": str(tmp_path / "runs")}))
    return path


def _report(stderr: str) -> tuple[Path | None, list[str] | None]:
    """The checkpoint and the resume command a stopped run printed."""
    ckpt = re.search(r"^checkpoint: (\S+\.zip) ", stderr, re.M) or re.search(
        r"the trained model is saved: (\S+\.zip) ", stderr
    )
    command = re.search(r"^(?:resume with|start the run again in its folder with): (.+)$", stderr, re.M)
    return (Path(ckpt.group(1)) if ckpt else None), (shlex.split(command.group(1)) if command else None)


def _plays(checkpoint: Path) -> None:
    """The checkpoint loads with the project's policy loader and plays legal moves."""
    import numpy as np

    from agents import make_agent
    from monkey_envs.games import make_game

    game = make_game("monkey_fun", num_players=2)
    agent = make_agent(f"ppo:{checkpoint}", game)
    state = game.init(np.arange(8))
    obs = game.observe(state, state.current_player)
    actions = agent.act(obs, state.legal_action_mask)
    assert state.legal_action_mask[np.arange(8), actions].all()


@pytest.mark.parametrize(
    ("sig", "code"), [pytest.param(signal.SIGINT, 130, id="SIGINT"), pytest.param(signal.SIGTERM, 143, id="SIGTERM")]
)
def test_a_signal_during_ppo_saves_a_checkpoint_that_loads_and_the_printed_command_resumes(tmp_path, capfd, sig, code):
    """The printed command is run as printed after SIGINT; after SIGTERM its arguments are given
    to ``main`` in this process (the same command line, without a third interpreter start-up)."""
    from training.run import INTERRUPTED_FILE, zip_timesteps

    env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "training.run", "--config", str(_config(tmp_path, LONG))],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    watchdog = threading.Timer(120, proc.kill)
    watchdog.start()
    try:
        lines = []
        for line in proc.stdout:  # the line run() prints as PPO starts
            lines.append(line)
            if line.startswith("PPO training: from step 0"):
                break
        folder = re.search(r"^run folder: (.+)$", "".join(lines), re.M)
        assert folder, "".join(lines)[-2000:] + proc.communicate(timeout=60)[1][-3000:]
        run_dir = Path(folder.group(1))
        while proc.poll() is None and not list((run_dir / "checkpoints").glob("model_*_steps.zip")):
            time.sleep(0.05)  # a first periodic checkpoint: PPO has done updates
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        watchdog.cancel()
        proc.kill()
    assert proc.returncode == code, err[-3000:]
    assert "Traceback" not in err, err[-3000:]
    assert f"interrupted by {signal.Signals(sig).name} during PPO training at step" in err
    checkpoint, command = _report(err)
    assert checkpoint is not None and command is not None, err
    assert checkpoint.parent == run_dir / "checkpoints" and checkpoint.is_file()
    assert checkpoint.with_suffix(".safetensors").is_file() and checkpoint.with_suffix(".json").is_file()
    steps = zip_timesteps(checkpoint)
    assert steps >= 256 and checkpoint.name == f"model_{steps}_steps.zip"
    _plays(checkpoint)
    assert command[1:] == ["-m", "training.run", "--resume", str(checkpoint)]

    # the printed command, with a budget of one more update, continues from the checkpoint
    budget = ["--set", f"total_timesteps={steps + 256}"]
    if sig == signal.SIGINT:
        resumed = subprocess.run([*command, *budget], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
        rc, out, err = resumed.returncode, resumed.stdout, resumed.stderr
    else:
        capfd.readouterr()
        rc = _main([*command[3:], *budget])
        out, err = capfd.readouterr()
    assert rc == 0, out[-2000:] + err[-3000:]
    assert f"resuming from {checkpoint} ({steps} steps trained)" in out
    assert f"PPO training: from step {steps} to {steps + 256}" in out
    assert zip_timesteps(run_dir / "model.zip") >= steps + 256
    assert (run_dir / "eval.json").is_file() and not (run_dir / INTERRUPTED_FILE).exists()
    _plays(run_dir / "model.zip")


def _main(argv: list[str]) -> int:
    """``training.run.main``; a KeyboardInterrupt escaping it fails the test (not the session)."""
    from training.run import main

    try:
        return main(argv)
    except KeyboardInterrupt as exc:
        pytest.fail(f"KeyboardInterrupt escaped main: {exc!r}")


def _signal_in(monkeypatch, target: str, name: str) -> list[bool]:
    """Patch ``target.name`` to receive a real SIGINT when first called (then run as before)."""
    import importlib

    module = importlib.import_module(target)
    original = getattr(module, name)
    hit: list[bool] = []

    def interrupted(*args, **kwargs):
        if not hit:
            hit.append(True)
            os.kill(os.getpid(), signal.SIGINT)
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, interrupted)
    return hit


def test_a_signal_before_the_model_exists_says_so_and_exits_130(tmp_path, monkeypatch, capfd):
    hit = _signal_in(monkeypatch, "training.run", "build_env")
    assert _main(["--config", str(_config(tmp_path, TINY))]) == 130
    assert hit
    err = capfd.readouterr().err
    assert "interrupted by SIGINT before training started: no model yet, nothing saved" in err
    assert "Traceback" not in err
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())


def test_a_signal_during_pretraining_says_nothing_is_trained_and_the_run_starts_again(tmp_path, monkeypatch, capfd):
    from training.run import INTERRUPTED_FILE

    hit = _signal_in(monkeypatch, "training.pretrain", "record_teacher_games")
    assert _main(["--config", str(_config(tmp_path, TINY))]) == 130
    assert hit
    err = capfd.readouterr().err
    assert "interrupted by SIGINT during pretraining: no model trained yet" in err and "Traceback" not in err
    checkpoint, command = _report(err)
    assert checkpoint is None and command is not None
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert command[1:] == ["-m", "training.run", "--resume", str(run_dir)]
    assert (run_dir / INTERRUPTED_FILE).is_file() and not (run_dir / "checkpoints").exists()
    # the command runs the whole run again in its folder: pretraining, PPO, evaluation
    assert _main(command[3:]) == 0
    out = capfd.readouterr().out
    assert "starting the interrupted run again in its folder" in out and "pretraining: recording 4 games" in out
    assert (run_dir / "eval.json").is_file() and not (run_dir / INTERRUPTED_FILE).exists()
    assert list((tmp_path / "runs").iterdir()) == [run_dir]


def test_a_signal_during_the_evaluation_keeps_the_final_model_and_resuming_evaluates_it(tmp_path, monkeypatch, capfd):
    import json

    from training.run import INTERRUPTED_FILE, zip_timesteps

    hit = _signal_in(monkeypatch, "training.run", "evaluate")
    assert _main(["--config", str(_config(tmp_path, TINY))]) == 130
    assert hit
    err = capfd.readouterr().err
    assert "interrupted by SIGINT during the evaluation (training finished at step 256)" in err
    assert "Traceback" not in err
    checkpoint, command = _report(err)
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert checkpoint == run_dir / "model.zip" and command[3:] == ["--resume", str(checkpoint)]
    _plays(checkpoint)
    assert not (run_dir / "eval.json").exists()
    assert _main(command[3:]) == 0
    out = capfd.readouterr().out
    assert "pretraining: finished before the checkpoint, not repeated" in out and "PPO training" not in out
    summary = json.loads((run_dir / "eval.json").read_text())
    assert summary["training"]["timesteps"] == 256 == zip_timesteps(checkpoint)
    assert summary["training"]["resumed_from"] == ["model.zip"]
    assert summary["pretraining"]["teacher"] == "random"  # the interrupted run's report, kept
    assert summary["evaluation"]["random"]["num_games"] == 10
    assert not (run_dir / INTERRUPTED_FILE).exists()


def test_resume_refuses_what_it_cannot_continue(tmp_path):
    """Bad ``--resume`` input is an ``error: --resume: ...`` (exit 2), before anything is written."""
    from training.run import resume_point

    with pytest.raises(ValueError, match="--resume: no run folder or checkpoint at"):
        resume_point(tmp_path / "missing")
    with pytest.raises(ValueError, match="not in a run folder"):
        resume_point(tmp_path)
    (tmp_path / "config.yaml").write_text("{}\n")
    with pytest.raises(ValueError, match="nothing to resume from"):
        resume_point(tmp_path)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "model_8_steps.zip").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not an SB3 checkpoint"):
        resume_point(tmp_path)
    (tmp_path / "interrupted.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match=r"interrupted.json. is damaged: not a JSON object"):
        resume_point(tmp_path)
    assert _main(["--resume", str(tmp_path), "--config", "configs/smoke.yaml"]) == 2


def test_two_runs_in_the_same_second_never_share_a_folder(tmp_path, monkeypatch):
    """The folder is claimed with an exclusive mkdir: another run taking the name between a
    check and the creation (two processes racing) makes this one take the next suffix."""
    from training.config import load_config
    from training.run import make_run_dir

    monkeypatch.setattr(time, "strftime", lambda fmt: "20250101-120000")
    cfg = load_config(None, [f"runs_dir={tmp_path}"])
    first, second = make_run_dir(cfg), make_run_dir(cfg)
    assert first != second and first.is_dir() and second.is_dir()

    rival: list[Path] = []
    real_mkdir = Path.mkdir

    def racing_mkdir(self, *args, **kwargs):
        if self.parent == tmp_path and not rival and not self.exists():
            real_mkdir(self)  # the other run wins the race for this name
            rival.append(self)
        return real_mkdir(self, *args, **kwargs)

    monkeypatch.setattr(Path, "mkdir", racing_mkdir)
    third = make_run_dir(cfg)
    assert rival and third != rival[0] and third not in (first, second) and third.is_dir()


def test_play_out_workers_leave_ctrl_c_to_the_run():
    """A terminal's Ctrl-C reaches the play-out workers too; they ignore it from their start (the
    run terminates the pool) instead of each printing a KeyboardInterrupt traceback."""
    from training import rollout_q

    previous = signal.getsignal(signal.SIGINT)
    probe = [sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN)"]
    with rollout_q.workers_ignore_sigint():  # as the pool's spawned interpreters start
        started = subprocess.run(probe, capture_output=True, text=True, timeout=60)
    assert started.stdout.strip() == "True", started.stderr
    assert signal.getsignal(signal.SIGINT) is previous  # the run's own handler is back
    try:
        rollout_q._worker_init([], None, None, 0, None)  # a worker started again later
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)
        rollout_q._WORKER.clear()
