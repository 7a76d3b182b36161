"""4 Monkeys: one scenario test per rule of the rulebook and DECISIONS.md (tick discretisation included)."""

from __future__ import annotations

import numpy as np
import pytest

from monkey_envs.core.rng import shuffle_order
from monkey_envs.four_monkeys import FourMonkeys
from monkey_envs.four_monkeys import data as D
from monkey_envs.four_monkeys.state import TILE_GREEN, TILE_LOOSE, TILE_ORANGE, TILE_STACK

G4 = FourMonkeys(num_players=4)
G2 = FourMonkeys(num_players=2)


def kinds(game: FourMonkeys, text: str) -> np.ndarray:
    return game.parse_cards(text).astype(np.int64)


def grab(game: FourMonkeys, t: int, skin: int = 0) -> int:
    return game.a_grab + t * game.grab_variants + skin


def tick(game: FourMonkeys, s, acts: dict[int, int] | None = None):
    """One tick: every seat commits (``acts`` seat -> action, the others wait)."""
    acts = acts or {}
    for q in range(game.num_players):
        assert int(s.current_player[0]) == q
        a = acts.get(q, game.a_wait)
        assert s.legal_action_mask[0, a], f"seat {q}: {game.action_name(s, 0, a)} is not legal"
        s = game.step(s, np.array([a]))
    return s


def priority(game: FourMonkeys, s) -> list[int]:
    """The priority order the next tick resolution of row 0 will draw (the RNG is not advanced)."""
    rng = s.rng.copy()
    P = game.num_players
    order = np.empty(2 * P + 1, np.intp)
    shuffle_order(rng, 0, P, P, np.empty(P), order)
    return order[:P].tolist()


def laws(game: FourMonkeys, s) -> None:
    bad = game.state_violations(s)
    assert not bad, bad[:5]


def hand_size(s, q: int) -> int:
    return int(s.hands[0, q].sum())


# ============================================================================ setup
def test_deck_is_ten_figure_pairs_four_times_with_golden_buttons_on_doubles():
    assert len(D.KINDS) == 10 and len(set(D.KINDS)) == 10
    assert {frozenset(k) for k in D.KINDS} == {frozenset((a, b)) for a in range(4) for b in range(a, 4)}
    assert D.DECK_SIZE == 40
    for k, (a, b) in enumerate(D.KINDS):
        assert (D.KIND_GOLDEN[k] >= 0) == (a == b)
        assert D.KIND_FIGURES[k].sum() == 2


@pytest.mark.parametrize(("players", "sets"), [(2, 3), (3, 3), (4, 4), (6, 6)])
def test_deal_five_cards_each_tiles_in_players_plus_two_levelled_stacks(players, sets):
    g = FourMonkeys(num_players=players)
    s = g.init(np.arange(5))
    laws(g, s)
    assert g.num_tiles == 10 * sets
    assert (s.hands.sum(2) == D.HAND_SIZE).all()
    assert (s.deck_size == D.DECK_SIZE - D.HAND_SIZE).all()  # each seat drew from its own deck
    assert (s.pending == 0).all() and (s.tile_owner == -1).all()
    assert s.stack_size.shape[1] == players + 2
    assert (s.stack_size.max(1) - s.stack_size.min(1) <= 1).all()  # levelled
    assert (s.stack_size.sum(1) == g.num_tiles).all()
    for b in range(5):
        ids = sorted(int(t) for t in s.stacks[b].ravel() if t >= 0)
        assert ids == list(range(g.num_tiles))  # every tile once, green side up
    assert (s.tile_state == TILE_STACK).all()
    assert not s.replenish_used.any()
    # each round reshuffles: different seeds, different decks and stacks
    assert not np.array_equal(s.decks[0], s.decks[1]) and not np.array_equal(s.stacks[0], s.stacks[1])


def test_combo_catalogue_and_the_correctness_rule():
    g = G4
    c = D.COMBO_NAMES.index
    ok = [
        ("C+T", "CT"),
        ("C+T", "CC TT"),
        ("S+P", "SP"),
        ("CCC", "CC CT"),
        ("PPP", "PP SP"),
        ("C+T+S+P", "CT SP"),
        ("TTSS", "TT SS"),
        ("TTSS", "TS TS"),
        ("2 golden", "CC PP"),
        ("PPPP", "PP PP"),
        ("CCTTSS", "CT CT SS"),
        ("3 golden different", "CC TT SS"),
    ]
    for name, cards in ok:
        assert g.is_correct(c(name), kinds(g, cards)), (name, cards)
    wrong = [
        ("C+T", "CT CT"),  # a superfluous card
        ("S+P", "SS"),  # a pentagon missing
        ("CCC", "CC CS CT"),  # the second card is superfluous
        ("2 golden", "CC CT"),  # one golden button only
        ("3 golden different", "CC CC TT"),  # two different figures only
        ("PPPP", "PP PP SP"),  # superfluous
        ("C+T", "-"),  # nothing
    ]
    for name, cards in wrong:
        assert not g.is_correct(c(name), kinds(g, cards)), (name, cards)
    assert g.covers(c("CCC"), kinds(g, "CC CS CT")) and not g.covers(c("S+P"), kinds(g, "SS"))
    assert (D.COMBO_ORANGE == D.COMBO_GREEN - 1).all()


