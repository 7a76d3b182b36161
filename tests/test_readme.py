"""Every ```python example in README.md and docs/*.md runs as written (a new user's first check)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_ALL = [
    (page, i, code)
    for page in PAGES
    for i, code in enumerate(re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S))
]
# a snippet shown on two pages (the README repeats a few of docs/usage.md) runs once
BLOCKS = [b for n, b in enumerate(_ALL) if all(b[2] != other[2] for other in _ALL[:n])]


def test_readme_has_examples():
    assert len(BLOCKS) >= 6


@pytest.mark.parametrize("page,index,code", BLOCKS, ids=[f"{p.relative_to(ROOT)}#{i}" for p, i, _ in BLOCKS])
def test_readme_example_runs(page, index, code, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    name = f"{page.relative_to(ROOT)} example {index}"
    exec(compile(code, name, "exec"), {"__name__": f"readme_example_{index}"})
