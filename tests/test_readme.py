"""Every ```python example in README.md runs as written (a new user's first check)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), flags=re.S)


def test_readme_has_examples():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_example_runs(index, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    code = BLOCKS[index]
    exec(compile(code, f"README.md example {index}", "exec"), {"__name__": f"readme_example_{index}"})
