"""What the kit derives so a game author writes less (issue 26 item 1): the state allocated from
the schema (``Game.new_state``, each field at its declared ``start``) and handed to ``_init`` to
deal into, action names as a view hook checked in range by the kit, the observation layout from plain triples, the options recorded
from ``__init__`` as the game's ``config``, winners read from ``winners_mask``, and a
``BatchState`` subclass made a schema dataclass without a decorator."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from monkey_envs.core.registry import temporary_games
from monkey_envs.core.rng import seed_rng
from monkey_envs.core.schema import field, state_schema
from monkey_envs.core.spec import ObsLayout, ObsPiece
from monkey_envs.core.state import BatchState

with temporary_games():  # the kit's example toys, kept out of the global registry
    from toy_games.bidding import ToyBidding
    from toy_games.dice import ToyDice


def test_new_state_allocates_every_declared_field_as_zeros_and_seeds_the_streams():
    game = ToyDice(num_players=3)
    seeds = np.array([5, 0, 9])
    s = game.new_state(seeds)
    layout = game.state_layout()
    assert set(layout) == {f.name for f in dataclasses.fields(s)}
    for name, (shape, dtype) in layout.items():
        a = getattr(s, name)
        assert a.shape == (3, *shape) and a.dtype == dtype, name
        if name != "rng":
            assert not a.any(), name
    assert np.array_equal(s.rng, seed_rng(seeds))


def test_new_state_fills_each_field_with_its_declared_start_value():
    s = ToyBidding(num_players=3).new_state(np.arange(2))
    assert (s.bids == -1).all() and (s.last_bids == -1).all()  # declared start=-1
    assert not s.coins.any() and not s.points.any()  # no start: zeros


def test_a_start_value_must_fit_its_dtype():
    assert field("int8", (), "x", start=-1).metadata  # fits
    with pytest.raises(TypeError, match="does not fit"):
        field("uint8", (), "x", start=-1)
    with pytest.raises(TypeError, match="does not fit"):
        field("int8", (), "x", start=0.5)
    with pytest.raises(TypeError, match="number"):
        field("int8", (), "x", start="-1")  # type: ignore[arg-type]


def test_init_hands_the_allocated_state_to_the_deal_and_the_deal_draws_from_its_streams():
    """``init(seeds)`` = ``new_state(seeds)`` then ``_init(state, seeds)``: a deal that draws from
    ``state.rng`` replays each row alike whatever the batch (row 1 of seeds [4, 7] is seed 7 alone)."""
    game = ToyBidding(num_players=2)
    seen = []

    class Spy(ToyBidding):
        def _init(self, s, seeds):
            seen.append((s.prize.copy(), s.rng.copy(), seeds.copy()))
            super()._init(s, seeds)

    both = Spy(num_players=2).init([4, 7])
    prize0, rng0, seeds0 = seen[0]
    assert not prize0.any() and np.array_equal(rng0, seed_rng(np.array([4, 7])))
    assert seeds0.tolist() == [4, 7] and seeds0.dtype == np.int64
    alone = game.init([7])
    assert both.prize[1] == alone.prize[0] and np.array_equal(both.rng[1], alone.rng[0])


def test_a_game_with_the_old_init_signature_is_refused_with_a_message():
    with pytest.raises(TypeError, match=r"_init\(self, state, seeds\)"):

        class Old(ToyDice):
            def _init(self, seeds):  # type: ignore[override]
                return self.new_state(seeds)


def test_action_names_come_from_the_view_hook_after_the_kit_checked_the_range():
    dice, bidding = ToyDice(), ToyBidding(num_players=2, coins=3)
    assert [dice.action_name(dice.init(0), 0, a) for a in (0, 1)] == ["roll", "hold"]
    assert bidding.action_name(bidding.init(0), 0, np.int64(2)) == "bid 2"
    for bad in (-1, 2, True, 1.0):
        with pytest.raises(ValueError, match="action"):
            dice.action_name(dice.init(0), 0, bad)

    class Nameless(ToyDice):
        view = dataclasses.replace(ToyDice.view, action_name=None)

    assert Nameless().action_name(dice.init(0), 0, 1) == "action 1"  # the generic default


def test_new_state_sets_given_values_and_refuses_what_does_not_fit():
    game = ToyBidding(num_players=2, coins=4)
    s = game.new_state(np.arange(2), coins=4, bids=-1, legal_action_mask=True)
    assert (s.coins == 4).all() and (s.bids == -1).all() and s.legal_action_mask.all()
    assert s.coins.dtype == np.int16  # the declared dtype, whatever the value's
    with pytest.raises(ValueError, match="no field 'purse'"):
        game.new_state(np.arange(2), purse=1)
    with pytest.raises(ValueError, match="coins"):
        game.new_state(np.arange(2), coins=np.ones(5))
    with pytest.raises(ValueError, match="1-D"):
        game.new_state(np.zeros((2, 2), int))


def test_the_toys_init_is_new_state_plus_their_deal():
    game = ToyBidding(num_players=3, coins=5)
    s = game.init(np.arange(4))
    assert (s.coins == 5).all() and (s.last_bids == -1).all() and s.legal_action_mask.all()
    assert ((s.prize >= 1) & (s.prize <= 3)).all()
    assert game.state_violations(s) == []


def test_the_toys_laws_are_a_plug_in_the_kit_runs_after_its_own_checks():
    """``laws = __name__``: the module's ``state_violations(game, state)`` finds a broken law; a
    value out of its declared range is the kit's finding, and the laws do not see that row."""
    game = ToyDice()
    s = game.init(np.arange(3))
    s = game.step(s, np.zeros(3, np.int64))  # everybody rolls once
    assert game.state_violations(s) == []
    bad = s.clone()
    bad.pips[1, 0] += 1  # pips == score + lost + the mover's turn total, broken in row 1
    assert ("pips", 1, "pips != score + lost + turn total") in game.state_violations(bad)
    wild = s.clone()
    wild.last_roll[2] = 9  # above SIDES: the schema's range
    found = game.state_violations(wild)
    assert [v[:2] for v in found] == [("last_roll", 2)]