# ============================================================================ atomic actions
def test_put_moves_one_hand_card_by_kind_into_the_pending_set():
    s = G4.init([3])
    k = int(np.flatnonzero(s.hands[0, 0])[0])
    before = s.hands[0, 0].copy()
    s = tick(G4, s, {0: k})
    assert s.pending[0, 0, k] == 1 and s.hands[0, 0, k] == before[k] - 1
    laws(G4, s)


def test_grab_needs_a_pending_card_puts_it_under_the_tile_and_refills_to_five():
    s = G4.init([1])
    top = int(s.stacks[0, 0, s.stack_size[0, 0] - 1])
    assert not s.legal_action_mask[0, grab(G4, top)]  # no pending card yet
    s = G4.arrange(s, hands={0: "CT SS TT"}, pending={0: "CT"})
    deck = int(s.deck_size[0, 0])
    s = tick(G4, s, {0: grab(G4, top)})
    assert s.tile_owner[0, top] == 0 and s.tile_state[0, top] == TILE_GREEN  # green side up
    assert (s.under[0, top] == kinds(G4, "CT")).all() and s.pending[0, 0].sum() == 0
    assert hand_size(s, 0) == D.HAND_SIZE and s.deck_size[0, 0] == deck - 2  # refilled from own deck
    assert s.stack_size[0, 0] == G4.num_tiles // G4.num_stacks + (0 < G4.num_tiles % G4.num_stacks) - 1
    assert s.stats[0, 0, 0] == 1
    laws(G4, s)


def test_bluff_grab_is_allowed_and_counted_as_a_bluff():
    s = G4.init([2])
    t = int(s.stacks[0, 1, s.stack_size[0, 1] - 1])
    s = G4.arrange(s, pending={0: "PP"} if t % 10 != 7 else {0: "CC"})
    s = tick(G4, s, {0: grab(G4, t)})
    assert s.tile_owner[0, t] == 0
    assert s.stats[0, 0, 1] == 1  # bluffs


def test_tick_resolution_random_priority_failed_grab_keeps_pending():
    winners = set()
    for seed in range(12):
        s = G4.init([seed])
        t = int(s.stacks[0, 2, s.stack_size[0, 2] - 1])
        s = G4.arrange(s, pending={0: "CT", 1: "SP"})
        first = next(q for q in priority(G4, s) if q in (0, 1))
        s = tick(G4, s, {0: grab(G4, t), 1: grab(G4, t)})
        loser = 1 - first
        assert s.tile_owner[0, t] == first  # the earlier seat in the priority order gets it
        assert s.pending[0, loser].sum() == 1 and hand_size(s, loser) == 5  # kept pending, no refill
        assert s.stats[0, loser, 2] == 1  # failed grab
        winners.add(first)
        laws(G4, s)
    assert winners == {0, 1}  # the order is random


def test_commits_are_hidden_until_the_tick_resolves():
    s = G4.init([4])
    k = int(np.flatnonzero(s.hands[0, 0])[0])
    a = G4.step(s, np.array([k]))
    b = G4.step(s, np.array([G4.a_wait]))
    for q in (1, 2, 3):
        assert np.array_equal(G4.observe(a, q), G4.observe(b, q))
    assert np.array_equal(a.legal_action_mask, b.legal_action_mask)
    assert a.hands[0, 0, k] == s.hands[0, 0, k]  # nothing happens before the last commit


def test_burn_own_green_tile_turns_it_orange_and_draws_three():
    s = G4.init([5])
    s = G4.arrange(s, tiles={3: (0, "PP SP", False)})
    n = hand_size(s, 0)
    assert s.legal_action_mask[0, G4.a_burn + 3]
    s = tick(G4, s, {0: G4.a_burn + 3})
    assert s.tile_state[0, 3] == TILE_ORANGE and hand_size(s, 0) == n + D.BURN_DRAW
    assert not s.legal_action_mask[0, G4.a_burn + 3]  # burned tiles cannot be burned again
    laws(G4, s)


def test_hand_replenish_swap_discards_the_hand_and_draws_five_once_per_round():
    s = G4.init([6])
    s = G4.arrange(s, hands={0: "CC CC CC CT CT CT SS"}, pending={0: "PP"})
    s = tick(G4, s, {0: G4.a_swap})
    assert s.replenish_used[0, 0] and hand_size(s, 0) == 5
    assert (s.discard[0, 0] == kinds(G4, "CC CC CC CT CT CT SS")).all()
    assert (s.pending[0, 0] == kinds(G4, "PP")).all()  # the pending set stays
    assert not s.legal_action_mask[0, G4.a_swap] and not s.legal_action_mask[0, G4.a_draw3]
    laws(G4, s)


