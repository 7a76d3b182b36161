"""Monki rules, one scenario per rule: build a position, apply actions, check the exact outcome.

Default square layout (cells ``row * 6 + col``), pot stacks 0..11 at cells
``[1, 8, 12, 11, 16, 3, 34, 27, 23, 24, 19, 32]`` (boards 0..3: top-left, top-right,
bottom-right, bottom-left; stacks ``3b .. 3b + 2`` on board ``b``).
"""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.monki import Monki
from monkey_envs.monki import data as D
from monkey_envs.monki.rules import parse_token
from monkey_envs.monki.state import END_FRUITS, END_GOLDEN, END_TURN_CAP, PHASE_FLIPPING, PHASE_START

G = Monki()
FLIP, PASS, SKIP, RUBY, MOVE = G.A_FLIP, G.A_PASS, G.A_SKIP, G.A_RUBY, G.A_MOVE
BANANA, FIG, PINEAPPLE, GRAPES = range(4)


def step(g: Monki, s, *actions: int):
    for a in actions:
        assert s.legal_action_mask[0, a], f"{g.action_name(s, 0, a)} is not legal"
        s = g.step(s, np.array([a]))
        assert not g.state_violations(s), g.state_violations(s)
    return s


def owned(s, seat: int) -> set[int]:
    return set(np.flatnonzero(s.owner[0] == seat).tolist())


def tid(name: str) -> int:
    return parse_token(name)


def test_spec_and_action_space():
    assert G.spec.name == "monki" and G.spec.default_players == (2,)
    assert G.num_actions == 2 * 36 + 18 == 90
    assert set(G.obs_layout.slices) >= {"boards", "rubies", "monki", "stacks", "statues", "phase", "turn"}
    assert D.KIND_TOTAL.sum() == 40 and (D.KIND_TOTAL[[0, 1, 2, 3, 8, 9, 10, 11]] == 4).all()


def test_setup_deal_order_and_placement():
    s = G.init(np.arange(8))
    assert (G.heights(s.stacks) == 3).all() and ((s.statue >= 0).sum(1) == 4).all()
    for b in range(4):  # one token per statue
        assert ((s.statue == b).sum(1) == 1).all()
    assert (s.phase == 0).all() and (s.current_player == s.start_player).all()
    mask = s.legal_action_mask[0, :36]
    assert mask.sum() == 36 - 12 and not mask[G.layout.stack_cell].any()  # any free non-pot cell
    sp = int(s.start_player[0])
    s1 = G.step(s.take([0]), np.array([0]))
    assert s1.current_player[0] == 1 - sp and not s1.legal_action_mask[0, 0]  # taken cell
    s2 = G.step(s1, np.array([35]))
    assert s2.phase[0] == PHASE_START and s2.current_player[0] == sp and s2.turns[0] == 0


def test_thomas_bust_example():
    """Rulebook: banana, golden banana (to the statue, no double), pineapple, pineapple: bust."""
    s = G.position(
        stacks={
            0: ["blue grapes", "green banana"],
            1: ["blue pineapple", "blue golden banana"],
            10: ["green pineapple"],
        },
        monkis=[7, 35],
        phase="collect",
    )
    s = step(G, s, FLIP + 0)  # banana
    s = step(G, s, FLIP + 1)  # golden banana: straight to statue 0, the pineapple beneath is the new top
    assert s.statue[0, tid("blue golden banana")] == 0 and s.phase[0] == PHASE_FLIPPING
    assert s.legal_action_mask[0, FLIP + 1] and s.legal_action_mask[0, PASS]
    s = step(G, s, FLIP + 1)  # pineapple: he could pass now
    assert s.legal_action_mask[0, PASS]
    s = step(G, s, FLIP + 10)  # another pineapple: a double
    assert s.statue[0, tid("green banana")] == 0 and s.statue[0, tid("blue pineapple")] == 0
    assert s.statue[0, tid("green pineapple")] == 3  # each to the statue of its own board
    assert owned(s, 0) == set() and s.current_player[0] == 1 and s.phase[0] == PHASE_START
    assert not s.face_up.any() and s.turns[0] == 1
    st = G.episode_stats(s)
    assert st["busts"][0, 0] == 1 and st["flips"][0, 0] == 4 and st["golden_flips"][0, 0] == 1
    assert st["temple_visits"][0, 0] == 1


