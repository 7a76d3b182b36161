"""Rating maths (agents/ratings.py): the Luce / Bradley–Terry fit against hand-computed values,
recovery of known strengths from synthetic tournaments, interval coverage, Elo expectations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from agents.ratings import (
    ELO_PER_NAT,
    expected_score,
    fit_ratings,
    log_likelihood,
    seat_credit,
    win_probabilities,
)


def two_player(wins_a: int, wins_b: int, draws: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Seats and credit of ``wins_a + wins_b + draws`` games of A against B."""
    n = wins_a + wins_b + draws
    seats = np.ones((n, 2), dtype=np.int64)
    credit = np.zeros((n, 2))
    credit[:wins_a, 0] = 1
    credit[wins_a : wins_a + wins_b, 1] = 1
    credit[wins_a + wins_b :] = 0.5
    return seats, credit


# ---------------------------------------------------------------- hand-computed values
def test_bradley_terry_two_players_mle_is_the_log_odds_of_the_win_rate():
    """A beats B 30 times in 40: theta_A - theta_B = ln(30/10) = ln 3, i.e. 400 log10(3) Elo;
    its variance is 1 / (n p (1 - p)) = 1 / 7.5."""
    seats, credit = two_player(30, 10)
    fit = fit_ratings(seats, credit, ["A", "B"], prior=0.0, anchor="B")
    assert fit.elo[0] == pytest.approx(400 * math.log10(3), abs=1e-6)
    assert fit.elo[1] == 0.0 and fit.elo_se[1] == pytest.approx(0.0, abs=1e-9)
    assert fit.elo_se[0] == pytest.approx(ELO_PER_NAT * math.sqrt(1 / 7.5), rel=1e-6)
    assert fit.elo_low[0] == pytest.approx(fit.elo[0] - 1.959963984540054 * fit.elo_se[0])
    # mean-zero reporting: +-half the difference, each with half the standard error
    centred = fit_ratings(seats, credit, ["A", "B"], prior=0.0)
    np.testing.assert_allclose(centred.elo, [200 * math.log10(3), -200 * math.log10(3)], atol=1e-6)
    np.testing.assert_allclose(centred.elo_se, fit.elo_se[0] / 2, rtol=1e-6)
    # the log-likelihood at the optimum: 30 ln(3/4) + 10 ln(1/4)
    assert centred.log_likelihood == pytest.approx(30 * math.log(0.75) + 10 * math.log(0.25), abs=1e-9)
    assert log_likelihood(centred.theta, seats, credit) == pytest.approx(centred.log_likelihood)


def test_a_draw_counts_as_half_a_win_in_two_player_games():
    """20 wins, 10 losses, 10 draws: score 25 of 40, so theta_A - theta_B = ln(25/15)."""
    seats, credit = two_player(20, 10, draws=10)
    fit = fit_ratings(seats, credit, ["A", "B"], prior=0.0, anchor="B")
    assert fit.theta[0] == pytest.approx(math.log(25 / 15), abs=1e-8)


def test_luce_fit_of_one_three_seat_roster_reproduces_the_win_shares():
    """100 three-player games won 50 / 30 / 20: the MLE strengths are the logs of the shares."""
    seats = np.ones((100, 3), dtype=np.int64)
    credit = np.zeros((100, 3))
    credit[:50, 0] = credit[50:80, 1] = credit[80:, 2] = 1
    fit = fit_ratings(seats, credit, ["A", "B", "C"], prior=0.0)
    expected = np.log([0.5, 0.3, 0.2])
    np.testing.assert_allclose(fit.theta, expected - expected.mean(), atol=1e-8)
    np.testing.assert_allclose(win_probabilities(fit.elo), [0.5, 0.3, 0.2], atol=1e-8)


def test_luce_fit_counts_an_agent_holding_two_seats_as_two_equal_players():
    """A holds two seats, B one, all equal strength: A's seats win 2/3 of the games."""
    seats = np.tile([2, 1], (300, 1))
    credit = np.zeros((300, 2))
    credit[:200, 0] = credit[200:, 1] = 1
    fit = fit_ratings(seats, credit, ["A", "B"], prior=0.0)
    np.testing.assert_allclose(fit.elo, [0.0, 0.0], atol=1e-6)