def test_hand_replenish_draw_three():
    s = G4.init([7])
    s = tick(G4, s, {0: G4.a_draw3})
    assert s.replenish_used[0, 0] and hand_size(s, 0) == 8
    # the used tile shows -1 at scoring
    out = G4.score_round(s.tile_owner[0], s.tile_state[0], s.under[0], replenish_used=s.replenish_used[0])
    assert out["points"][0] == -1 and (out["points"][1:] == 0).all()


def test_draw_from_an_empty_own_deck_takes_from_the_largest_other_deck_lowest_seat_on_ties():
    s = G4.init([8])
    # move deck cards to seat discards so that the sizes are 0, 5, 20, 20
    for q, keep in ((0, 0), (1, 5), (2, 20), (3, 20)):
        n = int(s.deck_size[0, q])
        for i in range(keep, n):
            s.discard[0, q, s.decks[0, q, i]] += 1
            s.decks[0, q, i] = -1
        s.deck_size[0, q] = keep
    laws(G4, s)
    tops = {q: [int(x) for x in s.decks[0, q, : s.deck_size[0, q]][::-1]] for q in (2, 3)}
    before = s.hands[0, 0].astype(np.int64).copy()
    s = tick(G4, s, {0: G4.a_draw3})
    # per card: deck 2 (20 vs 20: lowest seat), then deck 3 (19 vs 20), then deck 2 (19 vs 19)
    assert s.deck_size[0].tolist() == [0, 5, 18, 19]
    drawn = np.bincount([tops[2][0], tops[3][0], tops[2][1]], minlength=10)
    assert (s.hands[0, 0] - before == drawn).all()
    laws(G4, s)


def test_reveal_only_when_owning_every_available_combo_and_on_stacks_of_two():
    s = G4.init([9])
    tops = [int(s.stacks[0, k, s.stack_size[0, k] - 1]) for k in range(G4.num_stacks)]
    reveal = [G4.a_reveal + t for t in tops]
    assert not s.legal_action_mask[0, reveal].any()  # seat 0 owns nothing
    owned = {t: (0, "CT", False) for t in range(10, 20) if t not in tops}  # set 1 ...
    for c in range(10):  # ... or another set's tile of the same combo
        if all(t % 10 != c for t in owned):
            owned[next(t for t in range(20, 40) if t % 10 == c and t not in tops)] = (0, "CT", False)
    s = G4.arrange(s, tiles=owned)
    tops = [int(s.stacks[0, k, s.stack_size[0, k] - 1]) for k in range(G4.num_stacks)]
    k = int(np.argmax(s.stack_size[0]))
    t = int(s.stacks[0, k, s.stack_size[0, k] - 1])
    assert s.legal_action_mask[0, G4.a_reveal + t]
    size = int(s.stack_size[0, k])
    s = tick(G4, s, {0: G4.a_reveal + t})
    assert s.tile_state[0, t] == TILE_LOOSE and s.stack_size[0, k] == size - 1
    under = int(s.stacks[0, k, size - 2])
    obs = G4.obs_layout.unflatten(G4.observe(s, 1))["tiles"][0]
    assert obs[t, 0] == 1 and obs[under, 0] == 1  # both available to everybody now
    laws(G4, s)
    # a stack of one tile cannot be revealed
    s2 = G4.init([9])
    s2 = G4.arrange(s2, tiles=owned)
    for k2 in range(G4.num_stacks):
        n2 = int(s2.stack_size[0, k2])
        if n2 >= 1:
            top2 = int(s2.stacks[0, k2, n2 - 1])
            assert s2.legal_action_mask[0, G4.a_reveal + top2] == (n2 >= 2)


def _ten_combos(seat: int, start: int = 0) -> dict[int, tuple[int, str, bool]]:
    cards = ["CT", "SP", "CC CT", "PP SP", "CT SP", "TT SS", "CC PP", "PP PP", "CT CT SS", "CC TT SS"]
    return {start + c: (seat, cards[c], False) for c in range(10)}


def test_valid_stop_with_ten_combos_ends_the_round_and_scores_it():
    s = G4.init([10])
    s = G4.arrange(s, tiles=_ten_combos(0))
    s = tick(G4, s, {0: G4.a_stop})
    assert s.round[0] == 1 and s.replays[0] == 0 and s.tick[0] == 0
    green = int(D.COMBO_GREEN.sum())
    assert s.round_scores[0, 0].tolist() == [green, 0, 0, 0] and s.totals[0, 0] == green
    assert s.stats[0, 0, 7] == 1 and s.stats[0, 0, 9] == 1  # smartest, valid stop
    laws(G4, s)