def test_sara_statue_example():
    """Rulebook: the banana ruby takes the golden banana and the green banana, leaves the blue one."""
    s = G.position(
        statues={0: ["green golden banana", "green banana", "blue banana"]},
        boards=[["blue banana"], []],
        monkis=[7, 35],
        phase="collect",
        overflow_statue=2,
    )
    on_statue_blue = tid("blue banana")  # the statue took the first copy, the board the second
    on_board_blue = int(np.flatnonzero(s.owner[0] == 0)[0])
    assert on_board_blue != on_statue_blue
    s = step(G, s, RUBY + BANANA)
    assert owned(s, 0) == {on_board_blue, tid("green golden banana"), tid("green banana")}
    assert np.flatnonzero(s.statue[0] == 0).tolist() == [on_statue_blue]  # she already has a blue one
    assert not s.rubies[0, 0, BANANA] and s.rubies[0, 0, FIG]
    assert s.current_player[0] == 1 and G.episode_stats(s)["ruby_uses"][0, 0] == 1


def test_ruby_needs_a_token_it_takes_and_one_ruby_per_turn():
    s = G.position(
        statues={0: ["blue banana"], 2: []},
        boards=[["blue banana"], []],
        monkis=[7, 35],
        phase="collect",
        overflow_statue=2,
    )
    assert not s.legal_action_mask[0, RUBY + BANANA]  # would take nothing
    s2 = G.position(statues={0: ["green fig"]}, monkis=[7, 35], phase="collect", overflow_statue=2)
    assert s2.legal_action_mask[0, RUBY + FIG]
    s2 = step(G, s2, FLIP + 0)  # a flip chooses the temple: no ruby in this turn
    assert not s2.legal_action_mask[0, RUBY:].any()


def test_pass_keeps_tokens_that_fill_empty_spaces():
    s = G.position(
        stacks={0: ["green banana"], 1: ["blue fig"]},
        boards=[["green banana"], []],
        monkis=[7, 35],
        phase="collect",
    )
    board_banana = int(np.flatnonzero(s.owner[0] == 0)[0])
    stack_banana = int(s.stacks[0, 0, 0])
    assert D.TOKEN_KIND[board_banana] == D.TOKEN_KIND[stack_banana] and board_banana != stack_banana
    s = step(G, s, FLIP + 0, FLIP + 1, PASS)
    assert owned(s, 0) == {board_banana, tid("blue fig")}
    assert s.statue[0, stack_banana] == 0  # already had one: sacrificed to board 0's statue
    assert s.current_player[0] == 1 and G.episode_stats(s)["passes"][0, 0] == 1


def test_pass_needs_a_flip_and_flipped_stack_blocks():
    s = G.position(stacks={0: ["blue grapes", "green banana"]}, monkis=[7, 35], phase="collect")
    assert not s.legal_action_mask[0, PASS]
    s = step(G, s, FLIP + 0)
    assert not s.legal_action_mask[0, FLIP + 0]  # a face-up top cannot be flipped again this turn


def test_golden_to_statue_and_token_beneath_available():
    s = G.position(
        stacks={0: ["green fig", "green golden grapes"], 1: ["blue golden fig"]}, monkis=[7, 35], phase="collect"
    )
    s = step(G, s, FLIP + 0)
    assert s.statue[0, tid("green golden grapes")] == 0 and G.heights(s.stacks)[0, 0] == 1
    assert s.legal_action_mask[0, FLIP + 0]
    s = step(G, s, FLIP + 1)  # a second golden: never a double
    assert s.phase[0] == PHASE_FLIPPING and s.statue[0, tid("blue golden fig")] == 0
    assert not G.heights(s.stacks)[0, 1]
    s = step(G, s, FLIP + 0, PASS)  # the fig beneath is collected
    assert owned(s, 0) == {tid("green fig")}


def test_flip_line_of_sight_rows_and_columns_only():
    # Monki at (1,1): up stack 0, right stack 1, down (3,1) stack 10; the diagonal is no line
    s = G.position(monkis=[7, 35], phase="collect")
    flips = set(np.flatnonzero(s.legal_action_mask[0, FLIP:PASS]).tolist())
    assert flips == {0, 1, 10}
    # the other Monki in between blocks: B at (2,1) hides stack 10
    s = G.position(monkis=[7, 13], phase="collect")
    assert set(np.flatnonzero(s.legal_action_mask[0, FLIP:PASS]).tolist()) == {0, 1}
    # an empty pot is a free cell: the next stack behind it becomes visible
    s = G.position(stacks={1: []}, monkis=[7, 35], phase="collect")
    assert set(np.flatnonzero(s.legal_action_mask[0, FLIP:PASS]).tolist()) == {0, 3, 10}