def test_cyclic_results_give_equal_ratings():
    """A beats B, B beats C, C beats A, each 2:1 -- by symmetry every rating is 0."""
    seats = np.zeros((9, 3), dtype=np.int64)
    credit = np.zeros((9, 3))
    for k, (w, lo) in enumerate([(0, 1), (1, 2), (2, 0)]):
        rows = slice(3 * k, 3 * k + 3)
        seats[rows, [w, lo]] = 1
        credit[3 * k : 3 * k + 2, w] = 1
        credit[3 * k + 2, lo] = 1
    fit = fit_ratings(seats, credit, ["A", "B", "C"], prior=0.0)
    np.testing.assert_allclose(fit.elo, 0.0, atol=1e-6)


def test_anchor_shifts_ratings_without_changing_differences():
    rng = np.random.default_rng(1)
    seats, credit = synthetic_tournament(rng, [0.0, 0.5, 1.0], games=300, seats_per_game=2)
    free = fit_ratings(seats, credit, ["a", "b", "c"])
    anchored = fit_ratings(seats, credit, ["a", "b", "c"], anchor="b")
    np.testing.assert_allclose(anchored.elo, free.elo - free.elo[1], atol=1e-6)
    assert anchored.elo[1] == 0.0 and anchored.elo_se[1] == pytest.approx(0.0, abs=1e-9)
    # the standard error of a difference is the same whichever way it is reported
    var_diff = free.cov[0, 0] + free.cov[1, 1] - 2 * free.cov[0, 1]
    assert anchored.elo_se[0] == pytest.approx(math.sqrt(var_diff), rel=1e-6)


# ---------------------------------------------------------------- Elo expectations
def test_elo_expected_score_known_values():
    assert expected_score(1500, 1500) == pytest.approx(0.5)
    assert expected_score(400, 0) == pytest.approx(10 / 11)  # 400 points: odds 10:1
    assert expected_score(0, 400) == pytest.approx(1 / 11)
    assert expected_score(200, 0) == pytest.approx(1 / (1 + 10**-0.5))
    assert expected_score(123, 45) + expected_score(45, 123) == pytest.approx(1.0)
    # the multi-seat form reduces to the two-player one
    assert win_probabilities([400, 0])[0] == pytest.approx(10 / 11)
    np.testing.assert_allclose(win_probabilities([0, 0, 0, 0]), 0.25)


def test_fitted_elo_difference_predicts_the_observed_two_player_score():
    """At the MLE, Elo's expected score of the fitted ratings equals A's observed score."""
    seats, credit = two_player(130, 60, draws=10)
    fit = fit_ratings(seats, credit, ["A", "B"], prior=0.0)
    assert expected_score(fit.elo[0], fit.elo[1]) == pytest.approx(135 / 200, abs=1e-8)


# ---------------------------------------------------------------- synthetic tournaments
def synthetic_tournament(rng, theta, games, seats_per_game):
    """Games of random rosters (distinct agents) whose winner follows the Luce model.

    The winner is sampled by the Gumbel-max trick: ``argmax(theta + Gumbel noise)`` over the
    roster is distributed exactly as ``exp(theta) / sum(exp(theta))``.
    """
    theta = np.asarray(theta, dtype=float)
    K = theta.size
    roster = np.argsort(rng.random((games, K)), axis=1)[:, :seats_per_game]
    winner = roster[np.arange(games), np.argmax(theta[roster] + rng.gumbel(size=roster.shape), axis=1)]
    seats = np.zeros((games, K), dtype=np.int64)
    np.put_along_axis(seats, roster, 1, axis=1)
    credit = np.zeros((games, K))
    credit[np.arange(games), winner] = 1
    return seats, credit


def test_synthetic_four_player_tournament_recovers_known_strengths():
    true_elo = np.array([-250.0, -50.0, 100.0, 200.0])
    true_elo -= true_elo.mean()
    rng = np.random.default_rng(7)
    seats, credit = synthetic_tournament(rng, true_elo / ELO_PER_NAT, games=6000, seats_per_game=4 - 1)
    fit = fit_ratings(seats, credit, list("ABCD"))
    assert np.all(np.abs(fit.elo - true_elo) < 3.5 * fit.elo_se), (fit.elo, true_elo, fit.elo_se)
    assert np.all(np.abs(fit.elo - true_elo) < 40)
    assert np.all((fit.elo_low < fit.elo) & (fit.elo < fit.elo_high))