def test_invalid_stop_costs_ten_and_replays_the_round_at_most_twice():
    s = G4.init([11])
    s = tick(G4, s, {0: G4.a_draw3})
    s = tick(G4, s, {1: G4.a_stop})
    assert s.totals[0].tolist() == [0, -10, 0, 0] and s.round[0] == 0 and s.replays[0] == 1
    assert s.tick[0] == 0 and not s.replenish_used[0].any() and (s.hands.sum(2) == 5).all()  # replayed
    assert (s.round_scores == 0).all()  # the penalty is not a round score
    s = tick(G4, s, {2: G4.a_stop})
    assert s.replays[0] == 2 and s.totals[0].tolist() == [0, -10, -10, 0]
    assert not s.legal_action_mask[0, G4.a_stop]  # the cap: Stop needs 10 different combos now
    s = G4.arrange(s, tiles=_ten_combos(0))
    assert s.legal_action_mask[0, G4.a_stop]
    s = tick(G4, s, {0: G4.a_stop})
    assert s.round[0] == 1 and s.replays[0] == 0
    laws(G4, s)


def test_after_a_stop_the_rest_of_the_tick_does_nothing():
    seen = set()
    for seed in range(12):
        s = G4.init([20 + seed])
        s = G4.arrange(s, tiles=_ten_combos(0), pending={1: "CT"})
        t = int(s.stacks[0, 0, s.stack_size[0, 0] - 1])
        order = priority(G4, s)
        grabbed_first = order.index(1) < order.index(0)
        s = tick(G4, s, {0: G4.a_stop, 1: grab(G4, t)})
        pts = s.round_scores[0, 0, 1]
        assert pts == (D.COMBO_GREEN[t % 10] if grabbed_first else 0)
        seen.add(grabbed_first)
    assert seen == {True, False}


def test_the_timer_ends_the_round_after_the_last_tick():
    g = FourMonkeys(num_players=2, ticks=3)
    s = g.init([0])
    for _ in range(2):
        s = tick(g, s)
    assert s.round[0] == 0 and s.tick[0] == 2
    s = tick(g, s)
    assert s.round[0] == 1 and s.tick[0] == 0


# ============================================================================ scoring
def _score(game: FourMonkeys, tiles: dict[int, tuple[int, str, bool]], **kw):
    NT = game.num_tiles
    owner = np.full(NT, -1)
    state = np.zeros(NT)
    under = np.zeros((NT, 10))
    for t, (q, cards, burned) in tiles.items():
        owner[t], state[t], under[t] = q, TILE_ORANGE if burned else TILE_GREEN, kinds(game, cards)
    return game.score_round(owner, state, under, **kw)


def test_repeated_combos_are_set_aside_and_cost_two_each():
    out = _score(G4, {0: (0, "CT", False), 10: (0, "CT", False), 2: (0, "CC CT", False), 5: (1, "TT SS", False)})
    assert out["aside"][[0, 10]].all() and not out["aside"][2]
    assert out["points"][0] == 2 - 4  # CCC 2 points, two set-aside tiles
    assert out["checked"][0] == 0 and out["checked"][10] == 0  # set aside unchecked


def test_missing_figure_and_superfluous_card_are_incorrect_and_set_aside():
    out = _score(G4, {1: (0, "SS", False), 2: (0, "CC CS CT", False), 5: (0, "TT SS", False), 4: (1, "CT SP", False)})
    assert out["checked"][1] == 2 and out["checked"][2] == 2 and out["aside"][[1, 2]].all()
    # seat 0: 1 + 2 + 3 = 6 -> 3 after two set-asides (3 < seat 1's 3? tie: burned equal -> both checked)
    assert out["points"][0] == 3 - 4
    assert out["checked"][5] == 1 and out["checked"][4] == 1


def test_only_the_smartest_monkey_is_checked_and_bluffs_of_others_stand():
    out = _score(G4, {9: (0, "CC", False), 19: (1, "CC TT SS", False), 8: (1, "CT CT SS", False)})
    # seat 1: 9 points, smartest; seat 0 bluffed a 5-point tile with one card: never checked
    assert out["smartest"].tolist() == [False, True, False, False]
    assert out["checked"][9] == 0 and out["points"][0] == 5
    assert out["checked"][19] == 1 and out["checked"][8] == 1 and out["points"][1] == 9


def test_smartest_tie_more_burned_tiles_wins_the_tie():
    out = _score(G4, {7: (0, "PP PP", False), 5: (1, "TT SS", True), 1: (1, "SP", True), 9: (2, "CC", True)})
    # seat 0: 4; seat 1: 2 + 0 = 2; seat 2: 4 (burned 5-pointer): seat 2 has more burned tiles
    assert out["smartest"].tolist() == [True, False, False, False]  # after seat 2's bluff was found
    assert out["checked"][9] == 2  # seat 2 was the Smartest Monkey and its bluff was found
    assert out["checked"][7] == 1  # then seat 0 (4 > 2 - 2) is checked
    assert out["points"].tolist() == [4, 2, -2, 0]