def _ref_moves(g: Monki, s, seat: int) -> set[int]:
    L = g.layout
    h = g.heights(s.stacks)[0]
    occ = {int(L.stack_cell[k]) for k in range(12) if h[k]} | {int(p) for p in s.pos[0] if p >= 0}
    r0, c0 = divmod(int(s.pos[0, seat]), L.cols)
    out = set()
    for dr, dc in D.Layout.DIRS:
        r, c = r0 + dr, c0 + dc
        while 0 <= r < L.rows and 0 <= c < L.cols and L.cell_board[r * L.cols + c] >= 0 and r * L.cols + c not in occ:
            out.add(r * L.cols + c)
            r, c = r + dr, c + dc
    return out


def test_queen_moves_blocked_by_monkis_pots_holes():
    s = G.position(monkis=[0, 14])
    assert set(np.flatnonzero(s.legal_action_mask[0, MOVE:SKIP]).tolist()) == {6, 7}
    g = Monki(layout="stairs")
    for seed in range(5):
        s = g.position(monkis=[(2, 1), (5, 8)], stacks={k: [] for k in range(0, 12, 2)}, seed=seed, overflow_statue=3)
        got = set(np.flatnonzero(s.legal_action_mask[0, g.A_MOVE : g.A_SKIP]).tolist())
        assert got == _ref_moves(g, s, 0)
        assert all(g.layout.cell_board[c] >= 0 for c in got)
        assert 3 * 9 + 1 not in got  # (3, 1) is a hole
    # diagonal step between boards touching at a corner: (2,2) -> (3,3) in stairs
    s = g.position(monkis=[(2, 2), (5, 8)], stacks={k: [] for k in range(12)}, overflow_statue=3)
    assert s.legal_action_mask[0, g.A_MOVE + 3 * 9 + 3]


CORNER_LAYOUT = {"rows": 6, "cols": 9, "boards": [[0, 0, 0], [2, 6, 1], [3, 3, 2], [3, 0, 3]]}


def test_only_skip_when_no_move_possible():
    g = Monki(layout=CORNER_LAYOUT)
    s = g.position(monkis=[(0, 2), (1, 1)])  # pots at (0,1) and (1,2), holes at (0,3) and (1,3)
    mask = s.legal_action_mask[0]
    assert np.flatnonzero(mask).tolist() == [g.A_SKIP]


def test_skip_recharges_rubies():
    s = G.position(monkis=[7, 35], rubies=[[False, False, True, False], [False] * 4])
    s = step(G, s, SKIP)
    assert s.rubies[0, 0].all() and not s.rubies[0, 1].any()
    assert s.pos[0, 0] == 7 and s.current_player[0] == 1 and s.turns[0] == 1
    assert G.episode_stats(s)["skips"][0, 0] == 1


def test_nothing_to_collect_ends_the_turn():
    s = G.position(stacks={1: [], 2: [], 3: [], 9: []}, monkis=[0, 30], overflow_statue=3)
    s = step(G, s, MOVE + 6)  # (1,0): no stack in line, nothing on statue 0
    assert s.current_player[0] == 1 and s.phase[0] == PHASE_START and s.turns[0] == 1


def _row1_but(last: str) -> list[str]:
    return [f"{c} {f}" for c in D.COLOURS for f in D.FRUITS if f"{c} {f}" != last]


def test_win_at_once_row1_full():
    s = G.position(stacks={0: ["blue grapes"]}, boards=[_row1_but("blue grapes"), []], monkis=[7, 35], phase="collect")
    s = step(G, s, FLIP + 0, PASS)
    assert s.terminated[0] and s.end_reason[0] == END_FRUITS and s.winners_mask[0].tolist() == [True, False]
    assert s.rewards[0].tolist() == [1.0, -1.0] and G.scores(s)[0, 0] == 8


def test_win_at_once_row2_four_golden():
    golden = ["green golden banana", "blue golden fig", "green golden pineapple"]
    s = G.position(
        statues={0: ["blue golden grapes"]}, boards=[[], golden], monkis=[35, 7], phase="collect", current_player=1
    )
    s = step(G, s, RUBY + GRAPES)
    assert s.terminated[0] and s.end_reason[0] == END_GOLDEN and s.winners_mask[0].tolist() == [False, True]
    assert s.rewards[0].tolist() == [-1.0, 1.0]


def test_turn_cap_draw_and_win_on_last_turn_stands():
    g = Monki(turn_cap=5)
    s = g.position(monkis=[7, 35], turns=4)
    s = step(g, s, SKIP)
    assert s.terminated[0] and s.end_reason[0] == END_TURN_CAP and not s.winners_mask.any()
    assert (s.rewards == 0).all()
    s = g.position(
        stacks={0: ["blue grapes"]}, boards=[_row1_but("blue grapes"), []], monkis=[7, 35], phase="collect", turns=4
    )
    s = step(g, s, FLIP + 0, PASS)
    assert s.end_reason[0] == END_FRUITS