def test_obs_layout_is_built_from_name_shape_meaning_triples():
    game = ToyDice(num_players=4)
    layout = game.obs_layout
    assert isinstance(layout, ObsLayout) and layout.size == game.obs_dim == 4 + 4 + 4
    assert [p.name for p in layout.pieces][:2] == ["score", "mover"]
    assert layout.pieces[0] == ObsPiece("score", (4,), "banked points / target (seats observer-first)")
    assert layout.slices["turn_total"] == slice(8, 9)
    given = ObsLayout([ObsPiece("x", (2, 3), "a grid")])
    game.obs_layout = given
    assert game.obs_layout is given
    game.obs_layout = [("x", (2, 3), "a grid")]
    assert game.obs_layout.pieces == given.pieces
    with pytest.raises(ValueError):
        game.obs_layout = [("x", 3)]  # no meaning


def test_the_options_of_init_become_the_config():
    """The toys set no ``_config``: the kit records ``__init__``'s arguments, defaults included."""
    assert ToyDice(target=20).config == {"num_players": 2, "target": 20, "max_turns": 100}
    assert ToyDice(np.int64(3)).config["num_players"] == 3
    assert type(ToyDice(np.int64(3)).config["num_players"]) is int  # JSON-ready
    again = pickle.loads(pickle.dumps(ToyDice(num_players=3, max_turns=7)))
    assert again.config == {"num_players": 3, "target": 50, "max_turns": 7}

    class Longer(ToyDice):
        def __init__(self, num_players: int = 2, bonus: int = 1) -> None:
            super().__init__(num_players=num_players, target=60)
            self.bonus = bonus

    assert Longer(bonus=4).config == {"num_players": 2, "bonus": 4}  # its own options, not its parent's

    class Inherits(ToyDice):
        pass

    assert Inherits(target=11).config == {"num_players": 2, "target": 11, "max_turns": 100}

    class Shorter:  # a mixin (no Game) whose __init__ the game inherits
        def __init__(self, num_players: int = 2, quick: bool = True) -> None:
            super().__init__(num_players=num_players, max_turns=10 if quick else 100)

    class FromMixin(Shorter, ToyDice):
        pass

    game = FromMixin(quick=False)
    assert game.config == {"num_players": 2, "quick": False} and game.max_turns == 100
    assert type(game)(**game.config).config == game.config