def test_smartest_tie_all_tied_are_checked_lowest_value_first():
    out = _score(G4, {0: (0, "CT", False), 7: (0, "PP PP", False), 11: (1, "SP", False), 17: (1, "PP PP", False)})
    assert out["smartest"].tolist() == [True, True, False, False]
    assert (out["checked"][[0, 7, 11, 17]] == 1).all()
    # a wrong lowest tile of the first tied seat drops it; then only the other is the Smartest
    out = _score(G4, {0: (0, "CC", False), 7: (0, "PP PP", False), 11: (1, "SP", False), 17: (1, "PP PP", False)})
    assert out["checked"][0] == 2 and out["checked"][7] == 0
    assert out["smartest"].tolist() == [False, True, False, False]
    assert out["points"].tolist() == [4 - 2, 5, 0, 0]


def test_rulebook_scoring_example_claire_tom_ian():
    """Claire 7 (a one-card bluff on the 5-pointer, never checked), Tom 11 (three correct combos),
    Ian 13 after putting aside a repeated combo; Ian's S+P lacks a pentagon (12 left, still the
    Smartest), his CCC has a superfluous second card (10 left); Tom becomes the Smartest with 11
    and his three combos are correct. Banana skins for Claire and Tom. Final 4, 8, 2."""
    g = FourMonkeys(num_players=3, banana_skins=True, ticks=1)
    claire = {9: (0, "CC", False), 2: (0, "CC CT", False)}  # 5 + 2 = 7
    tom = {19: (1, "CC TT SS", False), 14: (1, "CT SP", False), 15: (1, "TT SS", False)}  # 5 + 3 + 3
    ian = {
        0: (2, "CT", False),
        10: (2, "CT", False),  # repeated C+T: both aside
        21: (2, "SS", False),  # S+P, 1 pentagon missing
        22: (2, "CC CS CT", False),  # CCC, could be made without the second card
        24: (2, "CT SP", False),
        25: (2, "TS TS", False),
        27: (2, "PP PP", False),  # 3 + 3 + 4 = 10
    }
    tiles = {**claire, **tom, **ian}
    out = _score(g, tiles, skins=[1, 1, 0])
    assert out["points"].tolist() == [4, 8, 2]
    assert out["smartest"].tolist() == [False, True, False]
    assert out["aside"][[0, 10, 21, 22]].all() and out["aside"].sum() == 4
    assert out["checked"][21] == 2 and out["checked"][22] == 2
    assert (out["checked"][[19, 14, 15]] == 1).all()
    assert out["checked"][9] == 0 and out["checked"][24] == 0  # Claire's bluff and Ian's rest unchecked
    # the same through the game: the timer ends the round (Ian gave Claire a skin, Claire gave Tom one)
    s = g.init([0])
    s = g.arrange(s, tiles=tiles)
    s.skins[0] = [1, 1, 0]
    s.skin_given[0] = [True, False, True]
    g.refresh(s)
    s = tick(g, s)
    assert s.round[0] == 1 and s.round_scores[0, 0].tolist() == [4, 8, 2] and s.totals[0].tolist() == [4, 8, 2]
    assert s.stats[0, :, 7].tolist() == [0, 1, 0]  # Tom was the Smartest Monkey
    assert s.stats[0, :, 6].tolist() == [0, 0, 4]  # Ian's set-aside tiles
    assert s.stats[0, :, 8].tolist() == [0, 0, 2]  # found incorrect


# ============================================================================ Banana skins
def test_banana_skin_is_handed_over_with_a_successful_grab_once_and_costs_three():
    g = FourMonkeys(num_players=3, banana_skins=True)
    s = g.init([1])
    t = int(s.stacks[0, 0, s.stack_size[0, 0] - 1])
    u = int(s.stacks[0, 1, s.stack_size[0, 1] - 1])
    assert g.grab_variants == 3
    s = g.arrange(s, pending={0: "CT", 1: "SP"})
    s = tick(g, s, {0: grab(g, t, 1)})  # skin to seat 1
    assert s.skins[0].tolist() == [0, 1, 0] and s.skin_given[0].tolist() == [True, False, False]
    s = g.arrange(s, pending={0: "CT"})
    v = int(s.stacks[0, 2, s.stack_size[0, 2] - 1])
    assert s.legal_action_mask[0, grab(g, v)] and not s.legal_action_mask[0, grab(g, v, 1)]  # one per round
    # seat 1 gives its own skin; the received one can never be passed on
    s = tick(g, s, {1: grab(g, u, 1)})  # seat 1 + 1 = seat 2
    assert s.skins[0].tolist() == [0, 1, 1] and s.skin_given[0, 1]
    assert g.action_name(s, 0, grab(g, t, 1)).endswith("Banana skin to B")
    out = g.score_round(s.tile_owner[0], s.tile_state[0], s.under[0], skins=s.skins[0])
    assert out["points"][1] == -3 + (D.COMBO_GREEN[u % 10] if out["checked"][u] != 2 else -2)
    laws(g, s)


