"""Issue 22, item 3 (training): two runs started in the same second with the same config never
share a run folder.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")


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
