"""Monki's push-your-luck report (:mod:`monkey_envs.monki.analytics`): what a seat can count.

Built positions check the bust chance exactly (rule: a second token of a fruit already flipped
this turn busts; golden tokens never do; the next token of a stack is any unseen token of the
colour on its back). Random play checks the observation-only reading against the true state:
the stacks it may flip are the mask's, the bust chance is the share of doubles among the truly
hidden tokens of that colour, a ruby takes what the rules' ``ruby_takes`` says.

Default square layout: stack 0 at cell (0, 1), stack 2 at (2, 0); a Monki on (0, 0) sees both.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from agents.evaluate import decision_report
from monkey_envs.monki import Monki
from monkey_envs.monki import data as D
from monkey_envs.monki.analytics import BUST_BINS, PublicView, bust_bin, push_your_luck, push_your_luck_markdown

G = Monki()
BANANA, FIG, PINEAPPLE, GRAPES = range(4)


def view_of(s) -> PublicView:
    return PublicView(G, G.observe(s, s.current_player.astype(np.int64)))


def flipping(stacks: dict, face_up: list[int], boards=None, rubies=None, phase: str = "flipping"):
    """Only the named stacks hold tokens; every other token lies on statue 3 (seen by both)."""
    empty = {k: [] for k in range(D.NUM_STACKS)}
    return G.position(
        stacks={**empty, **stacks},
        face_up=face_up,
        boards=boards,
        rubies=rubies,
        monkis=[(0, 0), (5, 5)],
        phase=phase,
        overflow_statue=3,
    )


def test_bust_chance_counts_the_unseen_tokens_of_the_stacks_colour():
    # banana flipped (face up on stack 0); unseen: green fig (under it), green banana, blue fig,
    # green grapes (stack 2, green top) -> green unseen 3, of which 1 banana: P(bust) = 1/3
    s = flipping({0: ["green fig", "green banana"], 2: ["green banana", "blue fig", "green grapes"]}, [0])
    v = view_of(s)
    assert v.flipped[0].tolist() == [True, False, False, False]
    assert v.flippable[0].tolist() == [k == 2 for k in range(D.NUM_STACKS)]  # stack 0 is face up
    assert Fraction(float(v.bust_chance()[0, 2])).limit_denominator(100) == Fraction(1, 3)
    assert v.safest_bust_chance()[0] == pytest.approx(1 / 3, abs=1e-12)
    assert v.kept_if_pass()[0] == 1  # the green banana fills an empty space
    assert int(v.unseen[0].sum()) == 4  # the 34 statue tokens and the face-up banana are seen


def test_golden_tokens_never_bust_but_count_among_the_unseen():
    # banana face up; blue unseen: golden fig, banana, fig, grapes -> P = 1/4 on the blue stack 2
    s = flipping({0: ["blue golden fig", "green banana"], 2: ["blue banana", "blue fig", "blue grapes"]}, [0])
    v = view_of(s)
    assert v.top_colour[0, 2] == 1
    assert v.bust_chance()[0, 2] == pytest.approx(0.25, abs=1e-12)
    # two fruits face up (banana on 0, fig on 2): the next stack 5 (blue) busts on banana or fig
    s = flipping(
        {0: ["green banana"], 2: ["blue golden banana", "green fig"], 5: ["blue banana", "blue fig", "blue grapes"]},
        [0, 2],
    )
    v = view_of(s)
    assert v.flipped[0].tolist() == [True, True, False, False]
    # blue unseen: golden banana (under stack 2), banana, fig, grapes; doubles: banana, fig -> 2/4
    assert v.bust_chance()[0, 5] == pytest.approx(0.5, abs=1e-12)


def test_nothing_flipped_means_no_bust_risk():
    s = flipping({2: ["green banana", "green banana", "green banana"]}, [], phase="collect")
    v = view_of(s)
    assert v.flippable[0, 2] and v.bust_chance()[0, 2] == 0.0
    assert bust_bin(v.safest_bust_chance())[0] == 0


def test_bust_bins_are_half_open_and_nan_is_no_bin():
    p = np.array([0.0, 1e-9, 0.1, 0.1000001, 0.5, 0.75, 1.0, np.nan])
    assert bust_bin(p).tolist() == [0, 1, 1, 2, 5, 6, 6, -1]
    assert len(BUST_BINS) == 7


def test_ruby_take_one_token_per_empty_space_golden_included():
    # statue 0 of the board the Monki stands on (board 0): 2 green bananas, a blue banana, both
    # golden bananas; seat 0 already has the blue banana -> the banana ruby takes 1 green + 1 golden
    s = G.position(
        statues={0: ["green banana", "green banana", "blue banana", "green golden banana", "blue golden banana"]},
        boards=[["blue banana"], []],
        monkis=[(0, 0), (5, 5)],
        phase="collect",
    )
    v = view_of(s)
    t = v.ruby_takes(v.own_board())
    assert v.own_board()[0] == 0
    assert t[0, BANANA].tolist() == [2, 1]
    assert G.ruby_takes(s, np.array([0]))[0, BANANA].sum() == 2  # the rules agree


def _hidden_truth(s, row: int, stack: int) -> float:
    """The share of doubles among the truly hidden tokens of the colour of ``stack``'s top."""
    h = G.heights(s.stacks[row : row + 1])[0]
    top = s.stacks[row, stack, h[stack] - 1]
    colour = D.TOKEN_COLOUR[top]
    hidden = []
    for k in range(D.NUM_STACKS):
        n = h[k] - (1 if s.face_up[row, k] else 0)
        hidden += s.stacks[row, k, :n].tolist()
    hidden = [t for t in hidden if D.TOKEN_COLOUR[t] == colour]
    up = {int(D.TOKEN_FRUIT[s.stacks[row, k, h[k] - 1]]) for k in range(D.NUM_STACKS) if s.face_up[row, k]}
    dup = [t for t in hidden if not D.TOKEN_GOLDEN[t] and D.TOKEN_FRUIT[t] in up]
    return len(dup) / len(hidden)