def test_failed_grab_hands_over_no_banana_skin():
    g = FourMonkeys(num_players=2, banana_skins=True)
    for seed in range(8):
        s = g.init([seed])
        t = int(s.stacks[0, 0, s.stack_size[0, 0] - 1])
        s = g.arrange(s, pending={0: "CT", 1: "SP"})
        s = tick(g, s, {0: grab(g, t, 1), 1: grab(g, t, 1)})
        assert s.skins[0].sum() == 1 and s.skin_given[0].sum() == 1
        assert s.skins[0, 1 - int(s.tile_owner[0, t])] == 1


# ============================================================================ family scoring
def test_family_scoring_steps_two_and_four():
    g = FourMonkeys(num_players=3, family=True)
    assert g.ticks == D.DEFAULT_TICKS_FAMILY
    out = _score(
        g,
        {
            0: (0, "CT", False),
            10: (0, "CT", False),  # repeated: set aside in Step 1 (DECISIONS), counts for nothing
            2: (0, "CC", True),  # burned, wrong
            7: (0, "PP PP", True),  # burned
            3: (0, "PP CP", False),
            4: (0, "CT SP", False),
            5: (1, "TT SS", False),
            9: (1, "CC TT SS", False),
            1: (2, "SP", False),
        },
        replenish_used=[True, False, False],
    )
    # seat 0 has the most tiles not set aside (4): the Smartest Monkey; its wrong CCC is found (-1)
    assert out["checked"][2] == 2 and out["aside"][[0, 10]].all() and (out["checked"][[0, 10]] == 0).all()
    # after the check seat 0 has 3 tiles, seat 1 2: seat 0 stays the Smartest (+1)
    assert out["smartest"].tolist() == [True, False, False]
    # seat 0: +2 unburned, +0 (one burned left: floor(1/2)), -1 wrong, +1 smartest; the repeated
    # C+T score and cost 0; replenish ignored
    assert out["points"].tolist() == [2, 2, 1]


def test_family_scoring_keeps_step_one_issue_22_reproduction():
    """Issue 22, item 1 (DECISIONS.md: family scoring changes only Steps 2 and 4): seat 0's
    repeated C+T is set aside -- not counted towards "most combo tiles", not checked, 0 points --
    so seat 1 (one tile) is the Smartest Monkey: ``[0 2]``, not ``[3 1]``."""
    g = FourMonkeys(num_players=2, family=True)
    owner = np.full(g.num_tiles, -1)
    state = np.zeros(g.num_tiles, np.int8)
    under = np.zeros((g.num_tiles, 10), np.int8)
    for t, seat, cards in [(0, 0, "CT"), (10, 0, "CT"), (1, 1, "SP")]:  # seat 0 holds C+T twice
        owner[t], state[t], under[t] = seat, TILE_GREEN, g.parse_cards(cards)
    out = g.score_round(owner, state, under)
    assert out["points"].tolist() == [0, 2]
    assert out["smartest"].tolist() == [False, True]
    assert out["aside"][[0, 10]].all() and (out["checked"][[0, 10]] == 0).all()
    assert out["checked"][1] == 1


def test_family_scoring_a_repeated_wrong_combo_costs_nothing():
    """Issue 22, item 1: repeated combos are never checked, so wrong cards under them cost 0 in
    family scoring (and no -2 per set-aside tile), burned or not; the orange ones do not count
    towards "+1 for every two burned" either."""
    g = FourMonkeys(num_players=2, family=True)
    # seat 0: C+T twice (both wrong), CCC twice (both burned, wrong), PPPP (correct)
    tiles = {
        0: (0, "SS", False),
        10: (0, "PP", False),
        2: (0, "TT", True),
        12: (0, "SS", True),
        7: (0, "PP PP", False),
        1: (1, "SP", False),
        11: (1, "TT", False),  # S+P twice for seat 1 too: both aside
    }
    out = _score(g, tiles)
    assert out["aside"][[0, 10, 2, 12, 1, 11]].all() and not out["aside"][7]
    assert (out["checked"][[0, 10, 2, 12, 1, 11]] == 0).all()
    # seat 0 has 1 tile, seat 1 none: seat 0 is the Smartest, PPPP is correct
    assert out["smartest"].tolist() == [True, False]
    assert out["checked"][7] == 1
    assert out["points"].tolist() == [1 + 1, 0]