def test_a_game_that_sets_its_config_keeps_it():
    from monkey_envs.games import make_game

    game = make_game("monkey_fun", num_players=3)
    assert game.config == {"num_players": 3, "variant": "normal", "board_side": 1, "place_on_own_secured": True}


def test_winners_are_a_copy_of_winners_mask_by_default():
    game = ToyDice()
    s = game.init(np.arange(3))
    s.winners_mask[1, 0] = True
    w = game.winners(s)
    assert np.array_equal(w, s.winners_mask) and w is not s.winners_mask
    w[:] = False
    assert s.winners_mask[1, 0]


def test_a_batch_state_subclass_is_a_schema_dataclass_without_the_decorator():
    class Plain(BatchState):
        """A state."""

        score: np.ndarray = field("int16", ("num_players",), "points.", low=0)

    assert dataclasses.is_dataclass(Plain)
    assert [f.name for f in dataclasses.fields(Plain)][-1] == "score"
    assert Plain.__doc__.count("score: ") == 1
    doc = Plain.__doc__
    assert state_schema(Plain) is Plain and Plain.__doc__ == doc  # the decorator again changes nothing
    with pytest.raises(TypeError, match="not declared"):

        class Undeclared(BatchState):
            score: np.ndarray


class NoView(ToyDice):
    """Toy Pig with its view taken away."""

    spec = dataclasses.replace(ToyDice.spec, name="toy_no_view", gym_name="ToyNoView")
    view = None


def test_a_game_without_a_view_is_refused_when_it_is_registered():
    from monkey_envs.games import GAMES, register_game

    with temporary_games():
        before = dict(GAMES)
        with pytest.raises(ValueError, match="declares no view"):
            register_game("toy_no_view", NoView)
        assert GAMES == before


def test_num_players_comes_from_the_option_when_the_game_does_not_set_it():
    assert "num_players" not in ToyDice(num_players=3).__dict__  # the toy does not set it
    assert ToyDice(num_players=3).num_players == 3 and ToyBidding(num_players=4).num_players == 4
    s = ToyDice(num_players=3).init(np.arange(2))
    assert s.score.shape == (2, 3)  # the schema's "num_players" resolves through it

    class Fixed(ToyDice):
        spec = dataclasses.replace(ToyDice.spec, name="toy_fixed", min_players=3, max_players=3)

        def __init__(self, target: int = 50) -> None:
            super().__init__(num_players=3, target=target)

    assert Fixed().config == {"target": 50} and Fixed().num_players == 3  # the spec's one count

    class Passes(ToyDice):
        def __init__(self, target: int = 50) -> None:
            super().__init__(num_players=3, target=target)

    assert Passes().num_players == 3  # the option its parent was called with

    bare = ToyDice.__new__(ToyDice)  # no __init__ ran: nothing says how many seats
    with pytest.raises(AttributeError, match="has no num_players"):
        _ = bare.num_players


class Doubled(ToyDice):
    """Reads num_players inside __init__, after its parent's."""

    def __init__(self, num_players: int = 2) -> None:
        super().__init__(num_players=num_players)
        self.double = 2 * self.num_players


class Big(ToyDice):
    """Fixes its parent's options from one of its own."""

    def __init__(self, big: bool = False) -> None:
        super().__init__(num_players=4 if big else 2)


class FixedTarget(ToyBidding):
    """A subclass of a game that takes other options than its parent's (the parent's config is recorded first)."""

    def __init__(self, rich: bool = True) -> None:
        super().__init__(num_players=3, coins=9 if rich else 3)


def test_num_players_can_be_read_inside_init_and_through_a_subclass_that_fixes_it():
    assert Doubled(3).double == 6 and Doubled(3).num_players == 3
    assert Big(big=True).num_players == 4 and Big().num_players == 2
    assert Big(big=True).config == {"big": True}
    again = pickle.loads(pickle.dumps(Big(big=True)))
    assert again.num_players == 4 and again.config == {"big": True}


def test_a_game_whose_options_are_not_its_own_still_pickles_as_itself():
    game = FixedTarget(rich=False)
    again = pickle.loads(pickle.dumps(game))
    assert type(again) is FixedTarget and again.coins == 3 and again.num_players == 3
    s = again.init(np.arange(2))
    assert (s.coins == 3).all()
