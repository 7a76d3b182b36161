"""Every game explains its text render (issue 22, item 5): ``Game.render_legend`` names what each
mark and word of ``render`` means, the play help (``?``) and ``--legend`` of play and replay print it.

The check of the words and marks plays one random game per game to its end and reads every
render on the way, from every seat and a spectator: a word or a mark that no legend line
explains fails it. The values a render prints (token codes, card kinds, ...) are named per game
below as patterns; the legend explains their alphabet instead.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest

from monkey_envs.games import GAMES, make_game
from monkey_envs.play import play
from monkey_envs.replay import GameRecord, outcome_of, show

#: The games the legend checks run on (their default two-to-four-player configurations).
CONFIGS = {
    "monkey_fun": {"num_players": 2},
    "funky_monkey": {"num_players": 4},
    "monki": {},
    "four_monkeys": {"num_players": 3},
}

#: Issue 22 item 5's examples (and their kin): each must be explained, literally.
NAMED_MARKS = {
    "monkey_fun": ["NN:counts", "'23:", "*X", "'31:02*B'", "<", "'+'", "supply", "box", "discard", "VxN"],
    "monki": ["'b?3'", "'bF3'", "statue N", "'gB'", "' ## '", "' .. '", "rubies", "'-' = used", "lower case"],
    "funky_monkey": ["'tile ?'", "[o]", "[G]", "[ ]", "TIGER", "+golden", "(out)", "[card: 1]", "(truth|bluff)"],
    "four_monkeys": ["'(N cards)'", "[green]", "[orange]", "'(xN)'", "'committed'", "'|'", "pending", "replenish"],
}

#: Values a render prints, by game: they are explained by their alphabet, not word by word.
VALUE_PATTERNS = {
    "monkey_fun": [],
    "funky_monkey": [],
    "monki": [r"\b[gb][BFPGbfpg?]\d*\b", r"(?<!\S)[BFPG-]{4}(?!\S)"],  # token codes, rubies
    "four_monkeys": [r"\b[CTSP]{2}\b"],  # card kinds
}

#: Punctuation of plain prose (and lists) that needs no legend.
PLAIN = set(" \n,:.()[]'/-_")


@pytest.mark.parametrize("name", sorted(GAMES))
def test_every_game_has_a_legend_that_names_its_seats(name):
    game = make_game(name, **CONFIGS.get(name, {}))
    legend = game.render_legend()
    assert isinstance(legend, str) and legend.strip()
    for p in range(game.num_players):
        assert f"{chr(ord('A') + p)} = seat {p}" in legend


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_the_marks_the_issue_names_are_explained(name):
    legend = make_game(name, **CONFIGS[name]).render_legend()
    missing = [mark for mark in NAMED_MARKS[name] if mark not in legend]
    assert not missing, f"{name}'s legend does not explain {missing}:\n{legend}"


def _renders(game, seed: int = 0, every: int = 3, cap: int = 3_000) -> list[str]:
    """Renders of one random game to its end (every ``every``-th position and the last), from
    each seat and a spectator."""
    rng = np.random.default_rng(seed)
    s = game.init(np.array([seed]))
    out = []
    for t in range(cap):
        over = bool(s.terminated[0] or s.truncated[0])
        if t % every == 0 or over:
            out += [game.render(s, 0, viewer=v) for v in (None, *range(game.num_players))]
        if over:
            break
        s = game.step(s, [int(rng.choice(np.flatnonzero(s.legal_action_mask[0])))])
    assert bool(s.terminated[0] or s.truncated[0]), "the random game did not end"
    return out


def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_]{2,}", re.sub(r"(?<=[A-Za-z])x(?=\d)", " x", text)))


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_every_word_and_mark_of_the_render_is_in_the_legend(name):
    """A word or a mark (``*``, ``<``, ``?``, ``+``, ``|``, ...) in some render of a whole game
    that the legend does not contain: the legend misses it."""
    game = make_game(name, **CONFIGS[name])
    legend = game.render_legend()
    known = _words(legend) | _words(game.spec.title)
    words: set[str] = set()
    marks: set[str] = set()
    for text in _renders(game):
        for pattern in VALUE_PATTERNS[name]:
            text = re.sub(pattern, " ", text)
        words |= _words(text)
        marks |= {ch for ch in text if not ch.isalnum() and ch not in PLAIN}
    assert not words - known, f"{name}: render words without a legend entry: {sorted(words - known)}"
    assert not {m for m in marks if m not in legend}, f"{name}: render marks without a legend entry: {marks}"


def test_the_word_check_can_fail():
    """The checker finds a word the legend lacks (so the test above can fail)."""
    assert _words("statue 2: gB  frobnicated x3") - _words("statue N: tokens") == {"frobnicated", "gB"}


def test_question_mark_in_play_prints_the_legend_and_legend_prints_it_once():
    """``?`` at a play prompt shows the help and the game's legend; ``legend=True`` prints the
    legend once at the start."""
    game = make_game("monki")
    legend = game.render_legend()
    out = io.StringIO()
    answers = iter(["?", "q"])
    play(game, ["human", "random"], seed=1, read=lambda prompt: next(answers), out=out)
    text = out.getvalue()
    assert text.count(legend) == 1 and "type the number of a move" in text
    out = io.StringIO()
    play(game, ["human", "random"], seed=1, read=lambda prompt: "q", out=out, legend=True)
    head, _, rest = out.getvalue().partition("legend of the board:\n")
    assert rest.startswith(legend) and "to move" not in head


def test_replay_prints_the_legend_with_legend_and_on_question_mark():
    game = make_game("monkey_fun")
    s = game.init(np.array([3]))
    actions = []
    for _ in range(4):
        a = int(np.flatnonzero(s.legal_action_mask[0])[0])
        actions.append(a)
        s = game.step(s, [a])
    rec = GameRecord(3, ["x", "y"], np.array(actions), outcome_of(game, s, 0, cut=True))
    legend = game.render_legend()
    out = io.StringIO()
    show(game, rec, out=out, legend=True)
    assert out.getvalue().count(legend) == 1
    out = io.StringIO()
    answers = iter(["?", "", "q"])
    assert show(game, rec, out=out, pause=True, read=lambda prompt: next(answers)) is False
    assert out.getvalue().count(legend) == 1 and "move 2: " in out.getvalue()