def test_non_family_repeated_combos_still_cost_two_each_issue_22():
    """Issue 22, item 1 leaves the standard scoring unchanged: the same table as the family test
    above scores visible values minus 2 per set-aside tile."""
    tiles = {0: (0, "SS", False), 10: (0, "PP", False), 7: (0, "PP PP", False), 1: (1, "SP", False)}
    out = _score(G2, tiles)
    assert out["aside"][[0, 10]].all() and out["smartest"].tolist() == [True, False]
    assert out["points"].tolist() == [4 - 4, 1]


def test_family_ties_least_burned_then_highest_tiles_then_score():
    g = FourMonkeys(num_players=3, family=True)
    tiles = {7: (0, "PP PP", False), 5: (1, "TT SS", True), 11: (2, "SP", False)}
    out = _score(g, tiles)
    assert out["smartest"].tolist() == [True, False, False]  # 1 tile each: least burned, then highest value
    tiles = {1: (0, "SP", False), 11: (1, "SP", False)}
    out = _score(g, tiles, totals=[3, 5, 0])
    assert out["smartest"].tolist() == [False, True, False]  # then ahead in the score
    out = _score(g, tiles, totals=[5, 5, 0])
    assert out["smartest"].tolist() == [True, True, False]  # still tied: both (+1 each)
    assert out["points"].tolist() == [2, 2, 0]


# ============================================================================ game end
def test_three_rounds_then_the_highest_total_wins():
    g = FourMonkeys(num_players=2, ticks=2)
    s = g.init([0])
    steps = 0
    while not s.terminated[0]:
        s = tick(g, s)
        steps += 1
    assert steps == 3 * 2 and s.round[0] == 3
    assert g.end_reason_names(s) == ["rounds_played"]
    assert s.winners_mask[0].all() and (s.rewards[0] == 0).all()  # everyone 0: shared by all


def _last_round(g: FourMonkeys, totals: list[int], before: list[list[int]], tiles):
    s = g.init([0])
    s.round[0] = g.rounds - 1
    s.round_scores[0, : g.rounds - 1] = before
    s.totals[0] = totals
    s = g.arrange(s, tiles=tiles)
    return tick(g, s)


def test_tie_on_total_goes_to_the_best_last_round_then_is_shared():
    g = FourMonkeys(num_players=3, ticks=1)
    # seat 0: 10 + 3 = 13, seat 1: 12 + 1 = 13 -> seat 0 scored more in the last round
    s = _last_round(g, [10, 12, 0], [[5, 6, 0], [5, 6, 0]], {5: (0, "TT SS", False), 0: (1, "CT", False)})
    assert s.totals[0].tolist() == [13, 13, 0] and s.winners_mask[0].tolist() == [True, False, False]
    assert s.rewards[0].tolist() == [1.0, -1.0, -1.0]
    # equal totals and equal last rounds: shared victory
    s = _last_round(g, [10, 10, 0], [[5, 5, 0], [5, 5, 0]], {0: (0, "CT", False), 1: (1, "SP", False)})
    assert s.winners_mask[0].tolist() == [True, True, False] and s.rewards[0].tolist() == [1.0, 1.0, -1.0]
    laws(g, s)


def test_invalid_stop_penalty_does_not_count_as_last_round_score():
    g = FourMonkeys(num_players=2, ticks=1)
    s = g.init([0])
    s.round[0] = g.rounds - 1
    s.round_scores[0, :2] = [[0, 0], [0, 0]]
    s = g.arrange(s)
    s = tick(g, s, {1: g.a_stop})  # invalid: -10 for seat 1, replay
    assert s.totals[0].tolist() == [0, -10] and not s.terminated[0]
    s = g.arrange(s, tiles={0: (1, "CT", False)})
    s = tick(g, s)
    assert s.totals[0].tolist() == [0, -9] and s.round_scores[0, 2].tolist() == [0, 1]
    assert s.winners_mask[0].tolist() == [True, False]


# ============================================================================ options
@pytest.mark.parametrize(
    "bad",
    [
        {"num_players": 1},
        {"num_players": 9},
        {"num_players": 2.0},
        {"ticks": 0},
        {"rounds": 0},
        {"banana_skins": "yes"},
        {"family": 1},
        {"max_replays": -1},
    ],
)
def test_bad_options_are_refused_naming_them(bad):
    with pytest.raises(ValueError, match=next(iter(bad))):
        FourMonkeys(**bad)


def test_action_names_and_render_hide_other_seats_cards():
    s = G4.init([0])
    names = {G4.action_name(s, 0, a) for a in range(G4.num_actions)}
    assert "stop" in names and "wait" in names and "put CT" in names and "replenish: swap hand" in names
    s = G4.step(s, np.array([int(np.flatnonzero(s.hands[0, 0])[0])]))
    mine = G4.render(s, 0, viewer=0)
    other = G4.render(s, 0, viewer=1)
    assert "commit put" in mine and "commit committed" in other
    assert "hand 5 cards" in other


