"""Funky Monkey fuzzing: random play with invariants every step, masks against a slow reference of
legality, observations against a slow reference, no-peeking, batch invariance, serialisation.

The long run steps over a million random decisions across 2..7 players in large batches with
vectorised invariant checks; the slow per-row references run on small batches.
"""

from __future__ import annotations

import io

import numpy as np
import pytest

from monkey_envs.core.testing import random_legal_actions
from monkey_envs.funky_monkey import FunkyMonkey, FunkyMonkeyState
from monkey_envs.funky_monkey import data as D
from monkey_envs.funky_monkey import rules as R
from monkey_envs.funky_monkey.state import (
    BOWL_COCONUT,
    BOWL_GOLDEN,
    NUM_PHASES,
    PH_ACTIVE,
    PH_BONUS,
    PH_BOWL,
    PH_OVER,
    PH_PAY,
    PH_PYRAMID,
    PH_RESPOND,
    PH_RESPOND_SEEN,
    PH_SCALES,
    ST_DECIDE,
)

PLAYERS = range(D.MIN_PLAYERS, D.MAX_PLAYERS + 1)


def max_decisions(num_players: int) -> int:
    """A generous bound on the decisions of one game: 5 rounds x P turns x (passes + telescopes
    + pay/bowl/pyramid decisions + bonus + two Scales)."""
    return D.NUM_ROUNDS * num_players * (2 * num_players + 16)


# ============================================================================ invariants
def check_invariants(game: FunkyMonkey, s: FunkyMonkeyState) -> None:
    """Vectorised invariants of every row of ``s`` (raises AssertionError naming the rows)."""
    P = game.num_players
    B = s.batch_size
    ar = np.arange(B)
    live = ~s.terminated

    def ok(cond: np.ndarray, what: str) -> None:
        bad = np.flatnonzero(~cond)
        assert bad.size == 0, f"{what} violated in rows {bad[:10].tolist()}"

    # coconuts: well + players + bowls = 40 normal ones; the golden one in exactly one place
    coconuts = s.supply.astype(int) + s.coconuts.astype(int).sum(1) + (s.bowls == BOWL_COCONUT).sum(1)
    ok(coconuts == D.TOTAL_COCONUTS, "coconut conservation")
    ok((s.coconuts >= 0).all(1) & (s.supply >= 0), "non-negative coconuts")
    ok((s.golden >= 0).astype(int) + (s.bowls == BOWL_GOLDEN).sum(1) <= 1, "one golden coconut")
    ok((s.golden >= -1) & (s.golden < P), "golden holder is a seat")
    # movement cards: hands + draw pile + discard + out of play + the card in flight
    pile = (s.draw_pile[:, :, None] == np.arange(5)).sum(1)
    ok(((s.draw_pile >= 0).sum(1) == s.draw_size), "draw pile size")
    flight = np.zeros((B, 5), int)
    inflight = (s.offer_card >= 0) & (s.revealed < 0)
    flight[ar[inflight], s.offer_card[inflight]] = 1
    cards = s.hands.astype(int).sum(1) + pile + s.discard + s.out_of_play + flight
    ok((cards == game.card_counts).all(1), "movement card conservation")
    ok((s.hands >= 0).all((1, 2)), "non-negative hands")
    # treasure cards
    ok(s.treasures.astype(int).sum((1, 2)) + s.treasure_size + s.treasure_used.sum(1) == D.NUM_TREASURES, "treasures")
    # eliminated players never act and hold no cards
    cp = s.current_player.astype(int)
    ok(~live | s.alive[ar, np.maximum(cp, 0)], "current player in the game")
    ok(~(~s.alive[:, :, None] & (s.hands > 0)).any((1, 2)), "eliminated players hold no cards")
    ok(~live | (s.alive.sum(1) >= 2), "running games have two monkeys")
    total = s.coconuts.astype(int) + (s.golden[:, None] == np.arange(P))
    ok(~(s.alive & (total == 0)).any(1), "monkeys in the game hold a coconut")
    ok(~live | ~(s.alive & (s.pos >= s.tiger[:, None])).any(1), "monkeys in the game are in front of the tiger")
    # state between steps: a decision or over
    ok(s.stage == ST_DECIDE, "no unresolved stage between steps")
    ok(np.where(live, (s.phase >= 0) & (s.phase < NUM_PHASES), s.phase == PH_OVER), "phase range")
    ok(live == s.legal_action_mask.any(1), "live rows have a legal action, finished rows none")
    ok(~live == (cp == -1), "current player -1 exactly when over")
    ok((s.round >= 1) & (s.round <= D.NUM_ROUNDS), "round in 1..5")
    ok(s.step_count <= max_decisions(P), "games end")
    # winners: only at the end; a winner is a monkey in the game
    ok(live | ~(s.winners_mask & ~s.alive).any(1) | (s.end_reason == 1), "winners are in the game")
    ok(~live | ~s.winners_mask.any(1), "no winners while running")
    ok((s.stats >= 0).all((1, 2)), "non-negative stats")


