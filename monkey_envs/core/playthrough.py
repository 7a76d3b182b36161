"""Recorded playthroughs: the exact behaviour of a game pinned as diff-friendly text (after OpenSpiel).

A playthrough file holds one or more seeded games of one game configuration, played by a
deterministic policy, written step by step: the player to move, the legal actions, a digest
of every seat's observation, the chosen action and its name, the rewards and the text
picture. The header holds everything needed to play the same games again, so a file can be
re-recorded from itself and compared line by line: any change of rules, observation
encoding, legal actions, rewards or pictures shows up as a diff that someone must accept on
purpose (by bumping the game's ``spec.version`` and regenerating).

This module uses only the generic game API (:func:`monkey_envs.games.make_game`,
``init``/``step``/``observe``/``render``/``action_name``/``winners``/``episode_info``), so every
registered game gets playthroughs for free: ``tests/test_playthroughs.py`` checks every
``tests/playthroughs/*.txt``, and a new game or config only adds files there.

Policy (``uniform-splitmix64``): at every decision the action is drawn uniformly among the
legal ones, ``legal[(x * n) >> 64]``, where ``legal`` are the indices of
``state.legal_action_mask[0]`` in increasing order, ``n = len(legal)`` and ``x`` is the
next 64-bit output of a SplitMix64 generator started at ``seed``. It is written in plain
Python integers, so it gives the same actions on every machine and with every numpy version
(numpy's ``Generator`` streams are not promised to stay the same across releases). The game
itself is seeded with the same ``seed`` (``game.init([seed])``, batch size 1).

File format (plain text, ``\\n`` line ends, no trailing spaces)::

    # comment lines
    format: 1
    game: monkey_fun
    version: 0                       <- game.spec.version when recorded
    config: {"num_players": 2}       <- the options as given (JSON, sorted keys): a new option
                                        whose default keeps the old behaviour leaves files valid
    seeds: [0, 1]
    max_steps: 500
    picture_every: 1                 <- the picture after every k-th decision (0: final only)
    policy: uniform-splitmix64
    ...                              <- facts of the built game (players, actions, obs size)

    === game 1/2 seed=0 ===
    start
      obs: 0=<16 hex> 1=<16 hex>     <- sha256 of observe(state, seat) as little-endian float32
      | <picture: render(state, 0, viewer=None), each line prefixed and right-stripped>
    step 0
      player: 0
      legal: [0, 1, 2]
      action: 2 (play 1+3 = 4)
      rewards: +0.000000 +0.000000  <- state.rewards after the step, fixed notation
      obs: ...                       <- every seat's observation after the step
      | <picture after the step>
    ...
    final
      ...                            <- steps, ended/max_steps, returns, winners, episode_info, picture

Usage::

    # record (several seeds of one config in one file)
    python -m monkey_envs.core.playthrough record --game monkey_fun --config '{"num_players": 2}' \\
        --seeds 0 1 2 -o tests/playthroughs/monkey_fun__2p.txt
    # compare files (or every *.txt in a directory) with a fresh recording; exit 1 on a difference
    python -m monkey_envs.core.playthrough check tests/playthroughs
    # after an intended rules change (bump spec.version first): re-record every file from its header
    python -m monkey_envs.core.playthrough regenerate tests/playthroughs

From Python: :func:`record` returns the text, :func:`check` raises ``AssertionError`` naming
the first differing line. Bad input (unknown game, bad JSON, rejected options, a file that is
not a playthrough) raises ``ValueError``; the CLI then exits with status 2.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from monkey_envs.core.registry import make_game

#: Version of the file layout written by :func:`record`.
FORMAT = 1
#: Name of the (only) policy; written into every header.
POLICY = "uniform-splitmix64"
#: Default decision cap of one game.
DEFAULT_MAX_STEPS = 500
#: Hex characters kept of each observation digest.
DIGEST_CHARS = 16
#: How to fix a deliberate change; part of every mismatch message.
REGENERATE_HINT = (
    "rules or encodings changed: if on purpose, bump the game's spec.version and regenerate with "
    "`python -m monkey_envs.core.playthrough regenerate <dir>`"
)

_MASK64 = (1 << 64) - 1
_HEADER_KEYS = ("format", "game", "version", "config", "seeds", "max_steps", "picture_every", "policy")


class SplitMix64:
    """SplitMix64 (Steele, Lea, Flood 2014) in plain Python integers: the same stream everywhere."""

    def __init__(self, seed: int) -> None:
        self.state = int(seed) & _MASK64

    def next(self) -> int:
        """The next 64-bit output."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """An integer in ``[0, n)`` (multiply-shift; the bias is below ``n / 2**64``)."""
        if n <= 0:
            raise ValueError(f"below() needs n >= 1, got {n}")
        return (self.next() * n) >> 64


# ---------------------------------------------------------------------------- recording
def _canonical_config(config: dict[str, Any]) -> str:
    if not isinstance(config, dict):
        raise ValueError(f"config must be a JSON object (dict of game options), got {config!r}")
    try:
        return json.dumps(config, sort_keys=True)
    except TypeError as e:
        raise ValueError(f"config must be JSON-serialisable: {e}") from e


def _build(game_name: str, config: dict[str, Any]) -> Any:
    try:
        return make_game(game_name, **config)
    except TypeError as e:  # an option the game's constructor does not take
        raise ValueError(f"game {game_name!r} rejects config {config!r}: {e}") from e


def _digest(obs: np.ndarray) -> str:
    flat = np.ascontiguousarray(np.asarray(obs, dtype="<f4")) + np.float32(0.0)  # -0.0 -> +0.0
    return hashlib.sha256(flat.astype("<f4").tobytes()).hexdigest()[:DIGEST_CHARS]


def _obs_line(game: Any, state: Any) -> str:
    return "  obs: " + " ".join(f"{seat}={_digest(game.observe(state, seat))}" for seat in range(game.num_players))


def _num(x: float) -> str:
    return f"{float(x) + 0.0:+.6f}"  # + 0.0 turns -0.0 into 0.0


def _plain(x: Any) -> Any:
    """JSON stand-in for numpy values in ``episode_info`` dicts."""
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    raise TypeError(f"episode_info value {x!r} ({type(x).__name__}) is not JSON-serialisable")


def _picture(game: Any, state: Any) -> list[str]:
    text = game.render(state, 0, viewer=None)
    return [("  | " + line).rstrip() for line in str(text).splitlines()]


def _header(
    game: Any, game_name: str, config_json: str, seeds: list[int], max_steps: int, picture_every: int
) -> list[str]:
    return [
        "# monkey-envs playthrough: generated by monkey_envs.core.playthrough -- do not edit by hand.",
        "# Re-record with `python -m monkey_envs.core.playthrough regenerate <this file>`.",
        f"format: {FORMAT}",
        f"game: {game_name}",
        f"version: {int(game.spec.version)}",
        f"config: {config_json}",
        f"seeds: {json.dumps(seeds)}",
        f"max_steps: {max_steps}",
        f"picture_every: {picture_every}",
        f"policy: {POLICY}",
        f"# {POLICY}: rng = SplitMix64(seed); each decision plays legal[(rng.next() * len(legal)) >> 64]",
        f"# players: {int(game.num_players)}  actions: {int(game.num_actions)}  obs_dim: {int(game.obs_dim)}",
        "",
    ]


def _play(game: Any, seed: int, index: int, count: int, max_steps: int, picture_every: int) -> list[str]:
    out = [f"=== game {index}/{count} seed={seed} ==="]
    rng = SplitMix64(seed)
    state = game.init([seed])
    returns = np.zeros(game.num_players, dtype=np.float64)
    out += ["start", _obs_line(game, state), *_picture(game, state)]
    steps = 0
    while not bool(state.terminated[0]) and steps < max_steps:
        legal = np.flatnonzero(state.legal_action_mask[0])
        player = int(state.current_player[0])
        if legal.size == 0:
            raise RuntimeError(f"{game!r} seed {seed}: no legal action at decision {steps} of a running game")
        action = int(legal[rng.below(int(legal.size))])
        name = game.action_name(state, 0, action)
        state = game.step(state, np.array([action], dtype=np.int64))
        rewards = np.asarray(state.rewards[0], dtype=np.float64)
        returns += rewards
        out += [
            f"step {steps}",
            f"  player: {player}",
            f"  legal: {json.dumps(legal.tolist())}",
            f"  action: {action} ({name})",
            "  rewards: " + " ".join(_num(r) for r in rewards),
            _obs_line(game, state),
        ]
        steps += 1
        if picture_every and steps % picture_every == 0 and not bool(state.terminated[0]):
            out += _picture(game, state)
    ended = bool(state.terminated[0])
    winners = np.flatnonzero(np.asarray(game.winners(state))[0]).tolist()
    out += [
        "final",
        f"  steps: {steps}",
        f"  ended: {'yes' if ended else f'no (stopped at max_steps={max_steps})'}",
        f"  current_player: {int(state.current_player[0])}",
        "  returns: " + " ".join(_num(r) for r in returns),
        f"  winners: {json.dumps(winners)}",
        f"  info: {json.dumps(game.spec.readable_info(game.episode_info(state, 0)), sort_keys=True, default=_plain)}",
        *_picture(game, state),
        "",
    ]
    return out


def record(
    game_name: str,
    config: dict[str, Any],
    seed: int | Sequence[int],
    max_steps: int = DEFAULT_MAX_STEPS,
    picture_every: int = 1,
) -> str:
    """The playthrough text of the games ``seed`` (one int or several) of ``game_name`` with ``config``.

    Args:
        game_name: a name registered in :data:`monkey_envs.games.GAMES`.
        config: the game's options, e.g. ``{"num_players": 2}`` (JSON-serialisable).
        seed: one seed or a sequence of seeds; each is one game (batch size 1) seeding both the
            game and the policy (see the module docstring).
        max_steps: decisions per game at most; a game still running then is cut there.
        picture_every: write the picture after every ``k``-th decision (0: only at the start and end).

    Returns:
        The full file text (header, then one section per seed), ending in a newline.

    Raises:
        ValueError: unknown game, options the game rejects, bad seeds or limits.
    """
    seeds = [seed] if isinstance(seed, (int, np.integer)) else list(seed)
    if not seeds:
        raise ValueError("record needs at least one seed")
    for s in seeds:
        if isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 0:
            raise ValueError(f"seeds must be non-negative integers, got {s!r}")
    seeds = [int(s) for s in seeds]
    for label, value, low in (("max_steps", max_steps, 1), ("picture_every", picture_every, 0)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{label} must be an integer >= {low}, got {value!r}")
    config_json = _canonical_config(config)
    game = _build(game_name, json.loads(config_json))
    lines = _header(game, game_name, config_json, seeds, int(max_steps), int(picture_every))
    for i, s in enumerate(seeds):
        lines += _play(game, s, i + 1, len(seeds), int(max_steps), int(picture_every))
    return "\n".join(lines)


# ---------------------------------------------------------------------------- reading back
def read_header(text: str, source: str = "<text>") -> dict[str, Any]:
    """The recording parameters of a playthrough text (``format``, ``game``, ``version``, ...).

    Raises:
        ValueError: the text is not a playthrough file of a format this module reads.
    """
    fields: dict[str, str] = {}
    for line in text.splitlines():
        if not line.strip():
            break
        if line.startswith("#"):
            continue
        key, sep, value = line.partition(": ")
        if not sep:
            raise ValueError(f"{source}: header line {line!r} is not 'key: value'")
        fields[key] = value
    missing = [k for k in _HEADER_KEYS if k not in fields]
    if missing:
        raise ValueError(f"{source}: not a playthrough file (header lacks {missing})")
    try:
        header = {
            "format": int(fields["format"]),
            "game": fields["game"],
            "version": int(fields["version"]),
            "config": json.loads(fields["config"]),
            "seeds": json.loads(fields["seeds"]),
            "max_steps": int(fields["max_steps"]),
            "picture_every": int(fields["picture_every"]),
            "policy": fields["policy"],
        }
    except ValueError as e:  # json.JSONDecodeError is a ValueError
        raise ValueError(f"{source}: damaged header: {e}") from e
    if header["format"] != FORMAT:
        raise ValueError(f"{source}: playthrough format {header['format']}; this version reads format {FORMAT}")
    if header["policy"] != POLICY:
        raise ValueError(f"{source}: unknown policy {header['policy']!r}; this version plays {POLICY!r}")
    if not isinstance(header["seeds"], list):
        raise ValueError(f"{source}: seeds must be a JSON list, got {fields['seeds']!r}")
    return header


def _rerecord(text: str, source: str) -> tuple[dict[str, Any], str]:
    h = read_header(text, source)
    fresh = record(h["game"], h["config"], h["seeds"], h["max_steps"], h["picture_every"])
    return h, fresh


def check(path: str | Path) -> None:
    """Re-record the playthrough file ``path`` from its header and compare it exactly.

    Raises:
        AssertionError: the file is stale (recorded for another ``spec.version``) or a line
            differs; the message names the first differing line (number, expected, got) and
            how to regenerate.
        ValueError: the file is not a playthrough, or its header names an unknown game/options.
        OSError: the file cannot be read.
    """
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    h = read_header(text, str(path))
    game = _build(h["game"], h["config"])
    current = int(game.spec.version)
    if h["version"] != current:
        raise AssertionError(
            f"{path}: stale playthrough: recorded for {h['game']} version {h['version']}, the game is now "
            f"version {current}; it must be regenerated with "
            f"`python -m monkey_envs.core.playthrough regenerate {path}`"
        )
    _, fresh = _rerecord(text, str(path))
    want, got = text.splitlines(), fresh.splitlines()
    for i in range(max(len(want), len(got))):
        w = repr(want[i]) if i < len(want) else "<end of file>"
        g = repr(got[i]) if i < len(got) else "<end of the new recording>"
        if w != g:
            raise AssertionError(
                f"{path}: playthrough differs at line {i + 1}:\n  expected (file): {w}\n  got (now):       {g}\n"
                f"{REGENERATE_HINT}"
            )


def regenerate(path: str | Path) -> bool:
    """Re-record ``path`` from its own header (with the game's current version); True if it changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    _, fresh = _rerecord(text, str(path))
    if fresh == text:
        return False
    path.write_text(fresh, encoding="utf-8", newline="\n")
    return True


def playthrough_files(paths: Iterable[str | Path]) -> list[Path]:
    """Files named in ``paths``, each directory expanded to its ``*.txt`` files (sorted).

    Raises:
        ValueError: a path does not exist, or nothing was found.
    """
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(p.glob("*.txt"))
        elif p.is_file():
            out.append(p)
        else:
            raise ValueError(f"no such file or directory: {p}")
    if not out:
        raise ValueError(f"no playthrough files (*.txt) in {[str(p) for p in paths]}")
    return out


# ---------------------------------------------------------------------------- CLI
def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m monkey_envs.core.playthrough",
        description="Record, check and regenerate playthrough files (see the module docstring).",
    )
    sub = ap.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="record seeded games of one config into one file")
    rec.add_argument("--game", required=True, help="a registered game name (monkey_envs.games.GAMES)")
    rec.add_argument("--config", default="{}", help="game options as a JSON object, e.g. '{\"num_players\": 2}'")
    rec.add_argument("--seeds", type=int, nargs="+", default=[0], help="one game per seed (default: 0)")
    rec.add_argument("--max-steps", type=int, default=DEFAULT_MAX_STEPS, help="decision cap per game")
    rec.add_argument("--picture-every", type=int, default=1, help="picture after every k-th decision (0: ends only)")
    rec.add_argument("-o", "--output", help="file to write (default: standard output)")
    for name, helptext in (
        ("check", "re-record files from their headers and compare; exit 1 on a difference"),
        ("regenerate", "re-record files from their headers and overwrite them"),
    ):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("paths", nargs="+", help="playthrough files or directories of *.txt files")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (0 fine, 1 a check failed, 2 bad input)."""
    args = _parser().parse_args(argv)  # usage errors exit 2 (argparse)
    try:
        if args.command == "record":
            try:
                config = json.loads(args.config)
            except json.JSONDecodeError as e:
                raise ValueError(f"--config is not valid JSON ({e}): {args.config!r}") from e
            text = record(args.game, config, args.seeds, args.max_steps, args.picture_every)
            if args.output:
                Path(args.output).write_text(text, encoding="utf-8", newline="\n")
                print(f"wrote {args.output} ({len(text.encode())} bytes)", file=sys.stderr)
            else:
                sys.stdout.write(text)
            return 0
        files = playthrough_files(args.paths)
        if args.command == "regenerate":
            for f in files:
                print(f"{'rewrote' if regenerate(f) else 'unchanged'} {f}", file=sys.stderr)
            return 0
        failed = 0
        for f in files:
            try:
                check(f)
            except AssertionError as e:
                failed += 1
                print(f"FAIL {e}", file=sys.stderr)
            else:
                print(f"ok {f}", file=sys.stderr)
        return 1 if failed else 0
    except (ValueError, OSError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