def test_seats_are_named_by_letter_in_the_text_a_person_reads_issue_22():
    """Issue 22, item 5: one naming, A, B, C ..., as the other games' renders (``A (player_0)``
    heads a seat's line, letters everywhere else): the board, the end line and the action names
    a person reads in ``play`` and ``replay`` (which name seats by letter)."""
    import io

    from monkey_envs.play import play

    g = FourMonkeys(num_players=8, banana_skins=True, ticks=1, rounds=1)
    s = g.init([0])
    board = g.render(s, 0, viewer=0)
    assert "A (player_0): area 0, total 0" in board and "H (player_7): area 1" in board
    assert g.action_name(s, 0, grab(g, 0, 2)).endswith("+ Banana skin to C")  # seat 0 + 2
    assert g._commit_name(s, 0, 7, grab(g, 0, 1)).endswith("+ Banana skin to A")  # seat 7 + 1, round the table
    out = io.StringIO()
    result = play(g, ["random"] * 8, seed=3, out=out)
    screen = out.getvalue()
    letters = ", ".join("ABCDEFGH"[p] for p in result["winners"])
    assert f"game over (rounds_played): winner(s) {[*letters.split(', ')]}" in screen
    assert "winner(s): " + ", ".join(f"{'ABCDEFGH'[p]} (random)" for p in result["winners"]) in screen
    assert "over: winners [" not in screen
    bare = [line for line in screen.splitlines() if "player_" in line.replace("(player_", "")]
    assert not bare, bare[:3]


# ============================================================================ 7-8 players: two areas
G8 = FourMonkeys(num_players=8, banana_skins=True)


def test_seven_and_eight_players_play_in_two_areas_with_their_own_tiles_and_four_rounds():
    for P, second in ((7, 3), (8, 4)):
        g = FourMonkeys(num_players=P)
        assert g.area_sizes == (4, second) and g.rounds == 4
        assert g.num_tiles == 10 * (4 + second) and g.num_stacks == 6 + second + 2
        s = g.init([0])
        laws(g, s)
        assert s.area[0].tolist() == [0] * 4 + [1] * second
        for k in range(g.num_stacks):
            ids = s.stacks[0, k, : s.stack_size[0, k]]
            assert ((ids >= 40) == (k >= 6)).all()  # area 0: sets 0-3 in stacks 0-5


def test_grabs_reveals_and_skins_stay_within_ones_area():
    s = G8.init([1])
    s = G8.arrange(s, pending={0: "CT", 4: "SP"})
    t1 = int(s.stacks[0, 7, s.stack_size[0, 7] - 1])  # an area-1 tile
    t0 = int(s.stacks[0, 0, s.stack_size[0, 0] - 1])  # an area-0 tile
    assert not s.legal_action_mask[0, grab(G8, t1)] and s.legal_action_mask[0, grab(G8, t0)]
    assert s.legal_action_mask[0, grab(G8, t0, 1)] and not s.legal_action_mask[0, grab(G8, t0, 4)]  # seat 4: area 1
    s = G8.step(s, np.array([G8.a_wait]))
    for _ in range(3):
        s = G8.step(s, np.array([G8.a_wait]))
    assert s.current_player[0] == 4
    assert s.legal_action_mask[0, grab(G8, t1)] and not s.legal_action_mask[0, grab(G8, t0)]


def test_two_areas_draw_only_from_decks_of_the_same_area():
    s = G8.init([2])
    n = int(s.deck_size[0, 0])
    for i in range(n):  # empty seat 0's deck into its discards
        s.discard[0, 0, s.decks[0, 0, i]] += 1
        s.decks[0, 0, i] = -1
    s.deck_size[0, 0] = 0
    laws(G8, s)
    before = s.deck_size[0].copy()
    s = tick(G8, s, {0: G8.a_draw3})
    taken = before - s.deck_size[0]
    assert taken[:4].sum() == 3 and taken[4:].sum() == 0


def test_a_stop_ends_the_round_in_both_areas_and_seats_regroup_by_score():
    s = G8.init([3])
    s.totals[0] = [0, 0, 0, 0, 0, 0, 0, 0]
    s = G8.arrange(s, tiles={**_ten_combos(4, start=40), 0: (0, "CT", False)})
    s = tick(G8, s, {4: G8.a_stop})  # seat 4 (area 1) stops: both areas are scored
    assert s.round[0] == 1 and s.round_scores[0, 0, 0] == 1 and s.round_scores[0, 0, 4] == D.COMBO_GREEN.sum()
    # the four best totals play in area 0 (ties: the lower seat): seats 4, 0, then 1 and 2
    assert s.area[0].tolist() == [0, 0, 0, 1, 0, 1, 1, 1]
    laws(G8, s)