@pytest.mark.slow
def test_a_million_random_steps_across_player_counts_keep_every_invariant():
    """>= 10^6 random decisions (B = 1024, 170 steps for each of 2..7 players, finished games
    restarted with fresh seeds); invariants checked on the whole batch after every step."""
    total_steps = 0
    for P in PLAYERS:
        game = FunkyMonkey(P, tile_visibility=D.VISIBILITY[P % 3], crown_bonus=bool(P % 2))
        B = 1024
        s = game.init(np.arange(B) + 1000 * P)
        next_seed = 1000 * P + B
        rng = np.random.default_rng(P)
        ended = 0
        for t in range(170):
            if t % 17 == 0:
                obs = game.observe(s, np.maximum(s.current_player, 0))
                assert obs.shape == (B, game.obs_dim) and np.isfinite(obs).all()
            s = game.step(s, random_legal_actions(s.legal_action_mask, rng))
            total_steps += B
            check_invariants(game, s)
            done = np.flatnonzero(s.terminated)
            if done.size:
                ended += done.size
                s.put(done, game.init(np.arange(next_seed, next_seed + done.size)))
                next_seed += done.size
        assert ended > B  # games do end, and many of them
    assert total_steps >= 1_000_000


# ============================================================================ slow reference of legality
def reference_legal(game: FunkyMonkey, s: FunkyMonkeyState, b: int) -> set[int]:
    """Legal actions of row ``b`` read straight from the rulebook, one row at a time.

    Also asserts that the pending decision is one the rules really ask at this moment.
    """
    P = game.num_players
    if s.terminated[b]:
        return set()
    cp, ph = int(s.current_player[b]), int(s.phase[b])
    active, holder, mover = int(s.active[b]), int(s.holder[b]), int(s.mover[b])
    assert s.alive[b, cp]
    hand = [int(x) for x in s.hands[b, cp]]
    tre = [int(x) for x in s.treasures[b, cp]]
    golden_mine = int(s.golden[b]) == cp
    if ph == PH_ACTIVE:
        assert cp == active and sum(hand) > 0 and int(s.offer_card[b]) == -1
        out = {k * 5 + a for k in range(5) if hand[k] for a in range(5)}
        if tre[D.T_CROWN]:
            out |= {R.A_CROWN + k for k in range(5) if hand[k]}
        return out
    if ph in (PH_RESPOND, PH_RESPOND_SEEN):
        assert cp == holder != active and int(s.revealed[b]) == -1 and int(s.offer_card[b]) >= 0
        assert not s.crown_play[b]
        out = {R.A_ACCEPT, R.A_PASS}
        if ph == PH_RESPOND and tre[D.T_TELESCOPE]:
            out.add(R.A_TELESCOPE)
        if ph == PH_RESPOND_SEEN:
            assert s.seen[b, cp]
        return out
    if ph == PH_PAY:
        debt = int(s.debt[b])
        n = int(s.coconuts[b, cp])
        assert cp == mover and golden_mine and n >= 1 and n + 1 > debt >= 1
        return {R.A_PAY_NORMAL, R.A_PAY_GOLDEN}
    x = int(s.pos[b, cp])
    if ph == PH_BOWL:
        assert cp == mover and D.IS_SLOT[x] and int(s.tiles[b, x]) == D.E_NEAREST_BOWL and 6 < x < 12
        return {R.A_BOWL_1, R.A_BOWL_2}
    if ph == PH_PYRAMID:
        card = int(s.pyramid_card[b])
        assert cp == mover and D.IS_SLOT[x] and int(s.tiles[b, x]) == D.E_PYRAMID
        assert 0 <= card <= 3 and x - (card + 1) >= 0
        return {R.A_PYRAMID_FORWARD, R.A_PYRAMID_BACKWARD}
    if ph == PH_BONUS:
        truthful = int(s.revealed[b]) == int(s.announce[b]) or (bool(s.crown_play[b]) and game.crown_bonus)
        assert cp == active and truthful and int(s.revealed[b]) >= 0
        return {R.A_BONUS_MONKEY, R.A_BONUS_TIGER, R.A_BONUS_DECLINE}
    if ph == PH_SCALES:
        # asked of anyone holding a treasure card (its number is public), Scales or not
        assert cp in (active, int(s.accepter[b])) and sum(tre) > 0 and int(s.revealed[b]) >= 0
        out = {R.A_SCALES_SKIP}
        for j in range(P - 1):
            if s.alive[b, (cp + j + 1) % P] and tre[D.T_SCALES] > 0:
                out.add(R.A_SCALES_TARGET + j)
        return out
    raise AssertionError(f"unknown phase {ph}")