@pytest.mark.parametrize(
    ("layout", "match"),
    [
        ("nope", "unknown Monki layout"),
        ({"rows": 6, "cols": 6, "boards": [[0, 0, 0], [0, 2, 1], [3, 3, 2], [3, 0, 3]]}, "overlaps"),
        ({"rows": 6, "cols": 12, "boards": [[0, 0, 0], [0, 3, 1], [3, 3, 2], [3, 9, 2]]}, "borders no other"),
        ({"rows": 6, "cols": 6, "boards": [[0, 0, 2], [0, 3, 1], [3, 3, 2], [3, 0, 3]]}, "statue corner"),
        ({"rows": 6, "cols": 6, "boards": [[0, 0, 4], [0, 3, 1], [3, 3, 2], [3, 0, 3]]}, "rotation"),
        ({"rows": 6, "cols": 6, "boards": [[0, 0, 0], [0, 4, 1], [3, 3, 2], [3, 0, 3]]}, "does not fit"),
        ({"rows": 6, "cols": 6}, "keys"),
    ],
)
def test_layout_validation(layout, match):
    with pytest.raises(ValueError, match=match):
        Monki(layout=layout)


#: Issue 22 item 2: two separate pairs of boards (each pair borders along 3 spaces, the pairs not at all).
TWO_PAIRS = {"rows": 8, "cols": 6, "boards": [[0, 0, 0], [0, 3, 1], [5, 0, 3], [5, 3, 2]]}
#: Two pairs touching only at a corner ((2, 5) and (3, 6)).
PAIRS_AT_A_CORNER = {"rows": 6, "cols": 12, "boards": [[0, 0, 0], [0, 3, 1], [3, 6, 3], [3, 9, 2]]}


@pytest.mark.parametrize("layout", [TWO_PAIRS, PAIRS_AT_A_CORNER])
def test_a_layout_must_form_one_game_board(layout):
    """DECISIONS (Monki setup): the four temple boards are connected through shared edges."""
    with pytest.raises(ValueError, match=r"layout boards \[2, 3\] are cut off from boards \[0, 1\]"):
        Monki(layout=layout)


@pytest.mark.parametrize("name", sorted(D.LAYOUTS))
def test_every_shipped_layout_is_one_connected_game_board(name):
    D.validate_layout(D.LAYOUTS[name])
    D.validate_layout(CORNER_LAYOUT)


def test_custom_layout_and_holes():
    g = Monki(layout=CORNER_LAYOUT)
    assert g.config["layout"] == CORNER_LAYOUT and (~g.is_board).sum() == 54 - 36
    s = g.init(np.arange(4))
    assert not g.state_violations(s)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"stacks": {0: ["green banana"] * 5}}, "at most 3"),
        ({"boards": [["green banana", "green banana"], []]}, "two tokens on one space"),
        ({"monkis": [0, 0]}, "one cell"),
        ({"monkis": [1, 35]}, "pot"),
        ({"phase": "dance"}, "phase"),
        ({"current_player": 2}, "current_player"),
    ],
)
def test_position_errors(kwargs, match):
    base = {"monkis": [7, 35]}
    with pytest.raises(ValueError, match=match):
        G.position(**{**base, **kwargs})


def test_observation_hides_face_down_fruit():
    s = G.position(stacks={0: ["blue grapes", "green banana"]}, monkis=[7, 35], phase="collect")
    o = G.obs_layout.unflatten(G.observe(s, 0))
    assert o["stacks"][0, 0, 4:].sum() == 0 and o["stacks"][0, 0, 1] == 1  # colour only
    s = step(G, s, FLIP + 0)
    o = G.obs_layout.unflatten(G.observe(s, 1))
    assert o["stacks"][0, 0, 4 + BANANA] == 1 and o["flipped"][0, BANANA] == 1
    r = G.resample_hidden(s, 1, 3)
    assert np.array_equal(G.observe(r, 1), G.observe(s, 1))
    assert r.stacks[0, 0, 1] == s.stacks[0, 0, 1]  # the face-up token stays


def test_stats_summary():
    out = G.stats_summary({"temple_visits": 4, "flips": 10, "busts": 1, "ruby_uses": 2, "skips": 3}, 2)
    assert out["flips_per_visit"] == 2.5 and out["bust_rate"] == 0.25 and out["skips_per_game"] == 1.5