def test_reading_matches_the_true_state_during_random_play():
    rng = np.random.default_rng(0)
    s = G.init(np.arange(24))
    checked = 0
    for _ in range(400):
        live = ~(s.terminated | s.truncated)
        if not live.any():
            break
        rows = np.flatnonzero(live)
        sub = s.take(rows)
        v = view_of(sub)
        flips = sub.legal_action_mask[:, G.A_FLIP : G.A_PASS]
        collecting = np.isin(sub.phase, (2, 3))
        assert (v.flippable[collecting] == flips[collecting]).all()
        p = v.bust_chance()
        for i in np.flatnonzero(collecting):
            for k in np.flatnonzero(flips[i]):
                assert p[i, k] == pytest.approx(_hidden_truth(sub, i, k), abs=1e-12)
                checked += 1
        cp = sub.current_player.astype(np.int64)
        truth = G.ruby_takes(sub, cp)  # (n, 4, 40)
        placed = v.pos[:, 0] >= 0
        got = v.ruby_takes(v.own_board())
        assert (got[placed, :, 0] == truth[placed].sum(2)).all()
        assert (got[placed, :, 1] == (truth[placed] & D.TOKEN_GOLDEN[None, None]).sum(2)).all()
        acts = np.zeros(s.batch_size, np.int64)
        m = s.legal_action_mask[rows]
        acts[rows] = [rng.choice(np.flatnonzero(r)) for r in m]
        s = G.step(s, acts)
    assert checked > 200


def test_report_tables_count_each_decision_once():
    s = flipping({0: ["green fig", "green banana"], 2: ["green banana", "blue fig", "green grapes"]}, [0])
    obs = np.repeat(G.observe(s, np.array([0])), 3, 0)
    acts = np.array([G.A_FLIP + 2, G.A_PASS, G.A_PASS])
    out = push_your_luck(G, obs, acts)
    fa = out["flip_again"]
    assert fa["decisions"] == 3 and fa["rate"] == pytest.approx(1 / 3)
    row = next(r for r in fa["by_bust_chance"] if r["decisions"])
    assert row["context"] == "(0.3, 0.4]" and row["yes"] == 1 and row["mean_bust_chance"] == pytest.approx(1 / 3)
    assert out["ruby_use"]["decisions"] == 0 and out["skip"]["decisions"] == 0
    assert "flip-again rate 33.3%" in push_your_luck_markdown(out)


def test_ruby_and_skip_tables():
    coll = G.position(statues={0: ["green banana", "green golden banana"]}, monkis=[(0, 0), (5, 5)], phase="collect")
    start = G.position(
        statues={1: ["blue fig", "blue grapes"]},
        rubies=[[True, False, True, False], [True] * 4],
        monkis=[(0, 0), (5, 5)],
        phase="start",
    )
    obs = np.concatenate([G.observe(coll, np.array([0])), G.observe(start, np.array([0]))])
    out = push_your_luck(G, obs, np.array([G.A_RUBY + BANANA, G.A_SKIP]))
    ru, sk = out["ruby_use"], out["skip"]
    assert ru["decisions"] == 1 and ru["rate"] == 1.0
    assert [r["decisions"] for r in ru["by_best_take"]][2] >= 1  # 2 bananas (1 golden), maybe more
    assert ru["by_golden_in_reach"][1]["yes"] == 1
    assert sk["by_rubies_left"][2]["yes"] == 1  # two rubies usable
    # a spent fig or grapes ruby would take at least one token from statue 1
    assert sum(r["yes"] for r in sk["by_spent_ruby_best_take"][1:]) == 1


def test_decision_report_hook_end_to_end():
    title, data, text = decision_report(G, "random", ["random"], 8, seed=3, name="random")
    assert title and data["games"] == 8 and data["agent"] == "random"
    for part, table in (("flip_again", "by_bust_chance"), ("ruby_use", "by_best_take"), ("skip", "by_rubies_left")):
        assert sum(r["decisions"] for r in data[part][table]) == data[part]["decisions"]
    assert data["flip_again"]["decisions"] > 0 and "| P(bust) |" in text


def test_bad_input_is_refused():
    s = G.init(np.arange(2))
    obs = G.observe(s, np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="obs must have shape"):
        push_your_luck(G, obs, np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="obs must have shape"):
        PublicView(G, obs[:, :-1])


def test_comparison_table_puts_agents_side_by_side(tmp_path, capsys):
    from monkey_envs.monki.analytics import comparison_markdown, main

    s = flipping({0: ["green fig", "green banana"], 2: ["green banana", "blue fig", "green grapes"]}, [0])
    obs = np.repeat(G.observe(s, np.array([0])), 2, 0)
    a = push_your_luck(G, obs, np.array([G.A_FLIP + 2, G.A_PASS]))
    b = push_your_luck(G, obs, np.array([G.A_PASS, G.A_PASS]))
    text = comparison_markdown({"a": a, "b": b})
    assert "| (0.3, 0.4] | 50.0% (2) | 0.0% (2) |" in text
    assert "| 0 | " not in text.split("\n\n")[0]  # a bin nobody met is left out
    import json

    (tmp_path / "a.json").write_text(json.dumps(a))
    assert main([f"a={tmp_path / 'a.json'}"]) == 0 and "50.0% (2)" in capsys.readouterr().out
    assert main(["no-name.json"]) == 2