@pytest.mark.parametrize("num_players", PLAYERS)
def test_masks_match_a_slow_reference_of_legality(num_players):
    game = FunkyMonkey(num_players, tile_visibility="all" if num_players == 2 else "basic")
    B = 48
    s = game.init(np.arange(B) + 77)
    rng = np.random.default_rng(num_players)
    phases = set()
    for _ in range(max_decisions(num_players)):
        for b in range(B):
            got = set(np.flatnonzero(s.legal_action_mask[b]).tolist())
            assert got == reference_legal(game, s, b), f"row {b}: {game.render(s, b)}"
        phases |= set(s.phase[~s.terminated].tolist())
        if s.terminated.all():
            break
        s = game.step(s, random_legal_actions(s.legal_action_mask, rng))
    assert s.terminated.all()
    assert {PH_ACTIVE, PH_RESPOND} <= phases


def test_every_decision_phase_occurs_in_random_play():
    game = FunkyMonkey(4)
    s = game.init(np.arange(512))
    rng = np.random.default_rng(0)
    seen = set()
    while not s.terminated.all():
        seen |= set(s.phase[~s.terminated].tolist())
        s = game.step(s, random_legal_actions(s.legal_action_mask, rng))
    assert seen == set(range(NUM_PHASES))


# ============================================================================ observation reference
def reference_observation(game: FunkyMonkey, s: FunkyMonkeyState, b: int, o: int) -> dict[str, np.ndarray]:
    """Observation of seat ``o`` in row ``b``, piece by piece, the slow way."""
    P = game.num_players
    out = {p.name: np.zeros(p.shape, np.float32) for p in game.obs_layout.pieces}

    def rel(seat: int) -> int:
        return (seat - o) % P

    running = not s.terminated[b]
    if running:
        out["phase"][int(s.phase[b])] = 1
        out["to_move"][rel(int(s.current_player[b]))] = 1
    out["active"][rel(int(s.active[b]))] = 1
    if s.holder[b] >= 0:
        out["holder"][rel(int(s.holder[b]))] = 1
    if s.accepter[b] >= 0:
        out["accepter"][rel(int(s.accepter[b]))] = 1
    if s.announce[b] >= 0:
        out["announcement"][int(s.announce[b])] = 1
    knows = s.offer_card[b] >= 0 and s.revealed[b] < 0 and s.seen[b, o]
    if knows:
        out["known_card"][int(s.offer_card[b])] = 1
    if s.revealed[b] >= 0:
        out["revealed"][int(s.revealed[b])] = 1
    out["passes"][0] = s.passes[b] / P
    if s.pyramid_card[b] >= 0:
        out["pyramid_card"][int(s.pyramid_card[b])] = 1
    out["debt"][0] = s.debt[b] / 2
    out["hand"][:] = s.hands[b, o] / 5
    out["treasures"][:] = s.treasures[b, o]
    for j in range(P):
        seat = (o + j) % P
        out["hand_sizes"][j] = s.hands[b, seat].sum() / 5
        out["treasure_counts"][j] = s.treasures[b, seat].sum() / 4
        if s.alive[b, seat]:
            out["position"][j, int(s.pos[b, seat])] = 1
            out["alive"][j] = 1
            out["tiger_distance"][j] = (int(s.tiger[b]) - int(s.pos[b, seat])) / 19
        out["coconuts"][j] = s.coconuts[b, seat] / 10
        out["truths_shown"][j] = s.stats[b, seat, 1] / 5  # counted when the card is revealed
        out["bluffs_shown"][j] = s.stats[b, seat, 2] / 5
    out["treasure_used"][:] = s.treasure_used[b] / 4
    out["treasure_pile"][0] = s.treasure_size[b] / 12
    g = int(s.golden[b])
    if g >= 0:
        out["golden"][rel(g)] = 1
    elif s.bowls[b, 0] == BOWL_GOLDEN:
        out["golden"][P + 1] = 1
    elif s.bowls[b, 1] == BOWL_GOLDEN:
        out["golden"][P + 2] = 1
    else:
        out["golden"][P] = 1
    out["bowls"][:] = s.bowls[b] > 0
    out["supply"][0] = s.supply[b] / 40
    out["tiger"][int(s.tiger[b])] = 1
    unseen_tiles = D.TILE_COMPOSITION.astype(np.float32).copy()
    for i, slot in enumerate(np.flatnonzero(D.IS_SLOT)):
        if s.face_up[b, slot]:
            k = int(s.tiles[b, slot])
            out["tiles"][i, k] = 1
            unseen_tiles[k - 1] -= 1
        else:
            out["tiles"][i, 0] = 1
    out["unseen_tiles"][:] = unseen_tiles / 2
    out["discard"][:] = s.discard[b] / (P + 2)
    unseen = game.card_counts - s.discard[b] - s.hands[b, o]
    if knows:
        unseen[int(s.offer_card[b])] -= 1
    out["unseen_cards"][:] = unseen / (P + 2)
    out["draw_size"][0] = s.draw_size[b] / 40
    out["round"][0] = s.round[b] / 5
    if running:
        for c in range(int(s.chip_next[b]), P):
            seat = int(s.chip_order[b, c])
            if seat >= 0 and s.alive[b, seat]:
                out["chips_left"][rel(seat)] = 1
    out["turn_flags"][:] = [s.crown_play[b], s.in_bonus[b]]
    return out


