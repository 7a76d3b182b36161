"""Funky Monkey rules fidelity: one scenario per rule of ``shared/rules/funky_monkey.txt`` and DECISIONS.md.

Every test builds a position with :meth:`FunkyMonkey.position` (or a seeded setup), plays actions
and checks the exact outcome. The track (reconstructed, ``funky_monkey/data.py``), index 0
farthest from the tiger::

    0 rear start  1 front start  2 3 4 5 (granite tiles)  6 bowl 1  7 8 (pebbles)  9 chest
    10 11 (pebbles)  12 bowl 2  13 14 15 (mosaic)  16 "2+3"  17 "4+5"  18 "6+7" tiger spaces

Tiles are placed by name on slots of the right back, so the tests check the rules, not the
particular reconstructed mix. Seat names of the rulebook examples: Michael 0, Sandra 1, Bernd 2.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from monkey_envs.core.testing import MAX_GAME_STEPS, play_random, random_legal_actions
from monkey_envs.funky_monkey import (
    A_ACCEPT,
    A_BONUS_DECLINE,
    A_BONUS_MONKEY,
    A_BONUS_TIGER,
    A_BOWL_1,
    A_BOWL_2,
    A_CROWN,
    A_PASS,
    A_PAY_GOLDEN,
    A_PAY_NORMAL,
    A_PYRAMID_BACKWARD,
    A_PYRAMID_FORWARD,
    A_SCALES_SKIP,
    A_SCALES_TARGET,
    A_TELESCOPE,
    FunkyMonkey,
)
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey.state import (
    BOWL_COCONUT,
    BOWL_EMPTY,
    BOWL_GOLDEN,
    END_LAST_MONKEY,
    END_NO_WINNER,
    END_NONE,
    END_QUITTING_TIME,
    END_TIGER,
    PH_ACTIVE,
    PH_BONUS,
    PH_BOWL,
    PH_PAY,
    PH_PYRAMID,
    PH_RESPOND,
    PH_RESPOND_SEEN,
    PH_SCALES,
    STAT_NAMES,
)

MICHAEL, SANDRA, BERND = 0, 1, 2


# ---------------------------------------------------------------------------- helpers
def kind(card) -> int:
    """Card value (1..4 or "M") -> kind 0..4."""
    return D.CARD_MINUSS if card == "M" else int(card) - 1


def play(card, announce) -> int:
    """Action: play ``card`` face down announcing ``announce``."""
    return kind(card) * 5 + kind(announce)


def crown(card) -> int:
    """Action: play ``card`` face up with a Crown."""
    return A_CROWN + kind(card)


def step(game: FunkyMonkey, s, *actions):
    """Apply ``actions`` one by one to a B=1 state, asserting each is legal."""
    for a in actions:
        legal = np.flatnonzero(s.legal_action_mask[0])
        assert s.legal_action_mask[0, a], (
            f"{game.action_name(s, 0, a)!r} not legal; legal: {[game.action_name(s, 0, x) for x in legal]}"
        )
        s = game.step(s, np.array([a]))
    return s


def legal(s) -> set[int]:
    return set(np.flatnonzero(s.legal_action_mask[0]).tolist())


def stat(s, seat: int, name: str) -> int:
    return int(s.stats[0, seat, STAT_NAMES.index(name)])


def total(game, s) -> list[int]:
    return game.total_coconuts(s)[0].tolist()


def three(**kw):
    """A 3-player game (tiger on 16) and a position; every seat holds cards unless given."""
    game = FunkyMonkey(3, **kw.pop("game_kw", {}))
    kw.setdefault("hands", [[1, 2, 3, 4, "M"], [1, 2, 3, 4, "M"], [1, 2, 3, 4, 1]])
    kw.setdefault("turn_order", [1, 2])
    return game, game.position(**kw)


# ============================================================================ setup
@pytest.mark.parametrize("num_players", range(2, 8))
def test_setup_deals_five_cards_each_from_the_cards_in_play_for_the_player_count(num_players):
    game = FunkyMonkey(num_players)
    s = game.init(np.arange(32))
    counts = D.card_counts(num_players)
    assert counts[:4].tolist() == [num_players + 2] * 4
    assert counts[4] == {2: 2, 3: 2, 4: 3, 5: 3, 6: 4, 7: 4}[num_players]
    assert (s.hands.sum(2) == D.HAND_SIZE).all()
    pile = np.stack([np.bincount(s.draw_pile[b, : s.draw_size[b]], minlength=5) for b in range(32)])
    assert (pile + s.hands.sum(1) == counts).all()
    assert (s.discard == 0).all() and (s.treasure_size == 12).all()


@pytest.mark.parametrize("num_players", range(2, 8))
def test_setup_coconuts_bowls_tiger_space_and_start_spaces(num_players):
    game = FunkyMonkey(num_players)
    s = game.init(np.arange(64))
    assert (s.coconuts == 3).all() and (s.golden == -1).all()
    assert (s.bowls == [BOWL_COCONUT, BOWL_EMPTY]).all()
    assert (s.supply == 40 - 3 * num_players - 1).all()
    assert (s.tiger == {2: 16, 3: 16, 4: 17, 5: 17, 6: 18, 7: 18}[num_players]).all()
    # every monkey on a start space; odd placers choose, even placers balance
    assert np.isin(s.pos, [D.REAR_START, D.FRONT_START]).all()
    front = (s.pos == D.FRONT_START).sum(1)
    assert (np.abs(2 * front - num_players) <= 1).all()
    # start spaces at setup have no effect: nobody got the golden coconut or lost a coconut
    assert (s.phase == PH_ACTIVE).all() and (s.current_player == s.active).all()


def test_setup_tiles_by_back_with_one_removed_unseen_from_each_stack():
    game = FunkyMonkey(4)
    s = game.init(np.arange(200))
    for i, back in enumerate(D.TILE_BACKS):
        slots = list(D.TILE_SLOTS_RECONSTRUCTED[back])
        for b in range(200):
            placed = Counter([*s.tiles[b, slots].tolist(), int(s.removed_tiles[b, i])])
            assert placed == Counter(D.TILE_STACKS_RECONSTRUCTED[back])
    # the treasure chest space and the other fixed spaces never hold a tile
    assert (s.tiles[:, ~D.IS_SLOT] == 0).all()
    # every tile of each stack is removed sometimes (shuffled, not fixed)
    assert len(set(s.removed_tiles[:, 0].tolist())) == len(set(D.TILE_STACKS_RECONSTRUCTED["granite"]))


@pytest.mark.parametrize(
    ("visibility", "face_up"),
    [("basic", {2, 3}), ("every_second", {2, 4, 7, 10, 13, 15}), ("all", set(np.flatnonzero(D.IS_SLOT).tolist()))],
)
def test_tile_visibility_variants(visibility, face_up):
    game = FunkyMonkey(3, tile_visibility=visibility)
    s = game.init(np.arange(4))
    assert {int(x) for x in np.flatnonzero(s.face_up[0] & D.IS_SLOT)} == face_up
    assert (s.face_up == s.face_up[0]).all()


def test_monkey_chips_each_survivor_is_active_once_per_round():
    game = FunkyMonkey(5)
    s = game.init(np.arange(64))
    rng = np.random.default_rng(1)
    turns = STAT_NAMES.index("turns_active")
    seen: dict[tuple[int, int], list[int]] = {}
    while not s.terminated.all():
        prev = s
        s = game.step(s, random_legal_actions(s.legal_action_mask, rng))
        for b, p in zip(*np.nonzero(s.stats[:, :, turns] > prev.stats[:, :, turns]), strict=True):
            assert p == prev.active[b] and prev.alive[b, p]
            seen.setdefault((int(b), int(prev.round[b])), []).append(int(p))
    for (b, rnd), actives in seen.items():
        assert len(actives) == len(set(actives)), f"a seat was active twice in round {rnd} of game {b}: {actives}"
    # a round in which nobody was eliminated gives every seat exactly one turn
    assert any(sorted(a) == list(range(5)) for a in seen.values())
    assert max(r for _, r in seen) <= D.NUM_ROUNDS


# ============================================================================ the active turn
def test_rulebook_example_sandra_passes_michaels_card_to_bernd_without_changing_the_announcement():
    game, s = three(positions=[0, 1, 0], active=MICHAEL)
    s = step(game, s, play(3, 3))
    assert int(s.current_player[0]) == SANDRA and int(s.phase[0]) == PH_RESPOND
    assert legal(s) == {A_ACCEPT, A_PASS}
    s = step(game, s, A_PASS)
    assert int(s.current_player[0]) == BERND and int(s.phase[0]) == PH_RESPOND
    assert int(s.announce[0]) == kind(3) and int(s.passes[0]) == 1
    assert int(s.pos[0, SANDRA]) == 1  # nothing happened to Sandra
    assert stat(s, SANDRA, "cards_passed") == 1


def test_rulebook_example_sandra_reveals_a_true_three_moves_three_and_michael_gets_a_bonus_move():
    game, s = three(positions=[0, 1, 0], tiles={4: "coconut"}, active=MICHAEL)
    s = step(game, s, play(3, 3), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == 4  # the printed value applies: 3 spaces
    assert total(game, s)[SANDRA] == 4  # the tile's action is carried out at once
    assert s.face_up[0, 4]
    assert int(s.phase[0]) == PH_BONUS and int(s.current_player[0]) == MICHAEL
    assert legal(s) == {A_BONUS_MONKEY, A_BONUS_TIGER, A_BONUS_DECLINE}
    assert stat(s, MICHAEL, "truthful") == 1 and stat(s, MICHAEL, "bluffs") == 0


def test_printed_value_applies_not_the_announcement_and_a_bluff_earns_no_bonus():
    game, s = three(positions=[0, 1, 0], tiles={3: "coconut"}, active=MICHAEL)
    s = step(game, s, play(2, 4), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == 3
    assert int(s.phase[0]) == PH_ACTIVE and int(s.active[0]) == SANDRA  # turn over, next chip
    assert stat(s, MICHAEL, "bluffs") == 1 and stat(s, MICHAEL, "bluffs_accepted") == 1
    assert int(s.discard[0, kind(2)]) == 1  # the revealed card is discarded


def test_active_may_announce_any_value_but_only_play_cards_in_hand():
    _, s = three(positions=[0, 1, 0], hands=[[2, "M"], [1], [1]], active=MICHAEL)
    playable = {play(c, a) for c in (2, "M") for a in (1, 2, 3, 4, "M")}
    assert legal(s) == playable


def test_card_returning_to_the_active_player_is_accepted_automatically_with_bonus():
    game, s = three(positions=[0, 1, 0], tiles={2: "coconut"}, active=MICHAEL)
    s = step(game, s, play(2, 2), A_PASS, A_PASS)
    assert int(s.pos[0, MICHAEL]) == 2 and total(game, s)[MICHAEL] == 4
    assert int(s.accepter[0]) == MICHAEL
    assert int(s.phase[0]) == PH_BONUS and int(s.current_player[0]) == MICHAEL  # truthful: bonus still applies
    assert stat(s, MICHAEL, "bluffs_accepted") == 0


def test_passing_skips_eliminated_players():
    game = FunkyMonkey(4)
    s = game.position(
        positions=[0, 1, 0, 1],
        alive=[True, False, True, True],
        coconuts=[3, 0, 3, 3],
        hands=[[1, 2], [], [1, 2], [1, 2]],
        active=0,
        turn_order=[2, 3],
    )
    s = step(game, s, play(1, 1))
    assert int(s.current_player[0]) == 2
    s = step(game, s, A_PASS)
    assert int(s.current_player[0]) == 3
    s = step(game, s, A_PASS)
    assert int(s.accepter[0]) == 0  # back to the active player, seat 1 never asked


def test_minuss_card_accepted_costs_one_coconut_into_the_well():
    game, s = three(positions=[0, 1, 0], active=MICHAEL)
    supply = int(s.supply[0])
    s = step(game, s, play("M", 1), A_ACCEPT)
    assert total(game, s)[SANDRA] == 2 and int(s.supply[0]) == supply + 1
    assert int(s.pos[0, SANDRA]) == 1


def test_minuss_card_asks_which_coconut_when_holding_golden_and_normal():
    game, s = three(positions=[0, 1, 0], golden=SANDRA, coconuts=[3, 1, 3], active=MICHAEL)
    s = step(game, s, play("M", "M"), A_ACCEPT)
    assert int(s.phase[0]) == PH_PAY and int(s.current_player[0]) == SANDRA
    assert legal(s) == {A_PAY_NORMAL, A_PAY_GOLDEN}
    s = step(game, s, A_PAY_GOLDEN)
    assert int(s.golden[0]) == -1 and int(s.coconuts[0, SANDRA]) == 1  # golden back in the well
    assert int(s.phase[0]) == PH_BONUS  # truthful MiNuss: bonus for Michael


def test_paying_the_last_coconut_eliminates_without_a_question():
    game, s = three(positions=[0, 1, 0], golden=SANDRA, coconuts=[3, 0, 3], active=MICHAEL)
    s = step(game, s, play("M", 1), A_ACCEPT)
    assert not s.alive[0, SANDRA] and int(s.golden[0]) == -1
    assert s.hands[0, SANDRA].sum() == 0  # the eliminated player's cards leave play
    assert int(s.phase[0]) == PH_ACTIVE and int(s.current_player[0]) == BERND  # her chip is skipped


# ============================================================================ jungle tiles
def test_coconut_tile_takes_one_from_the_well():
    game, s = three(positions=[0, 5, 0], tiles={8: "coconut"}, active=MICHAEL)
    s = step(game, s, play(3, 1), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == 8 and total(game, s)[SANDRA] == 4


def test_gain_from_an_empty_well_gives_nothing():
    game, s = three(positions=[0, 5, 0], tiles={8: "coconut"}, coconuts=[19, 20, 1], bowls=(0, 0), active=MICHAEL)
    assert int(s.supply[0]) == 0
    s = step(game, s, play(3, 1), A_ACCEPT)
    assert total(game, s)[SANDRA] == 20 and int(s.supply[0]) == 0


def test_golden_coconut_tile_takes_it_from_the_well():
    game, s = three(positions=[0, 5, 0], tiles={7: "golden"}, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.golden[0]) == SANDRA and total(game, s)[SANDRA] == 4


def test_golden_coconut_taken_from_another_player_who_then_has_none_is_eliminated():
    game, s = three(positions=[0, 5, 0], tiles={7: "golden"}, golden=BERND, coconuts=[3, 3, 0], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.golden[0]) == SANDRA
    assert not s.alive[0, BERND] and s.alive[0, [MICHAEL, SANDRA]].all()
    assert not s.terminated[0]


def test_golden_coconut_taken_from_the_last_rival_ends_the_game_last_monkey_standing():
    game = FunkyMonkey(2)
    s = game.position(
        positions=[0, 5],
        tiles={7: "golden"},
        golden=0,
        coconuts=[0, 3],
        hands=[[2, 1], [1, 1]],
        active=0,
        turn_order=[1],
    )
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert s.terminated[0] and int(s.end_reason[0]) == END_LAST_MONKEY
    assert s.winners_mask[0].tolist() == [False, True] and s.rewards[0].tolist() == [-1.0, 1.0]


def test_golden_coconut_owned_already_nothing_happens():
    game, s = three(positions=[0, 5, 0], tiles={7: "golden"}, golden=SANDRA, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.golden[0]) == SANDRA and total(game, s)[SANDRA] == 4


def test_golden_coconut_can_be_taken_from_an_eliminated_player():
    game = FunkyMonkey(3)
    s = game.position(
        positions=[0, 5, 20],
        alive=[True, True, False],
        coconuts=[3, 3, 2],
        golden=2,
        tiles={7: "golden"},
        hands=[[2, 1], [1, 1], []],
        active=0,
        turn_order=[1],
    )
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.golden[0]) == SANDRA


def test_treasure_chest_space_draws_the_top_treasure_card_hidden_from_others():
    game, s = three(positions=[0, 7, 0], treasure_pile=["telescope", "scales"], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == D.CHEST_SPACE
    assert s.treasures[0, SANDRA].tolist() == [0, 1, 0] and int(s.treasure_size[0]) == 1
    obs_b = game.obs_layout.unflatten(game.observe(s, BERND))
    assert obs_b["treasure_counts"][0, (SANDRA - BERND) % 3] == pytest.approx(0.25)
    obs_s = game.obs_layout.unflatten(game.observe(s, SANDRA))
    assert obs_s["treasures"][0].tolist() == [0, 1, 0]


def test_treasure_chest_tile_with_an_empty_stack_gives_nothing():
    game, s = three(positions=[0, 1, 0], tiles={4: "chest"}, treasure_pile=[], active=MICHAEL)
    s = step(game, s, play(3, 1), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == 4 and s.treasures[0].sum() == 0


@pytest.mark.parametrize(("tile", "slot", "lost"), [("minus1", 8, 1), ("minus2", 14, 2)])
def test_minuss_tiles_put_own_coconuts_into_the_well(tile, slot, lost):
    game, s = three(positions=[0, slot - 2, 0], tiles={slot: tile}, active=MICHAEL)
    supply = int(s.supply[0])
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert total(game, s)[SANDRA] == 3 - lost and int(s.supply[0]) == supply + lost


def test_minuss_two_tile_asks_once_per_coconut():
    game, s = three(positions=[0, 12, 0], tiles={14: "minus2"}, golden=SANDRA, coconuts=[3, 2, 3], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_PAY and int(s.debt[0]) == 2
    s = step(game, s, A_PAY_NORMAL)
    assert int(s.phase[0]) == PH_PAY and int(s.debt[0]) == 1  # golden + 1 normal left, paying 1: asked again
    s = step(game, s, A_PAY_NORMAL)
    assert int(s.coconuts[0, SANDRA]) == 0 and int(s.golden[0]) == SANDRA and s.alive[0, SANDRA]
    # golden first: then only normal coconuts remain and the second one is paid without asking
    game, s = three(positions=[0, 12, 0], tiles={14: "minus2"}, golden=SANDRA, coconuts=[3, 2, 3], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT, A_PAY_GOLDEN)
    assert int(s.coconuts[0, SANDRA]) == 1 and int(s.golden[0]) == -1 and int(s.phase[0]) == PH_ACTIVE


def test_minuss_two_tile_with_exactly_two_coconuts_eliminates_without_asking():
    game, s = three(positions=[0, 12, 0], tiles={14: "minus2"}, golden=SANDRA, coconuts=[3, 1, 3], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert not s.alive[0, SANDRA] and int(s.golden[0]) == -1 and int(s.coconuts[0, SANDRA]) == 0


def test_nearest_bowl_tile_in_the_first_row_jumps_forward_to_bowl_one():
    game, s = three(positions=[0, 1, 0], tiles={3: "nearest_bowl"}, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == D.BOWL_SPACES[0]
    assert int(s.bowls[0, 0]) == BOWL_EMPTY and total(game, s)[SANDRA] == 4  # took the bowl's coconut


def test_nearest_bowl_tile_in_the_third_row_jumps_back_to_bowl_two():
    game, s = three(positions=[0, 12, 0], tiles={14: "nearest_bowl"}, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == D.BOWL_SPACES[1]
    assert int(s.bowls[0, 1]) == BOWL_COCONUT and total(game, s)[SANDRA] == 2  # empty bowl: sacrifice one


@pytest.mark.parametrize(("choice", "space"), [(A_BOWL_1, 6), (A_BOWL_2, 12)])
def test_nearest_bowl_tile_in_the_middle_row_lets_the_player_choose(choice, space):
    game, s = three(positions=[0, 6, 0], tiles={8: "nearest_bowl"}, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_BOWL and int(s.current_player[0]) == SANDRA
    assert legal(s) == {A_BOWL_1, A_BOWL_2}
    s = step(game, s, choice)
    assert int(s.pos[0, SANDRA]) == space


def test_bowl_jump_onto_the_tiger_wins():
    game, s = three(positions=[0, 6, 0], tiles={8: "nearest_bowl"}, tiger=12, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT, A_BOWL_2)
    assert s.terminated[0] and int(s.end_reason[0]) == END_TIGER and s.winners_mask[0].tolist() == [False, True, False]


# ============================================================================ offering bowls
def test_offering_bowl_with_a_coconut_is_taken():
    game, s = three(positions=[0, 4, 0], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.bowls[0, 0]) == BOWL_EMPTY and total(game, s)[SANDRA] == 4


def test_empty_offering_bowl_takes_a_sacrifice_that_the_next_monkey_takes():
    game, s = three(positions=[0, 10, 10], active=MICHAEL, turn_order=[1, 2])
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.bowls[0, 1]) == BOWL_COCONUT and total(game, s)[SANDRA] == 2
    # Sandra's turn: Bernd lands on the same bowl and takes that coconut
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.bowls[0, 1]) == BOWL_EMPTY and total(game, s)[BERND] == 4


def test_offering_bowl_sacrifice_may_be_the_golden_coconut_and_the_next_lander_takes_it():
    game, s = three(positions=[0, 10, 10], golden=SANDRA, active=MICHAEL, turn_order=[1, 2])
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_PAY
    s = step(game, s, A_PAY_GOLDEN)
    assert int(s.bowls[0, 1]) == BOWL_GOLDEN and int(s.golden[0]) == -1
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.golden[0]) == BERND and int(s.bowls[0, 1]) == BOWL_EMPTY and total(game, s)[BERND] == 4


# ============================================================================ monkey pyramid
@pytest.mark.parametrize(("choice", "space"), [(A_PYRAMID_FORWARD, 7), (A_PYRAMID_BACKWARD, 1)])
def test_monkey_pyramid_reveals_the_top_draw_card_and_the_player_chooses_the_direction(choice, space):
    game, s = three(positions=[0, 2, 0], tiles={4: "pyramid"}, draw_pile=[3, 1], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_PYRAMID and int(s.pyramid_card[0]) == kind(3)
    assert int(s.discard[0, kind(3)]) == 1 and int(s.draw_size[0]) == 1  # revealed card discarded at once
    s = step(game, s, choice)
    assert int(s.pos[0, SANDRA]) == space


def test_pyramid_backward_is_limited_by_the_rear_start():
    # from slot 2 a "3" cannot go back (it would pass the rear start): forward without a question
    game, s = three(
        positions=[0, 0, 0], tiles={2: "pyramid", 5: "coconut"}, face_up="all", draw_pile=[3], active=MICHAEL
    )
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == 5 and total(game, s)[SANDRA] == 4
    # a "2" can go back exactly onto the rear start: asked
    game, s = three(positions=[0, 0, 0], tiles={2: "pyramid"}, draw_pile=[2], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_PYRAMID


def test_start_spaces_act_only_when_landed_on_during_play():
    # rear start: lose one coconut
    game, s = three(positions=[0, 2, 0], tiles={4: "pyramid"}, draw_pile=[4], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT, A_PYRAMID_BACKWARD)
    assert int(s.pos[0, SANDRA]) == D.REAR_START and total(game, s)[SANDRA] == 2
    # front start: the golden coconut (taken from its owner)
    game, s = three(positions=[0, 2, 0], tiles={4: "pyramid"}, draw_pile=[3], golden=BERND, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT, A_PYRAMID_BACKWARD)
    assert int(s.pos[0, SANDRA]) == D.FRONT_START and int(s.golden[0]) == SANDRA


def test_monkey_pyramid_minuss_costs_one_coconut():
    game, s = three(
        positions=[0, 2, 0], tiles={4: "pyramid"}, draw_pile=["M"], hands=[[2, 1], [1], [1]], active=MICHAEL
    )
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.pos[0, SANDRA]) == 4 and total(game, s)[SANDRA] == 2


def test_monkey_pyramid_with_an_empty_draw_pile_reshuffles_the_revealed_cards():
    game, s = three(positions=[0, 2, 0], tiles={4: "pyramid"}, draw_pile=[], discard=[4], active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    # the discard (the 4 and the just revealed 2) became the pile; one of them was revealed
    assert int(s.draw_size[0]) == 1 and int(s.discard[0].sum()) == 1
    assert int(s.phase[0]) == PH_PYRAMID and int(s.pyramid_card[0]) in (kind(4), kind(2))


def test_chain_reaction_pyramid_to_nearest_bowl_tile_to_offering_bowl():
    # Sandra lands on the pyramid (3), reveals a 2, goes forward onto the nearest-bowl tile (5),
    # jumps to bowl 1 (6) and takes its coconut: three effects from one card.
    game, s = three(positions=[0, 1, 0], tiles={3: "pyramid", 5: "nearest_bowl"}, draw_pile=[2], active=MICHAEL)
    s = step(game, s, play(2, 2), A_ACCEPT, A_PYRAMID_FORWARD)
    assert int(s.pos[0, SANDRA]) == 6 and total(game, s)[SANDRA] == 4
    assert s.face_up[0, [3, 5]].all()
    assert int(s.phase[0]) == PH_BONUS  # truthful: the bonus comes after the whole chain


def test_chain_reaction_pyramid_to_nearest_bowl_to_empty_bowl_asks_which_coconut():
    game, s = three(
        positions=[0, 1, 0],
        tiles={3: "pyramid", 5: "nearest_bowl"},
        draw_pile=[2],
        bowls=(0, 0),
        golden=SANDRA,
        active=MICHAEL,
    )
    s = step(game, s, play(2, 1), A_ACCEPT, A_PYRAMID_FORWARD)
    assert int(s.phase[0]) == PH_PAY and int(s.current_player[0]) == SANDRA
    s = step(game, s, A_PAY_NORMAL)
    assert int(s.bowls[0, 0]) == BOWL_COCONUT and total(game, s)[SANDRA] == 3


# ============================================================================ tiger
def test_empty_tiger_space_in_front_of_the_tiger_costs_a_coconut():
    game = FunkyMonkey(4)  # tiger on 17: space 16 is an empty tiger space in front of it
    s = game.position(positions=[0, 13, 0, 0], hands=[[3, 1], [1], [1], [1]], active=0, turn_order=[1, 2, 3])
    s = step(game, s, play(3, 1), A_ACCEPT)
    assert int(s.pos[0, 1]) == 16 and total(game, s)[1] == 2


def test_empty_tiger_space_behind_the_tiger_eliminates_as_beyond_the_tiger():
    game = FunkyMonkey(4)
    s = game.position(positions=[0, 13, 0, 0], tiger=16, hands=[[4, 1], [1], [1], [1]], active=0, turn_order=[1, 2, 3])
    s = step(game, s, play(4, 1), A_ACCEPT)
    assert not s.alive[0, 1] and total(game, s)[1] == 3  # out, keeping the coconuts
    assert not s.terminated[0]


def test_landing_exactly_on_the_tiger_wins_at_once():
    game, s = three(positions=[0, 13, 0], active=MICHAEL)
    s = step(game, s, play(3, 1), A_ACCEPT)
    assert s.terminated[0] and int(s.end_reason[0]) == END_TIGER
    assert s.winners_mask[0].tolist() == [False, True, False]
    assert s.rewards[0].tolist() == [-1.0, 1.0, -1.0]
    assert not s.legal_action_mask.any() and int(s.current_player[0]) == -1


def test_moving_beyond_the_tiger_eliminates():
    game, s = three(positions=[0, 13, 0], active=MICHAEL)
    s = step(game, s, play(4, 4), A_ACCEPT)
    assert not s.alive[0, SANDRA] and not s.terminated[0]
    assert int(s.phase[0]) == PH_BONUS  # Michael told the truth


def test_tiger_bonus_catches_two_monkeys():
    game = FunkyMonkey(4)
    s = game.position(
        positions=[0, 1, 16, 16], tiles={2: "coconut"}, hands=[[1, 1], [1], [1], [1]], active=0, turn_order=[1, 2, 3]
    )
    s = step(game, s, play(1, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_BONUS
    s = step(game, s, A_BONUS_TIGER)
    assert int(s.tiger[0]) == 16 and s.alive[0].tolist() == [True, True, False, False]
    assert not s.terminated[0] and stat(s, 0, "bonus_tiger") == 1
    assert int(s.current_player[0]) == 1  # seats 2 and 3 are skipped


def test_tiger_bonus_does_not_flip_or_act_on_the_tile_it_lands_on():
    game, s = three(positions=[0, 1, 0], tiger=15, tiles={2: "coconut", 14: "minus2"}, face_up="basic", active=MICHAEL)
    s = step(game, s, play(1, 1), A_ACCEPT, A_BONUS_TIGER)
    assert int(s.tiger[0]) == 14 and not s.face_up[0, 14]


def test_tiger_catching_every_remaining_monkey_ends_with_no_winner():
    game = FunkyMonkey(2)
    s = game.position(positions=[15, 14], tiles={15: "minus1"}, hands=[[1, 1], [1]], active=0, turn_order=[1])
    s = step(game, s, play(1, 1), A_ACCEPT)  # seat 1 moves to 15, next to the active monkey
    s = step(game, s, A_BONUS_TIGER)
    assert s.terminated[0] and int(s.end_reason[0]) == END_NO_WINNER
    assert not s.winners_mask.any() and s.rewards[0].tolist() == [-1.0, -1.0]


# ============================================================================ bonus move
def test_truthful_bonus_move_own_monkey_one_space_with_its_effect():
    game, s = three(positions=[1, 1, 0], tiles={2: "coconut", 3: "coconut"}, face_up="all", active=MICHAEL)
    s = step(game, s, play(2, 2), A_ACCEPT, A_BONUS_MONKEY)
    assert int(s.pos[0, MICHAEL]) == 2 and total(game, s)[MICHAEL] == 4
    assert stat(s, MICHAEL, "bonus_monkey") == 1
    assert int(s.phase[0]) == PH_ACTIVE and int(s.active[0]) == SANDRA


def test_bonus_move_onto_a_face_down_tile_turns_it_over():
    game, s = three(positions=[3, 1, 0], tiles={2: "coconut", 4: "chest"}, face_up="basic", active=MICHAEL)
    s = step(game, s, play(1, 1), A_ACCEPT, A_BONUS_MONKEY)
    assert s.face_up[0, 4] and s.treasures[0, MICHAEL].sum() == 1


def test_bonus_move_onto_the_tiger_wins():
    game, s = three(positions=[15, 1, 0], tiles={2: "coconut"}, active=MICHAEL)
    s = step(game, s, play(1, 1), A_ACCEPT, A_BONUS_MONKEY)
    assert s.terminated[0] and s.winners_mask[0].tolist() == [True, False, False]


def test_bonus_move_may_be_declined():
    game, s = three(positions=[1, 1, 0], tiles={2: "coconut"}, active=MICHAEL)
    s = step(game, s, play(1, 1), A_ACCEPT, A_BONUS_DECLINE)
    assert int(s.pos[0, MICHAEL]) == 1 and int(s.tiger[0]) == 16
    assert stat(s, MICHAEL, "bonus_declined") == 1 and int(s.active[0]) == SANDRA


def test_active_player_eliminated_during_own_turn_gets_no_bonus():
    # Sandra takes the golden coconut, Michael's last one: he is out and gets no bonus
    game, s = three(positions=[0, 5, 0], tiles={7: "golden"}, golden=MICHAEL, coconuts=[0, 3, 3], active=MICHAEL)
    s = step(game, s, play(2, 2), A_ACCEPT)
    assert not s.alive[0, MICHAEL] and int(s.phase[0]) == PH_ACTIVE and int(s.active[0]) == SANDRA


# ============================================================================ treasure cards
def test_telescope_lets_the_holder_see_the_card_and_only_them():
    game, s = three(positions=[0, 1, 0], treasures=[[], ["telescope"], []], active=MICHAEL)
    s = step(game, s, play(4, 1))
    assert legal(s) == {A_ACCEPT, A_PASS, A_TELESCOPE}
    s = step(game, s, A_TELESCOPE)
    assert int(s.phase[0]) == PH_RESPOND_SEEN and legal(s) == {A_ACCEPT, A_PASS}
    assert s.treasures[0, SANDRA].sum() == 0 and stat(s, SANDRA, "telescopes_used") == 1
    seen = game.obs_layout.unflatten(game.observe(s, SANDRA))["known_card"][0]
    unseen = game.obs_layout.unflatten(game.observe(s, BERND))["known_card"][0]
    assert seen.tolist() == [0, 0, 0, 1, 0] and not unseen.any()
    s = step(game, s, A_PASS)
    assert int(s.current_player[0]) == BERND and int(s.phase[0]) == PH_RESPOND
    assert legal(s) == {A_ACCEPT, A_PASS}  # Bernd has no Telescope


def test_crown_plays_face_up_on_own_monkey_without_bonus_by_default():
    game, s = three(positions=[0, 1, 0], treasures=[["crown"], [], []], tiles={2: "coconut"}, active=MICHAEL)
    assert {crown(c) for c in (1, 2, 3, 4, "M")} <= legal(s)
    s = step(game, s, crown(2))
    assert int(s.pos[0, MICHAEL]) == 2 and total(game, s)[MICHAEL] == 4
    assert s.treasures[0, MICHAEL].sum() == 0 and stat(s, MICHAEL, "crown_plays") == 1
    assert int(s.phase[0]) == PH_ACTIVE and int(s.active[0]) == SANDRA  # no passing, no bonus


def test_crown_bonus_flag_gives_the_bonus_move():
    game, s = three(
        positions=[0, 1, 0],
        treasures=[["crown"], [], []],
        tiles={2: "coconut"},
        game_kw={"crown_bonus": True},
        active=MICHAEL,
    )
    s = step(game, s, crown(2))
    assert int(s.phase[0]) == PH_BONUS and int(s.current_player[0]) == MICHAEL


def test_crown_is_not_offered_without_a_crown_card():
    _, s = three(positions=[0, 1, 0], active=MICHAEL)
    assert not any(a >= A_CROWN for a in legal(s))


def test_scales_odd_total_user_takes_the_surplus_and_the_golden_coconut():
    # Michael 2 + golden = 3, Sandra 4: pooled 7 -> Michael 4 (golden + 3), Sandra 3
    game, s = three(
        positions=[0, 1, 0],
        coconuts=[2, 4, 3],
        golden=MICHAEL,
        treasures=[["scales"], [], []],
        tiles={3: "chest"},
        treasure_pile=["crown"],
        active=MICHAEL,
    )
    s = step(game, s, play(2, 1), A_ACCEPT)  # Sandra lands on a chest (no coconut change)
    assert int(s.phase[0]) == PH_SCALES and int(s.current_player[0]) == MICHAEL
    assert legal(s) == {A_SCALES_SKIP, A_SCALES_TARGET, A_SCALES_TARGET + 1}
    s = step(game, s, A_SCALES_TARGET)  # the seat to Michael's left: Sandra
    assert total(game, s)[:2] == [4, 3] and int(s.golden[0]) == MICHAEL and int(s.coconuts[0, MICHAEL]) == 3
    assert s.treasures[0, MICHAEL].sum() == 0 and stat(s, MICHAEL, "scales_used") == 1


def test_scales_golden_coconut_from_the_target_goes_to_the_user():
    game, s = three(
        positions=[0, 1, 0],
        coconuts=[3, 1, 3],
        golden=SANDRA,
        treasures=[[], [], ["scales"]],
        tiles={2: "chest"},
        treasure_pile=["crown"],
        active=MICHAEL,
    )
    s = step(game, s, play(2, 1), A_PASS, A_ACCEPT)  # Bernd accepts and lands on the chest tile 2
    assert int(s.phase[0]) == PH_SCALES and int(s.current_player[0]) == BERND
    s = step(game, s, A_SCALES_TARGET + 1)  # two seats to Bernd's left: Sandra
    # pool 3 + 2 = 5: Bernd 3 (golden + 2), Sandra 2
    assert total(game, s) == [3, 2, 3] and int(s.golden[0]) == BERND


def test_scales_is_offered_to_the_active_player_first_then_the_accepter_and_may_be_kept():
    game, s = three(positions=[0, 1, 0], treasures=[["scales"], ["scales"], []], tiles={3: "coconut"}, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_SCALES and int(s.current_player[0]) == MICHAEL
    s = step(game, s, A_SCALES_SKIP)
    assert int(s.phase[0]) == PH_SCALES and int(s.current_player[0]) == SANDRA
    s = step(game, s, A_SCALES_SKIP)
    assert int(s.phase[0]) == PH_ACTIVE and s.treasures[0, :, D.T_SCALES].tolist() == [1, 1, 0]


def test_scales_not_offered_to_players_who_only_passed_or_were_eliminated():
    game, s = three(positions=[0, 1, 13], treasures=[[], ["scales"], ["scales"]], active=MICHAEL)
    s = step(game, s, play(4, 1), A_PASS, A_ACCEPT)  # Bernd goes beyond the tiger
    assert not s.alive[0, BERND] and int(s.phase[0]) == PH_ACTIVE


def test_scales_step_is_asked_of_any_treasure_holder_so_it_reveals_no_treasure_type():
    # Michael holds only a Telescope: he is asked like a Scales holder, but may only keep
    game, s = three(positions=[0, 1, 0], treasures=[["telescope"], [], []], tiles={3: "coconut"}, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_SCALES and int(s.current_player[0]) == MICHAEL
    assert legal(s) == {A_SCALES_SKIP}
    s = step(game, s, A_SCALES_SKIP)
    assert int(s.phase[0]) == PH_ACTIVE and s.treasures[0, MICHAEL].tolist() == [0, 1, 0]
    # a player without treasure cards is not asked
    game, s = three(positions=[0, 1, 0], tiles={3: "coconut"}, active=MICHAEL)
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert int(s.phase[0]) == PH_ACTIVE


def test_scales_targets_only_surviving_players():
    game = FunkyMonkey(3)
    s = game.position(
        positions=[0, 1, 20],
        alive=[True, True, False],
        coconuts=[3, 3, 3],
        treasures=[["scales"], [], []],
        tiles={3: "coconut"},
        hands=[[2, 1], [1, 1], []],
        active=0,
        turn_order=[1],
    )
    s = step(game, s, play(2, 1), A_ACCEPT)
    assert legal(s) == {A_SCALES_SKIP, A_SCALES_TARGET}


# ============================================================================ ending
def _last_round(game, **kw):
    return game.position(round=5, **kw)


@pytest.mark.parametrize(
    ("positions", "coconuts", "golden", "winners"),
    [
        ([8, 7], [1, 5], "well", [True, False]),  # nearest to the tiger wins
        ([8, 8], [1, 5], 0, [True, False]),  # tie -> the golden coconut
        ([8, 8], [4, 2], "well", [True, False]),  # tie, no golden -> most coconuts
        ([8, 8], [3, 3], "well", [True, True]),  # still tied -> shared
    ],
)
def test_quitting_time_winner_with_each_tie_break(positions, coconuts, golden, winners):
    # both play their last card ("1", bluffed as "2": no bonus); it comes back to its player who moves
    # one space onto a chest (8 or 9), which changes no coconuts; then quitting time
    game = FunkyMonkey(2)
    s = _last_round(
        game,
        positions=positions,
        coconuts=coconuts,
        golden=golden,
        hands=[[1], [1]],
        tiles={8: "chest"},
        active=0,
        turn_order=[1],
        treasure_pile=[],  # the chests give nothing
    )
    s = step(game, s, play(1, 2), A_PASS)
    s = step(game, s, play(1, 2), A_PASS)
    assert s.terminated[0] and int(s.end_reason[0]) == END_QUITTING_TIME
    assert s.winners_mask[0].tolist() == winners
    expected = [1.0 if w else -1.0 for w in winners] if not all(winners) else [0.0, 0.0]
    assert s.rewards[0].tolist() == expected


def test_quitting_time_after_five_rounds_when_all_cards_are_played():
    game = FunkyMonkey(3)
    s = play_random(game, np.arange(16), MAX_GAME_STEPS, 0, until_done=True)
    assert s.terminated.all()
    q = s.end_reason == END_QUITTING_TIME
    assert q.any()
    assert (s.round[q] == D.NUM_ROUNDS).all() and (s.hands[q].sum((1, 2)) == 0).all()


# ============================================================================ bad inputs
@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_players": 1},
        {"num_players": 8},
        {"num_players": 2.0},
        {"num_players": True},
        {"tile_visibility": "half"},
        {"crown_bonus": 1},
        {"tile_visibility": "all", "variant": "basic"},
    ],
)
def test_bad_config_raises_value_error(kwargs):
    with pytest.raises(ValueError):
        FunkyMonkey(**kwargs)


def test_illegal_or_malformed_actions_raise_value_error_and_change_nothing():
    game, s = three(positions=[0, 1, 0], hands=[[2], [1], [1]], active=MICHAEL)
    before = s.clone()
    for bad in (np.array([A_ACCEPT]), np.array([play(3, 3)]), np.array([-1]), np.array([game.num_actions])):
        with pytest.raises(ValueError):
            game.step(s, bad)
    with pytest.raises(ValueError):
        game.step(s, np.array([0.5]))
    with pytest.raises(ValueError):
        game.step(s, np.array([0, 0]))
    assert s.equals(before)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"positions": [0, 1]},  # wrong length
        {"positions": [0, 1, 16]},  # on the tiger
        {"positions": [0, 1, 0], "tiles": {9: "coconut"}},  # the chest space is no tile slot
        {"positions": [0, 1, 0], "tiles": {2: "golden"}},  # no golden tile among the granite ones
        {"positions": [0, 1, 0], "tiles": {13: "minus2", 14: "minus2"}},  # only one minus2 tile
        {"positions": [0, 1, 0], "hands": [["M", "M", "M"], [], []]},  # 2 MiNuss cards with 3 players
        {"positions": [0, 1, 0], "hands": [[5], [], []]},  # no such card
        {"positions": [0, 1, 0], "coconuts": [20, 20, 3]},  # more than 40 coconuts
        {"positions": [0, 1, 0], "coconuts": [3, 0, 3]},  # a monkey in the game without coconuts
        {"positions": [0, 1, 0], "golden": "bowl1"},  # bowl 1 already holds a coconut
        {"positions": [0, 1, 0], "treasures": [["crown"] * 5, [], []]},  # only 4 crowns
        {"positions": [0, 1, 0], "hands": [[], [1], [1]]},  # the active player has no card
        {"positions": [0, 1, 0], "turn_order": [0]},  # the active player twice
    ],
)
def test_position_builder_rejects_impossible_positions(kwargs):
    game = FunkyMonkey(3)
    with pytest.raises(ValueError):
        game.position(**kwargs)


def test_finished_rows_ignore_their_action():
    game, s = three(positions=[0, 13, 0], active=MICHAEL)
    s = step(game, s, play(3, 1), A_ACCEPT)
    assert s.terminated[0]
    s2 = game.step(s, np.array([0]))
    assert s2.terminated[0] and (s2.rewards == 0).all() and int(s2.end_reason[0]) == END_TIGER
    assert int(s2.end_reason[0]) != END_NONE
