"""Recorded playthroughs: every file in ``tests/playthroughs/`` must re-record identically.

A new game (or config) only adds ``*.txt`` files there; see :mod:`monkey_envs.core.playthrough`.
The other tests make sure the check can fail: an altered file, a stale version, bad input.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from monkey_envs.core import playthrough as pt
from monkey_envs.games import game_class

ROOT = Path(__file__).resolve().parents[1]
PLAYTHROUGHS = ROOT / "tests" / "playthroughs"
FILES = sorted(PLAYTHROUGHS.glob("*.txt"))
#: a short recording (solo Monkey Fun ends within 20 decisions) for the tests that alter files
SMALL = ("monkey_fun", {"num_players": 1}, [0])


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the playthrough CLI of this checkout in a fresh interpreter."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run(
        [sys.executable, "-m", "monkey_envs.core.playthrough", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def _small_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.txt"
    path.write_text(pt.record(*SMALL), encoding="utf-8", newline="\n")
    return path


def test_files_exist_for_every_game() -> None:
    """Every registered game has at least one playthrough file."""
    from monkey_envs.games import GAMES

    recorded = {pt.read_header(f.read_text(encoding="utf-8"), str(f))["game"] for f in FILES}
    assert recorded == set(GAMES), f"games without playthroughs: {sorted(set(GAMES) - recorded)}"


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_playthrough_unchanged(path: Path) -> None:
    """The recorded file equals a fresh recording from its own header."""
    pt.check(path)


@pytest.mark.parametrize("path", FILES, ids=[f.name for f in FILES])
def test_file_hygiene(path: Path) -> None:
    """Header names the file's game version; no trailing spaces; size stays modest."""
    text = path.read_text(encoding="utf-8")
    header = pt.read_header(text, str(path))
    assert path.name.startswith(header["game"] + "__")
    assert not [i for i, line in enumerate(text.splitlines(), 1) if line != line.rstrip()]
    assert text.endswith("\n")
    assert len(text.encode()) < 300_000


def test_recording_is_deterministic() -> None:
    """Recording twice gives the same text; the seed matters."""
    a = pt.record(*SMALL)
    assert a == pt.record(*SMALL)
    assert a != pt.record("monkey_fun", {"num_players": 1}, [1])


def test_splitmix64_reference_values() -> None:
    """The policy's generator matches SplitMix64's published first outputs for seed 0."""
    rng = pt.SplitMix64(0)
    assert [rng.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    assert all(0 <= pt.SplitMix64(s).below(7) < 7 for s in range(50))


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (r"^  action: (\d+) ", "  action: 99 "),  # a chosen action
        (r"^  obs: 0=([0-9a-f]{16})", "  obs: 0=0000000000000000"),  # a digest
    ],
    ids=["action", "digest"],
)
def test_altered_file_is_rejected_with_its_line(tmp_path: Path, old: str, new: str) -> None:
    """Changing one line of a recording makes check name that line, expected and got."""
    path = _small_file(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if re.match(old, line)]
    target = hits[len(hits) // 2]
    original = lines[target].rstrip("\n")
    lines[target] = re.sub(old, new, lines[target], count=1)
    path.write_text("".join(lines), encoding="utf-8", newline="\n")
    with pytest.raises(AssertionError) as err:
        pt.check(path)
    msg = str(err.value)
    assert f"line {target + 1}:" in msg
    assert repr(lines[target].rstrip("\n")) in msg  # expected (the file)
    assert repr(original) in msg  # got (the fresh recording)
    assert "bump the game's spec.version" in msg
    assert "python -m monkey_envs.core.playthrough regenerate" in msg


def test_rules_change_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """A changed observation encoding fails the committed file at the first obs line."""
    cls = game_class("monkey_fun")
    original = cls._observe
    monkeypatch.setattr(cls, "_observe", lambda self, state, player: original(self, state, player) * 2)
    path = PLAYTHROUGHS / "monkey_fun__solo.txt"
    first_obs = next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if "obs:" in line)
    with pytest.raises(AssertionError, match=f"differs at line {first_obs}:"):
        pt.check(path)


def test_truncated_file_is_rejected(tmp_path: Path) -> None:
    """A file that ends early reports the first missing line."""
    path = _small_file(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:-5]), encoding="utf-8", newline="\n")
    with pytest.raises(AssertionError, match=f"(?s)line {len(lines) - 4}:\\n  expected \\(file\\): <end of file>"):
        pt.check(path)


