"""Ratings from game results: a Bradley–Terry / Luce fit on the Elo scale, with 95% intervals.

The model
---------
Every agent ``a`` has a strength ``theta_a`` (natural-log scale). In a game whose seats are held
by agents ``a(1), ..., a(P)`` (an agent may hold several seats), seat ``s`` wins with probability

.. math::

    \\Pr(\\text{seat } s \\text{ wins}) = \\frac{e^{\\theta_{a(s)}}}{\\sum_{j=1}^{P} e^{\\theta_{a(j)}}}

-- Luce's choice axiom, i.e. the first stage of a Plackett–Luce ranking ("who comes first").
With two seats this is the Bradley–Terry model, ``Pr(A beats B) = 1 / (1 + e^{-(theta_A -
theta_B)})``. Multi-player games enter the fit with their full information about the winner,
no pairwise decomposition is needed.

Shared wins and draws: a win shared by ``k`` seats gives each of them credit ``1/k``; a drawn
game (every seat shares it, nobody wins, or it was cut by the step cap) gives every seat
``1/P``. The log-likelihood is then the credit-weighted sum of the log win probabilities::

    LL(theta) = sum_g sum_a credit[g, a] * (theta_a - log sum_b seats[g, b] * exp(theta_b))

where ``seats[g, b]`` counts the seats agent ``b`` holds in game ``g`` and ``credit[g, a]``
sums the credit of its seats (rows of ``credit`` sum to 1). In a two-player game this counts a
draw as half a win each, as Elo does. Games with the same seat counts are pooled, so the fit
costs nothing per game.

Estimation
----------
``theta`` maximises ``LL(theta) - prior / 2 * |theta|^2``: a Gaussian prior ``N(0, 1/prior)``
on each strength (the default ``prior=0.01`` is a standard deviation of 10 in log-odds, about
1700 Elo) that leaves well-supported ratings practically unchanged but keeps them finite when an
agent wins (or loses) every comparison -- where the plain maximum-likelihood estimate does not
exist. ``prior=0`` gives the plain MLE (and a ``ValueError`` when it does not exist). The
objective is concave; :func:`scipy.optimize.minimize` (``trust-exact``, with the analytic
gradient and Hessian) solves it. The likelihood only sees differences of strengths, so ratings
are reported relative to their mean (or to an ``anchor`` agent, whose rating is then 0).

Intervals
---------
* ``"hessian"`` (default): Wald intervals ``rating +- 1.96 se`` from the inverse observed
  information ``H = sum_g n_g (diag(q_g) - q_g q_g^T)`` (``q_g`` the win probabilities of the
  agents in roster ``g``) plus the prior, projected onto the mean-zero (or anchored) ratings.
* ``bootstrap=B``: percentile intervals from ``B`` refits on games resampled with replacement
  -- by ``groups`` when given (e.g. the games that share one deal), so correlated games are
  resampled together.

The Elo scale: ``elo = theta * 400 / ln(10)``, so that a difference of ``D`` Elo points means
``Pr(A beats B) = 1 / (1 + 10^(-D/400))`` (:func:`expected_score`) in a two-seat game, and in
a ``P``-seat game seat ``s`` wins with probability ``10^(R_s/400) / sum_j 10^(R_j/400)``
(:func:`win_probabilities`).

Example (hand-computable: A beats B 30 times in 40 games, so ``theta_A - theta_B = ln 3``)::

    import numpy as np
    from agents.ratings import fit_ratings

    seats = np.ones((40, 2))
    credit = np.zeros((40, 2)); credit[:30, 0] = 1; credit[30:, 1] = 1
    fit = fit_ratings(seats, credit, ["A", "B"], prior=0.0, anchor="B")
    fit.elo  # array([190.85..., 0.]) = 400 * log10(3)
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

#: Elo points per unit of natural-log strength: ``400 / ln(10)``.
ELO_PER_NAT = 400.0 / math.log(10.0)
#: Two-sided 95% normal quantile.
Z95 = 1.959963984540054
#: Default prior precision on each strength (see the module docstring).
DEFAULT_PRIOR = 0.01
# Without a prior, less Fisher information than this in some direction means the estimate is
# running off to infinity (no MLE). A real fit of even 1 win in 2,000 games has about 1.
_NO_INFORMATION = 1e-6


def expected_score(elo_a: Any, elo_b: Any) -> Any:
    """Elo's expected score of A against B: ``1 / (1 + 10^((elo_b - elo_a) / 400))``.

    Args:
        elo_a, elo_b: ratings (scalars or broadcastable arrays).

    Returns:
        The probability that A beats B in a two-seat game (a draw counting half), same shape.
    """
    return 1.0 / (1.0 + 10.0 ** ((np.asarray(elo_b, dtype=np.float64) - np.asarray(elo_a, dtype=np.float64)) / 400.0))


def win_probabilities(elo: Any) -> np.ndarray:
    """Win probability of each seat of one game from the seat holders' Elo ratings.

    Args:
        elo: ``(P,)`` ratings of the agents in the seats (repeats allowed).

    Returns:
        ``(P,) float64`` probabilities ``10^(R_s/400) / sum_j 10^(R_j/400)`` (sum 1).
    """
    r = np.asarray(elo, dtype=np.float64) / ELO_PER_NAT
    e = np.exp(r - r.max())
    return e / e.sum()


@dataclasses.dataclass
class RatingFit:
    """A fitted rating table.

    Attributes:
        names: agent names, ``K`` of them.
        elo: ``(K,)`` ratings on the Elo scale, mean 0 (or 0 for ``anchor``).
        elo_low / elo_high: ``(K,)`` 95% interval bounds.
        elo_se: ``(K,)`` standard errors (Hessian) or bootstrap standard deviations.
        cov: ``(K, K)`` covariance of ``elo`` (Elo points squared).
        theta: ``(K,)`` the same ratings in natural-log strength (``elo / ELO_PER_NAT``).
        log_likelihood: ``LL`` at the estimate (without the prior term).
        num_games: games in the fit.
        prior: prior precision used.
        anchor: the agent fixed at 0, or ``None`` (mean 0).
        interval: ``"hessian"`` or ``"bootstrap"``.
        bootstrap: bootstrap resamples (0 for Hessian intervals).
        iterations: optimiser iterations.
    """

    names: list[str]
    elo: np.ndarray
    elo_low: np.ndarray
    elo_high: np.ndarray
    elo_se: np.ndarray
    cov: np.ndarray
    theta: np.ndarray
    log_likelihood: float
    num_games: int
    prior: float
    anchor: str | None
    interval: str
    bootstrap: int
    iterations: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (arrays as lists)."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            out[f.name] = v.tolist() if isinstance(v, np.ndarray) else v
        return out

    def table(self) -> str:
        """Plain-text table, strongest first."""
        head = f"{'agent':<28} {'Elo':>8} {'95% CI':>20} {'se':>7}"
        lines = [head, "-" * len(head)]
        for i in np.argsort(-self.elo, kind="stable"):
            ci = f"[{self.elo_low[i]:.0f}, {self.elo_high[i]:.0f}]"
            lines.append(f"{self.names[i]:<28} {self.elo[i]:>8.1f} {ci:>20} {self.elo_se[i]:>7.1f}")
        return "\n".join(lines)


# ====================================================================== the likelihood


def _pool(seats: np.ndarray, credit: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Pool games with equal seat counts.

    Returns:
        ``rosters (R, K)``, credit sums ``(R, K)``, games ``(R,)`` and each game's roster ``(G,)``.
    """
    rosters, inverse = np.unique(seats, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    R, K = rosters.shape
    wins = np.zeros((R, K))
    np.add.at(wins, inverse, credit)
    games = np.bincount(inverse, minlength=R).astype(np.float64)
    return rosters.astype(np.float64), wins, games, inverse


def _probs(theta: np.ndarray, rosters: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``q (R, K)``: win probability of each agent's seats per roster, and ``log-sum-exp (R,)``."""
    m = theta.max()
    e = rosters * np.exp(theta - m)[None, :]
    tot = e.sum(1)
    return e / tot[:, None], np.log(tot) + m


def log_likelihood(theta: Any, seats: Any, credit: Any) -> float:
    """``LL(theta)`` of the module docstring, for ``(G, K)`` seat counts and credits."""
    rosters, wins, games, _ = _pool(np.asarray(seats, np.float64), np.asarray(credit, np.float64))
    th = np.asarray(theta, dtype=np.float64)
    _, lse = _probs(th, rosters)
    return float((wins @ th).sum() - (games * lse).sum())


def _solve(
    rosters: np.ndarray, wins: np.ndarray, games: np.ndarray, prior: float, start: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, int]:
    """Maximise the penalised log-likelihood; return ``theta`` (mean 0), the information, iterations."""
    from scipy.optimize import minimize  # scipy is only needed for fitting

    K = rosters.shape[1]
    ones = np.ones((K, K))
    total_wins = wins.sum(0)

    # f = -LL + prior/2 |theta|^2 + 1/2 (sum theta)^2: the last term only fixes the free shift
    # (LL sees differences only), it is 0 at the optimum of the other two terms.
    def f(th: np.ndarray) -> float:
        _, lse = _probs(th, rosters)
        s = th.sum()
        return float(-(total_wins @ th) + games @ lse + 0.5 * prior * th @ th + 0.5 * s * s)

    def grad(th: np.ndarray) -> np.ndarray:
        q, _ = _probs(th, rosters)
        return -total_wins + games @ q + prior * th + th.sum()

    def info(th: np.ndarray) -> np.ndarray:
        q, _ = _probs(th, rosters)
        return np.diag(games @ q) - (q * games[:, None]).T @ q

    def hess(th: np.ndarray) -> np.ndarray:
        return info(th) + prior * np.eye(K) + ones

    x0 = np.zeros(K) if start is None else start
    res = minimize(f, x0, jac=grad, hess=hess, method="trust-exact", options={"gtol": 1e-10})
    theta = res.x - res.x.mean()
    fisher = info(theta)
    # without a prior, a diverging estimate shows as (almost) no information in some direction
    # other than the free shift: the likelihood keeps rising as the strengths run apart
    flat = np.linalg.eigvalsh(fisher + ones)[0] < _NO_INFORMATION if prior == 0 else False
    if not np.all(np.isfinite(theta)) or flat:
        raise ValueError(
            "the maximum-likelihood ratings do not exist (an agent won or lost every comparison, or the "
            "agents fall into groups that never met); fit with prior > 0"
        )
    return theta, fisher, int(res.nit)


def _projection(K: int, anchor: int | None) -> np.ndarray:
    """Linear map from strengths to reported ratings: minus the mean, or minus the anchor's."""
    if anchor is None:
        return np.eye(K) - np.full((K, K), 1.0 / K)
    A = np.eye(K)
    A[:, anchor] -= 1.0
    return A


# ====================================================================== the fit


def fit_ratings(
    seats: Any,
    credit: Any,
    names: Sequence[str],
    *,
    prior: float = DEFAULT_PRIOR,
    anchor: str | None = None,
    bootstrap: int = 0,
    groups: Any = None,
    seed: int = 0,
) -> RatingFit:
    """Fit Luce / Bradley–Terry ratings (Elo scale) with 95% intervals.

    Args:
        seats: ``(G, K)`` non-negative integers: seats agent ``k`` holds in game ``g`` (0 = absent).
            Every game needs at least two seats.
        credit: ``(G, K)`` non-negative win credit of each agent in each game, rows summing to 1
            (see the module docstring for shared wins and draws); only agents with seats may
            have credit.
        names: ``K`` agent names.
        prior: precision of the Gaussian prior on each strength (``>= 0``; 0 = plain MLE).
        anchor: name of the agent whose rating is fixed at 0 (default: ratings have mean 0).
        bootstrap: number of resamples for percentile intervals (0: Hessian intervals).
        groups: ``(G,)`` cluster ids for the bootstrap (games resampled by cluster).
        seed: seed of the bootstrap resampling.

    Returns:
        A :class:`RatingFit`.

    Raises:
        ValueError: bad shapes or values, an unknown anchor, fewer than two agents, or (with
            ``prior=0``) data for which the maximum-likelihood ratings do not exist.
    """
    S = np.asarray(seats)
    C = np.asarray(credit, dtype=np.float64)
    names = [str(n) for n in names]
    K = len(names)
    if K < 2:
        raise ValueError(f"need at least two agents to rate, got {K}")
    if S.ndim != 2 or S.shape[1] != K or C.shape != S.shape:
        raise ValueError(f"seats and credit must both have shape (G, {K}), got {S.shape} and {C.shape}")
    if S.shape[0] == 0:
        raise ValueError("no games to fit")
    if S.dtype.kind not in "iu" or (S < 0).any():
        raise ValueError("seats must be non-negative integers")
    if (S.sum(1) < 2).any():
        raise ValueError(
            f"every game needs at least two seats; games {np.flatnonzero(S.sum(1) < 2)[:5].tolist()} have fewer"
        )
    if not np.all(np.isfinite(C)) or (C < 0).any() or not np.allclose(C.sum(1), 1.0, atol=1e-9):
        raise ValueError("credit must be non-negative and sum to 1 in every game")
    if (C[S == 0] > 0).any():
        raise ValueError("credit given to an agent without a seat in that game")
    if not (isinstance(prior, (int, float)) and math.isfinite(prior) and prior >= 0):
        raise ValueError(f"prior must be a finite number >= 0, got {prior!r}")
    if isinstance(bootstrap, bool) or not isinstance(bootstrap, (int, np.integer)) or bootstrap < 0:
        raise ValueError(f"bootstrap must be a non-negative int, got {bootstrap!r}")
    if anchor is not None and anchor not in names:
        raise ValueError(f"anchor {anchor!r} is not one of the agents {names}")
    a_idx = None if anchor is None else names.index(anchor)
    G = S.shape[0]
    S = S.astype(np.float64)

    rosters, wins, games, roster_of = _pool(S, C)
    theta, info, nit = _solve(rosters, wins, games, float(prior))
    proj = _projection(K, a_idx)
    rating = proj @ theta
    ll = float((wins.sum(0) @ theta) - games @ _probs(theta, rosters)[1])

    if bootstrap == 0:
        # covariance of the strengths relative to their mean (the shift is not identified: the
        # all-ones direction is removed by the projection), then mapped to the reported ratings
        centre = _projection(K, None)
        cov_theta = centre @ np.linalg.inv(info + prior * np.eye(K) + np.ones((K, K)) / K) @ centre
        cov = proj @ cov_theta @ proj.T
        se = np.sqrt(np.clip(np.diag(cov), 0.0, None))
        low, high = rating - Z95 * se, rating + Z95 * se
        interval = "hessian"
    else:
        if groups is None:
            gid = np.arange(G)
        else:
            gid = np.asarray(groups).reshape(-1)
            if gid.shape != (G,):
                raise ValueError(f"groups must have shape ({G},), got {np.asarray(groups).shape}")
        uniq, gid = np.unique(gid, return_inverse=True)
        rng = np.random.default_rng(seed)
        draws = np.empty((bootstrap, K))
        R = rosters.shape[0]
        for b in range(bootstrap):  # resamples (not games): each refit is on pooled rosters
            pick = np.bincount(rng.integers(0, uniq.size, uniq.size), minlength=uniq.size)
            w = pick[gid].astype(np.float64)  # how often each game is in the resample
            w_b = np.zeros((R, K))
            np.add.at(w_b, roster_of, C * w[:, None])
            n_b = np.bincount(roster_of, weights=w, minlength=R)
            keep = n_b > 0
            # a tiny prior keeps a resample in which some agent never wins (or never loses) finite
            draws[b] = proj @ _solve(rosters[keep], w_b[keep], n_b[keep], max(float(prior), 1e-6), theta)[0]
        cov = np.cov(draws, rowvar=False)
        se = draws.std(0, ddof=1)
        low, high = np.percentile(draws, 2.5, axis=0), np.percentile(draws, 97.5, axis=0)
        interval = "bootstrap"

    return RatingFit(
        names=names,
        elo=rating * ELO_PER_NAT,
        elo_low=low * ELO_PER_NAT,
        elo_high=high * ELO_PER_NAT,
        elo_se=se * ELO_PER_NAT,
        cov=cov * ELO_PER_NAT**2,
        theta=rating,
        log_likelihood=ll,
        num_games=G,
        prior=float(prior),
        anchor=anchor,
        interval=interval,
        bootstrap=int(bootstrap),
        iterations=nit,
    )


def seat_credit(winners: Any, drawn: Any) -> np.ndarray:
    """Win credit of each seat: ``1/k`` to each of ``k`` winners, ``1/P`` to every seat of a draw.

    Args:
        winners: ``(G, P) bool`` seats that won.
        drawn: ``(G,) bool`` games counted as draws (every seat shares, nobody won, or truncated).

    Returns:
        ``(G, P) float64`` credits, rows summing to 1.
    """
    w = np.asarray(winners, dtype=bool)
    d = np.asarray(drawn, dtype=bool) | ~w.any(1)
    P = w.shape[1]
    k = np.maximum(w.sum(1, keepdims=True), 1)
    return np.where(d[:, None], 1.0 / P, w / k)


__all__ = [
    "DEFAULT_PRIOR",
    "ELO_PER_NAT",
    "RatingFit",
    "expected_score",
    "fit_ratings",
    "log_likelihood",
    "seat_credit",
    "win_probabilities",
]