@pytest.mark.parametrize("num_players", [2, 4, 7])
def test_observation_matches_a_slow_reference(num_players):
    game = FunkyMonkey(num_players)
    B = 16
    s = game.init(np.arange(B))
    rng = np.random.default_rng(3)
    for t in range(max_decisions(num_players)):
        if t % 3 == 0:
            for o in range(num_players):
                flat = game.observe(s, o)
                obs = game.obs_layout.unflatten(flat)
                for b in range(B):
                    ref = reference_observation(game, s, b, o)
                    want = np.concatenate([ref[p.name].ravel() for p in game.obs_layout.pieces])
                    if not np.allclose(flat[b], want, rtol=1e-6, atol=1e-7):
                        bad = [n for n, w in ref.items() if not np.allclose(obs[n][b], w, rtol=1e-6, atol=1e-7)]
                        raise AssertionError(f"row {b}, observer {o}: pieces {bad} differ")
        if s.terminated.all():
            break
        s = game.step(s, random_legal_actions(s.legal_action_mask, rng))


# ============================================================================ no peeking
def hide_and_reshuffle(game: FunkyMonkey, s: FunkyMonkeyState, b: int, o: int, rng: np.random.Generator) -> None:
    """Re-deal, in place, everything seat ``o`` may not know in row ``b``: other hands, the draw pile
    and its order, the unseen card in flight, cards out of play, face-down and removed tiles, the
    treasure stack and the types of other players' treasure cards, and the RNG key."""
    P = game.num_players
    others = [p for p in range(P) if p != o]
    # ---- movement cards hidden from o
    flight = s.offer_card[b] >= 0 and s.revealed[b] < 0 and not s.seen[b, o]
    pool = []
    for p in others:
        pool += [k for k in range(5) for _ in range(int(s.hands[b, p, k]))]
    pool += [int(x) for x in s.draw_pile[b, : s.draw_size[b]]]
    pool += [k for k in range(5) for _ in range(int(s.out_of_play[b, k]))]
    if flight:
        pool.append(int(s.offer_card[b]))
    rng.shuffle(pool)
    for p in others:
        n = int(s.hands[b, p].sum())
        s.hands[b, p] = np.bincount(pool[:n], minlength=5)
        pool = pool[n:]
    n = int(s.draw_size[b])
    s.draw_pile[b, :n] = pool[:n]
    pool = pool[n:]
    n = int(s.out_of_play[b].sum())
    s.out_of_play[b] = np.bincount(pool[:n], minlength=5)
    pool = pool[n:]
    if flight:
        s.offer_card[b] = pool.pop()
    assert not pool
    # ---- tiles not face up, per back (with the removed one)
    for i, back in enumerate(D.TILE_BACKS):
        down = [x for x in D.TILE_SLOTS_RECONSTRUCTED[back] if not s.face_up[b, x]]
        kinds = [int(s.tiles[b, x]) for x in down] + [int(s.removed_tiles[b, i])]
        rng.shuffle(kinds)
        for x in down:
            s.tiles[b, x] = kinds.pop()
        s.removed_tiles[b, i] = kinds.pop()
    # ---- treasure cards of others and the stack
    tpool = [int(x) for x in s.treasure_pile[b, : s.treasure_size[b]]]
    for p in others:
        tpool += [t for t in range(3) for _ in range(int(s.treasures[b, p, t]))]
    rng.shuffle(tpool)
    for p in others:
        n = int(s.treasures[b, p].sum())
        s.treasures[b, p] = np.bincount(tpool[:n], minlength=3)
        tpool = tpool[n:]
    s.treasure_pile[b, : s.treasure_size[b]] = tpool
    s.rng[b, 0] ^= np.uint64(0x5DEECE66D)