def test_hessian_intervals_cover_the_true_difference_about_95_percent_of_the_time():
    rng = np.random.default_rng(11)
    true = np.array([0.3, -0.3])
    hits = 0
    reps = 200
    for _ in range(reps):
        seats, credit = synthetic_tournament(rng, true, games=150, seats_per_game=2)
        fit = fit_ratings(seats, credit, ["A", "B"], prior=0.0)
        hits += fit.elo_low[0] <= true[0] * ELO_PER_NAT <= fit.elo_high[0]
    assert 0.89 <= hits / reps <= 0.99, hits / reps


def test_bootstrap_intervals_agree_with_hessian_intervals_and_are_seeded():
    rng = np.random.default_rng(3)
    seats, credit = synthetic_tournament(rng, [0.0, 0.4, 0.8], games=1500, seats_per_game=3)
    hess = fit_ratings(seats, credit, list("abc"))
    boot = fit_ratings(seats, credit, list("abc"), bootstrap=150, seed=5)
    again = fit_ratings(seats, credit, list("abc"), bootstrap=150, seed=5)
    assert boot.interval == "bootstrap" and hess.interval == "hessian"
    np.testing.assert_array_equal(boot.elo_low, again.elo_low)
    np.testing.assert_allclose(boot.elo, hess.elo)  # the point estimate is the same fit
    np.testing.assert_allclose(boot.elo_se, hess.elo_se, rtol=0.35)
    # resampling by cluster: one group per game gives the plain bootstrap
    grouped = fit_ratings(seats, credit, list("abc"), bootstrap=20, groups=np.arange(1500) // 3, seed=0)
    assert grouped.bootstrap == 20


# ---------------------------------------------------------------- existence and bad input
def test_plain_mle_refuses_when_one_agent_wins_every_game_and_the_prior_keeps_it_finite():
    seats, credit = two_player(40, 0)
    with pytest.raises(ValueError, match="do not exist"):
        fit_ratings(seats, credit, ["A", "B"], prior=0.0)
    fit = fit_ratings(seats, credit, ["A", "B"])  # default prior
    assert np.all(np.isfinite(fit.elo)) and fit.elo[0] > 400


def test_plain_mle_refuses_agents_that_never_met():
    seats = np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]])
    credit = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])
    with pytest.raises(ValueError, match="never met"):
        fit_ratings(seats, credit, list("ABCD"), prior=0.0)


@pytest.mark.parametrize(
    ("seats", "credit", "names", "kwargs", "match"),
    [
        ([[1, 1]], [[0.6, 0.6]], ["A", "B"], {}, "sum to 1"),
        ([[1, 1, 0]], [[0, 0, 1.0]], ["A", "B", "C"], {}, "without a seat"),
        ([[1, 1]], [[1.0, 0]], ["A"], {}, "at least two agents"),
        ([[1, 0]], [[1.0, 0]], ["A", "B"], {}, "at least two seats"),
        ([[1, 1]], [[1.0, 0]], ["A", "B"], {"anchor": "Z"}, "anchor"),
        ([[1, 1]], [[1.0, 0]], ["A", "B"], {"prior": -1.0}, "prior"),
        ([[1, 1]], [[1.0, 0]], ["A", "B"], {"bootstrap": -2}, "bootstrap"),
        ([[1.5, 1]], [[1.0, 0]], ["A", "B"], {}, "integers"),
        ([[1, 1, 1]], [[1.0, 0, 0]], ["A", "B"], {}, "shape"),
    ],
)
def test_fit_ratings_rejects_bad_input(seats, credit, names, kwargs, match):
    with pytest.raises(ValueError, match=match):
        fit_ratings(np.asarray(seats), np.asarray(credit), names, **kwargs)


def test_seat_credit_splits_shared_wins_and_draws():
    winners = np.array([[True, False, False], [True, True, False], [False, False, False], [True, True, True]])
    drawn = np.array([False, False, True, True])
    np.testing.assert_allclose(
        seat_credit(winners, drawn),
        [[1, 0, 0], [0.5, 0.5, 0], [1 / 3, 1 / 3, 1 / 3], [1 / 3, 1 / 3, 1 / 3]],
    )
