"""Monkey Fun, version 0 -- PettingZoo AEC environment.

Play 1-4 hand cards and place a monkey on the field numbered with their sum; the first player
with the majority on 4 fields in a row, column or diagonal wins (KOSMOS 2024, a re-issue of
*Just 4 Fun*). Rules: ``shared/rules/monkey_fun.txt``, gaps fixed by ``shared/rules/DECISIONS.md``.

Usage::

    from monkey_envs import monkey_fun_v0

    env = monkey_fun_v0.env(num_players=3, variant="quick", board_side=2, render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

or, after ``import monkey_envs``, ``pettingzoo.make("aec", "monkey_envs/monkey_fun-v0", num_players=2)``.
``raw_env(...)`` is the unwrapped env (raises ``ValueError`` on an illegal move).

=====================  =============================================================
Import                 ``from monkey_envs import monkey_fun_v0``
Registry ids           ``monkey_envs/monkey_fun-v0`` (PettingZoo AEC), ``monkey_envs/MonkeyFun-v0`` (gymnasium)
Actions                Discrete(16)
Parallel API           no (turn-based; ``is_parallelizable = False``)
Agents                 ``player_0`` .. ``player_{P-1}``, P = ``num_players``
Observation            ``{"observation": (D,) float32, "action_mask": (16,) int8}``
Observation size D     by player count: see the generated table at the end
Rewards                +1 win, -1 loss, 0 when every player shares the win
Options                ``num_players`` 1-4, ``variant`` ``"normal"`` / ``"quick"`` / ``"solo"``,
                       ``board_side`` 1 / 2, ``place_on_own_secured`` (default True),
                       ``render_mode`` None / ``"ansi"`` / ``"human"``
=====================  =============================================================

Variants: ``"normal"`` (2-4 players), ``"quick"`` (a 2x2 square also wins), ``"solo"`` (one
player fills the inner 4x4 square in 20 rounds; default for ``num_players=1``).

Action encoding (A = 16): the hand is kept sorted ascending in slots 0-3. Action ``a`` in
0-14 plays the subset of slots whose bitmask is ``a + 1`` (bit ``j`` = slot ``j``): 0 = slot 0,
1 = slot 1, 2 = slots 0+1, ..., 14 = all four, placing a monkey on the field numbered with the
cards' sum. Action 15 discards the whole hand ("no playable cards": one monkey goes to the box),
legal only when no subset is. Different subsets with the same sum are different actions.

Observation: one flat float32 vector from the observing agent's seat, seats listed
observer-first; ``game.obs_layout.unflatten(obs["observation"])`` splits it by name (table
below, generated from the game for 2 players; ``P``-sized pieces grow with the player count).
Other players' hands and the draw-pile order are never observed. ``action_mask`` is the legal
actions of the agent to move and all zeros for every other agent and once the game is over.

Rewards: 0 on every move until the end; then +1 for each winner and -1 for each other player
(a win shared by every player gives 0 to all). Solo: +1 for completing the square, -1 for a loss.
``infos`` hold ``end_reason`` (int code into ``spec.end_reasons``), ``scores (P,) int64`` and
``winners (P,) bool`` for every agent once the game ends (``game.spec.readable_info(info)``
gives the reason's name and the winning seats).

Illegal moves: ``env()`` uses PettingZoo's ``TerminateIllegalWrapper``: an illegal move ends the
game at once with -1 to the offender and 0 to everyone else; an action outside ``Discrete(16)``
fails ``AssertOutOfBoundsWrapper``'s assertion. ``raw_env()`` raises the core's ``ValueError``
(naming the action) and leaves the game unchanged.

Seeding: ``reset(seed=s)`` plays exactly the core game ``MonkeyFun(...).init(s)``;
``reset()`` without a seed continues a deterministic stream of games from the last seed.
``copy.deepcopy(env)`` copies the game in progress.

Version history: v0 -- initial release.
"""

from monkey_envs.core.aec import make_aec_api, spec_page

env, raw_env = make_aec_api("monkey_fun", __name__)
__doc__ = (__doc__ or "") + spec_page("monkey_fun")
__all__ = ["env", "raw_env"]