@pytest.mark.parametrize("num_players", [2, 3, 5, 7])
def test_no_peeking_hidden_parts_never_change_a_players_observation(num_players):
    game = FunkyMonkey(num_players)
    B = 24
    s = game.init(np.arange(B) + 5)
    rng = np.random.default_rng(11)
    checked = changed_own = 0
    for t in range(60):
        if t % 4 == 0:
            live = np.flatnonzero(~s.terminated)
            for o in range(num_players):
                before = game.observe(s, o)
                other = s.clone()
                for b in live:
                    hide_and_reshuffle(game, other, int(b), o, rng)
                check_invariants(game, other)
                np.testing.assert_array_equal(game.observe(other, o), before)
                checked += live.size
                # control: the observer's own hand is visible, so changing it changes the observation
                mine = s.clone()
                mine.hands[:, o] = np.roll(mine.hands[:, o], 1, axis=1)
                changed_own += int((game.observe(mine, o) != before).any(1)[s.hands[:, o].any(1)].all())
        if s.terminated.all():
            break
        s = game.step(s, random_legal_actions(s.legal_action_mask, rng))
    assert checked > 100 and changed_own > 0


# ============================================================================ batch invariance
def seeded_policy(s: FunkyMonkeyState, seeds: np.ndarray) -> np.ndarray:
    """A deterministic pseudo-random legal action per row from (seed, step count) only."""
    m = s.legal_action_mask
    n = np.maximum(m.sum(1), 1)
    pick = (seeds * 7919 + s.step_count.astype(np.int64) * 104729) % n
    rank = np.cumsum(m, axis=1) - 1
    return np.where(m & (rank == pick[:, None]), 1, 0).argmax(1)


