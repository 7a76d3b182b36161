"""The documentation: generated tables are current, the site builds, commands name what exists.

The ``python`` blocks of README.md and docs/*.md run in ``tests/test_readme.py``.
"""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from monkey_envs.core import spec_docs
from monkey_envs.games import GAMES

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
# the games this package ships (other tests register toy games into the same registry)
PACKAGE_GAMES = sorted(name for name, path in GAMES.items() if path.startswith("monkey_envs."))


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_spec_tables_are_current():
    stale = [f"{page.name}: {name}" for page in DOCS for name in spec_docs.stale_blocks(page)]
    assert not stale, f"stale generated tables ({stale}); run: python -m monkey_envs.core.spec_docs docs/*.md"


def test_every_game_has_generated_tables():
    marked = {m[1] for page in DOCS for m in spec_docs.BLOCK.finditer(_text(page))}
    assert PACKAGE_GAMES and set(PACKAGE_GAMES) <= marked, sorted(set(PACKAGE_GAMES) - marked)


def test_a_stale_block_is_reported_and_regenerated(tmp_path, capsys):
    name = PACKAGE_GAMES[0]
    page = tmp_path / "page.md"
    page.write_text(f"# A game\n\n<!-- spec:begin {name} -->\n| hand-edited |\n<!-- spec:end -->\n\nText.\n")
    assert spec_docs.stale_blocks(page) == [name]
    assert spec_docs.main(["--check", str(page)]) == 1
    assert "stale" in capsys.readouterr().out
    assert spec_docs.main([str(page)]) == 0
    assert spec_docs.stale_blocks(page) == []
    text = _text(page)
    assert text.startswith("# A game\n\n") and text.endswith("<!-- spec:end -->\n\nText.\n")
    assert spec_docs.spec_markdown(name) in text


def test_mkdocs_build_strict(tmp_path):
    pytest.importorskip("mkdocs", reason="mkdocs is not installed (pip install -e '.[docs]')")
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml")]
    proc = subprocess.run([*cmd, "-d", str(tmp_path / "site")], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_page_is_in_the_nav_and_linked_from_the_readme():
    yaml = pytest.importorskip("yaml")
    nav = yaml.safe_load(_text(ROOT / "mkdocs.yml"))["nav"]

    def files(entry):
        if isinstance(entry, str):
            yield entry
        elif isinstance(entry, list):
            for item in entry:
                yield from files(item)
        elif isinstance(entry, dict):
            for value in entry.values():
                yield from files(value)

    assert sorted(files(nav)) == sorted(p.name for p in DOCS)
    readme = _text(ROOT / "README.md")
    missing = [p.name for p in DOCS if f"(docs/{p.name}" not in readme]
    assert not missing, f"README links no {missing}"


TIME_RELATIVE = re.compile(
    r"\b(this|previous|last|earlier|later) sessions?\b|\bsessions? ago\b|\btoday\b|\bnow meets\b", re.I
)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_no_time_relative_text_and_no_outside_rules(page):
    text = _text(page)
    found = [m.group(0) for m in TIME_RELATIVE.finditer(text)]
    assert not found, f"time-relative text in {page.name}: {found}"
    assert "shared/rules" not in text, "the rulebooks live outside the repository: summarise on the game page"


def _commands() -> list[tuple[str, str]]:
    """``(page, command)`` of every line of the pages' ``bash`` blocks and of every inline ``python ...``."""
    out = []
    for page in PAGES:
        text = _text(page)
        for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
            for line in block.splitlines():
                line = line.split(" #", 1)[0].strip()
                if line and not line.startswith("#"):
                    out += [(page.name, part.strip()) for part in line.split("&&")]
        out += [(page.name, m) for m in re.findall(r"`((?:PYTHONPATH=\S+ )?python [^`]+)`", text)]
    return out


COMMANDS = _commands()
# where an entry point's options are declared, by the module's top-level folder
_SOURCES = {top: sorted((ROOT / top).rglob("*.py")) for top in ("monkey_envs", "agents", "training", "benchmarks")}


def _declares(path: Path, flag: str) -> bool:
    top = path.relative_to(ROOT).parts[0]
    files = _SOURCES.get(top, [path])
    return any(f'"{flag}"' in f.read_text(encoding="utf-8") for f in files)


def test_pages_have_commands():
    assert len(COMMANDS) >= 30


@pytest.mark.parametrize("page,command", COMMANDS, ids=[f"{p}:{c[:60]}" for p, c in COMMANDS])
def test_command_names_what_exists(page, command):
    """Every command names a module or script of the checkout, existing configs, and options its parser declares.

    (Running them is the job of the suite's own tests of each tool: these train, benchmark or
    play for minutes.)
    """
    words = shlex.split(command.replace("<", "_").replace(">", "_"))
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        words = words[1:]
    if not words or words[0] != "python":
        return  # pip, mkdocs: third-party tools
    if words[1] == "-m":
        module = words[2]
        if module in ("pytest", "pip", "mkdocs"):
            return
        spec = importlib.util.find_spec(module)
        assert spec is not None and spec.origin, f"{page}: no module {module}"
        source, args = Path(spec.origin), words[3:]
    else:
        source, args = ROOT / words[1], words[2:]
        assert source.is_file(), f"{page}: no script {words[1]}"
    for arg in args:
        if re.fullmatch(r"configs/[\w.-]+\.yaml", arg):
            assert (ROOT / arg).is_file(), f"{page}: no config {arg}"
        flag = arg.split("=", 1)[0]
        if re.fullmatch(r"--[a-z][\w-]*", flag) and source.is_relative_to(ROOT):
            assert _declares(source, flag), f"{page}: {source.name} declares no option {flag}"
