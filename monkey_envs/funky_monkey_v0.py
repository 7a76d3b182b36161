"""Funky Monkey, version 0 -- PettingZoo AEC environment.

A bluffing race through a temple ruin (HUCH! 2020): the active player passes a hidden movement
card to the left with an announced value (bluffing allowed); whoever accepts it moves their own
monkey. Jungle tiles, offering bowls, the monkey pyramid and treasure cards make chain
reactions; a true announcement earns a bonus move with the own monkey or the tiger. The first
monkey to land exactly on the tiger wins. Rules: ``shared/rules/funky_monkey.txt``, gaps fixed by
``shared/rules/DECISIONS.md``; the full spec is ``docs/funky_monkey.md``.

Usage::

    from monkey_envs import funky_monkey_v0

    env = funky_monkey_v0.env(num_players=4, tile_visibility="every_second", render_mode="ansi")
    env.reset(seed=42)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

or, after ``import monkey_envs``, ``pettingzoo.make("aec", "monkey_envs/funky_monkey-v0", num_players=3)``.
``raw_env(...)`` is the unwrapped env (raises ``ValueError`` on an illegal move).

=====================  =============================================================
Import                 ``from monkey_envs import funky_monkey_v0``
Registry ids           ``monkey_envs/funky_monkey-v0`` (PettingZoo AEC), ``monkey_envs/FunkyMonkey-v0`` (gymnasium)
Actions                Discrete(42 + P)
Parallel API           no (turn-based; ``is_parallelizable = False``)
Agents                 ``player_0`` .. ``player_{P-1}``, P = ``num_players``
Observation            ``{"observation": (D,) float32 in [0, 4], "action_mask": (42 + P,) int8}``
Observation size D     by player count: see the generated table at the end
Rewards                +1 win, -1 loss, 0 when every player shares the win
Options                ``num_players`` 2-7 (default 4), ``tile_visibility`` (alias ``variant``)
                       ``"basic"`` / ``"every_second"`` / ``"all"``, ``crown_bonus`` (default False),
                       ``render_mode`` None / ``"ansi"`` / ``"human"``
=====================  =============================================================

Turn order is not seat order: ``agent_selection`` is whoever must decide -- the active player
(chosen by the monkey chips), the holder of the face-down card (to the active player's left,
skipping eliminated monkeys), the player a chain reaction asks (pyramid direction, middle-row
bowl, which coconut to give up), the active player's bonus move, or -- at the end of the turn --
the active player and the accepter for the Scales step when they hold any treasure card (only
"keep" is legal without a Scales card, so being asked reveals no hidden card type). Eliminated players stay in ``agents`` until the game ends but are never selected.

Action encoding (A = 42 + P): 0-24 play card kind ``a // 5`` face down announcing kind
``a % 5`` (kinds 0-4 = "1", "2", "3", "4", MiNuss); 25-29 play a card face up with a Crown;
30 accept, 31 pass, 32 Telescope; 33 / 34 / 35 bonus move with the own monkey / the tiger /
decline; 36 / 37 pyramid forward / backward; 38 / 39 nearest bowl 1 / 2; 40 / 41 give up a
normal / the golden coconut; 42 keep the Scales; ``43 + j`` Scales with the seat ``j + 1``
places to the left.

Observation: one flat float32 vector from the observing agent's seat, seats listed
observer-first; ``game.obs_layout.unflatten(obs["observation"])`` splits it by name (table
below, generated from the game for 4 players). A player never observes other hands, the
passed card (unless they played it or looked through a Telescope), face-down or removed tiles,
other players' treasure types or the draw-pile order.

Rewards: 0 on every move until the end; then +1 for each winner and -1 for each other player
(a win shared by every player gives 0 to all; when the tiger catches every remaining monkey
nobody wins and all get -1). ``infos`` hold ``end_reason`` (int code into ``spec.end_reasons``),
``winners (P,) bool``, the final track and coconut facts and ``bluff_stats`` (per-player bluff
analytics, ``(P,)`` arrays) for every agent once the game ends, all numeric and fixed-shape.

Illegal moves: ``env()`` uses PettingZoo's ``TerminateIllegalWrapper``: an illegal move ends the
game at once with -1 to the offender and 0 to everyone else. ``raw_env()`` raises the core's
``ValueError`` and leaves the game unchanged.

Seeding: ``reset(seed=s)`` plays exactly the core game ``FunkyMonkey(...).init(s)``.

Version history: v0 -- initial release.
"""

from monkey_envs.core.aec import make_aec_api, spec_page

env, raw_env = make_aec_api("funky_monkey", __name__)
__doc__ = (__doc__ or "") + spec_page("funky_monkey")
__all__ = ["env", "raw_env"]