@pytest.mark.parametrize("num_players", [2, 5, 7])
def test_batch_row_replays_exactly_like_the_single_game_with_its_seed(num_players):
    game = FunkyMonkey(num_players)
    seeds = np.arange(40) * 13 + 2
    batch = game.init(seeds)
    singles = [game.init(int(sd)) for sd in seeds[:6]]
    for _ in range(max_decisions(num_players)):
        batch = game.step(batch, seeded_policy(batch, seeds))
        singles = [game.step(x, seeded_policy(x, seeds[i : i + 1])) for i, x in enumerate(singles)]
        for i, x in enumerate(singles):
            assert x.equals(batch.take(i)), f"row {i} diverged at step {int(x.step_count[0])}"
        if batch.terminated.all():
            break
    assert batch.terminated.all()


def test_partial_reset_rows_replay_like_fresh_games():
    game = FunkyMonkey(4)
    seeds = np.arange(8)
    s = game.init(seeds)
    for _ in range(10):
        s = game.step(s, seeded_policy(s, seeds))
    s.put(np.array([3]), game.init(99))
    ref = game.init(99)
    seeds = seeds.copy()
    seeds[3] = 99
    for _ in range(30):
        s = game.step(s, seeded_policy(s, seeds))
        ref = game.step(ref, seeded_policy(ref, seeds[3:4]))
        assert s.take(3).equals(ref)


# ============================================================================ state as data
def test_serialisation_round_trips_and_take_concat_commute_with_step():
    game = FunkyMonkey(5, tile_visibility="every_second")
    s = game.init(np.arange(12))
    rng = np.random.default_rng(5)
    for _ in range(25):
        s = game.step(s, random_legal_actions(s.legal_action_mask, rng))
    assert FunkyMonkeyState.from_json(s.to_json()).equals(s)
    buf = io.BytesIO()
    s.save(buf)
    buf.seek(0)
    assert FunkyMonkeyState.load(buf).equals(s)
    a = random_legal_actions(s.legal_action_mask, rng)
    whole = game.step(s, a)
    parts = FunkyMonkeyState.concat([game.step(s.take(slice(0, 5)), a[:5]), game.step(s.take(slice(5, 12)), a[5:])])
    assert parts.equals(whole)


def test_step_leaves_its_input_untouched():
    game = FunkyMonkey(3)
    s = game.init(np.arange(16))
    rng = np.random.default_rng(2)
    for _ in range(40):
        before = s.clone()
        nxt = game.step(s, random_legal_actions(s.legal_action_mask, rng))
        assert s.equals(before)
        s = nxt


def test_bad_inputs_raise_value_error():
    game = FunkyMonkey(3)
    s = game.init(np.arange(4))
    with pytest.raises(ValueError):
        game.init(-1)
    with pytest.raises(ValueError):
        game.init([])
    with pytest.raises(ValueError):
        game.observe(s, 3)
    with pytest.raises(ValueError):
        game.observe(s, np.zeros(5, int))
    with pytest.raises(ValueError):
        game.step(s, np.zeros((4, 1), int))
    with pytest.raises(ValueError):
        FunkyMonkey(4).step(s, np.zeros(4, int))  # a state of a differently configured game
    illegal = np.where(s.legal_action_mask, -1, 1).argmax(1)
    with pytest.raises(ValueError, match="illegal"):
        game.step(s, illegal)
    with pytest.raises(ValueError):
        game.action_name(s, 0, game.num_actions)