def test_stale_version_is_reported(tmp_path: Path) -> None:
    """A header recorded for another spec.version is stale and must be regenerated."""
    path = _small_file(tmp_path)
    current = game_class("monkey_fun").spec.version
    text = path.read_text(encoding="utf-8").replace(f"\nversion: {current}\n", f"\nversion: {current + 1}\n", 1)
    path.write_text(text, encoding="utf-8", newline="\n")
    with pytest.raises(AssertionError, match=r"stale playthrough.*must be regenerated"):
        pt.check(path)
    assert pt.regenerate(path)  # re-records with the current version ...
    pt.check(path)  # ... after which the file is current again
    assert not pt.regenerate(path)


@pytest.mark.parametrize(
    ("edit", "match"),
    [
        (lambda t: t.replace("game: monkey_fun", "game: no_such_game"), "unknown game"),
        (lambda t: t.replace('config: {"num_players": 1}', "config: {num_players"), "damaged header"),
        (lambda t: t.replace('config: {"num_players": 1}', 'config: {"bogus": 1}'), "rejects config"),
        (lambda t: t.replace("format: 1", "format: 99"), "format 99"),
        (lambda t: "hello\n" + t, "is not 'key: value'"),
    ],
    ids=["game", "json", "option", "format", "garbage"],
)
def test_bad_header_is_a_value_error(tmp_path: Path, edit, match: str) -> None:
    """A damaged header raises ValueError (bad input), not AssertionError (changed behaviour)."""
    path = _small_file(tmp_path)
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8", newline="\n")
    with pytest.raises(ValueError, match=match):
        pt.check(path)


def test_record_rejects_bad_arguments() -> None:
    """Unknown games, options, seeds and limits are ValueErrors."""
    with pytest.raises(ValueError, match="unknown game"):
        pt.record("no_such_game", {}, 0)
    with pytest.raises(ValueError, match="rejects config"):
        pt.record("monkey_fun", {"bogus": 1}, 0)
    with pytest.raises(ValueError, match="seeds"):
        pt.record("monkey_fun", {}, [-1])
    with pytest.raises(ValueError, match="max_steps"):
        pt.record("monkey_fun", {}, 0, max_steps=0)


def test_max_steps_cuts_the_game() -> None:
    """A game still running at max_steps says so in its final section."""
    text = pt.record("monkey_fun", {"num_players": 2}, 0, max_steps=3, picture_every=0)
    assert "  steps: 3\n  ended: no (stopped at max_steps=3)\n" in text
    assert text.count("\n  | Monkey Fun") == 2  # the start and the final picture only


def test_cli_record_check_round_trip(tmp_path: Path) -> None:
    """record writes a file that check accepts; an altered copy fails with status 1."""
    out = tmp_path / "solo.txt"
    rec = _cli("record", "--game", "monkey_fun", "--config", '{"num_players": 1}', "--seeds", "0", "1", "-o", str(out))
    assert rec.returncode == 0, rec.stderr
    assert out.read_text(encoding="utf-8") == pt.record("monkey_fun", {"num_players": 1}, [0, 1])
    bad = tmp_path / "bad.txt"
    bad.write_text(out.read_text(encoding="utf-8").replace("  action: ", "  action: 1", 1), encoding="utf-8")
    res = _cli("check", str(out), str(bad))
    assert res.returncode == 1, res.stderr
    assert f"ok {out}" in res.stderr
    assert f"FAIL {bad}: playthrough differs at line" in res.stderr
    assert _cli("regenerate", str(tmp_path)).returncode == 0  # every *.txt of the folder
    assert bad.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    "args",
    [
        ["record", "--game", "no_such_game", "--seeds", "0"],
        ["record", "--game", "monkey_fun", "--config", "{not json", "--seeds", "0"],
        ["record", "--game", "monkey_fun", "--config", '{"num_players": 9}'],
        ["check", "/no/such/playthrough.txt"],
        ["record"],
    ],
    ids=["game", "json", "option", "missing-file", "usage"],
)
def test_cli_bad_input_exits_2(args: list[str]) -> None:
    """Bad input prints a clear error and exits with status 2."""
    res = _cli(*args)
    assert res.returncode == 2, (res.stdout, res.stderr)
    assert "error" in res.stderr
    assert "Traceback" not in res.stderr
