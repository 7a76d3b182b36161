"""gymnasium single-agent face over any game (the batched driver with one row).

``gymnasium.make("monkey_envs/<Game>-v0", opponent=..., num_players=...)`` builds a
:class:`GameEnv`: the learner plays one seat (random per episode unless ``learner_seat`` is
fixed) and every other seat is played by ``opponent`` inside :meth:`GameEnv.step`.

* observation: ``(D,) float32``, the learner's view (see the game's observation table);
* action: ``Discrete(A)``; the legal ones are ``info["action_mask"]`` (``(A,) int8``, ready for
  ``env.action_space.sample(mask)``) and :meth:`GameEnv.action_masks` (``(A,) bool``,
  sb3-contrib's ``MaskablePPO`` hook);
* reward: the learner's reward over its move and the opponents' replies;
* ``info``: ``action_mask``, ``learner_seat``; at the end also the game's episode info
  (numeric, fixed shapes: ``end_reason`` int code into ``spec.end_reasons``, ``winners (P,)
  bool``, e.g. ``scores``) and ``illegal_action``;
* an illegal action raises ``ValueError`` (``illegal_action="raise"``, default) or ends the
  episode as a loss (``illegal_action="lose"``; ``info["illegal_action"] = True``).

Seeding: ``reset(seed=s)`` plays ``game.init(s)`` first (the same game as the core with seed
``s``, and as row ``i`` of a vector env seeded ``s - i``); ``reset()`` continues the row's
deterministic episode stream.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from monkey_envs.core.driver import OpponentSpec, build_driver
from monkey_envs.core.faces import check_seed, observation_box
from monkey_envs.core.game import Game
from monkey_envs.core.pictures import HumanView, Picture, has_picture, render_modes
from monkey_envs.core.registry import default_game

#: Every render mode this face may offer; a game without a picture (no ``View.picture`` hook) has no ``"rgb_array"``.
RENDER_MODES = ("ansi", "human", "rgb_array")


class GameEnv(gymnasium.Env):
    """One game against built-in opponents, as a gymnasium ``Env``.

    Args:
        game: a game name (a key of :data:`monkey_envs.games.GAMES`) or a built game; ``None``
            is :data:`monkey_envs.games.DEFAULT_GAME`.
        opponent: an agent name for :func:`agents.make_agent` (``"random"`` default,
            ``"greedy"``, ...), an agent object, or a list of ``P - 1`` of those (entry ``k``
            plays the ``k``-th seat after the learner).
        learner_seat: fixed seat of the learner, or ``None`` for a random seat each episode.
        illegal_action: ``"raise"`` or ``"lose"``.
        learner_actions: ``None`` or a name from ``game.action_filters()`` (e.g. ``"honest"``):
            restrict the learner's actions and mask to it (ablations).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns the text picture, with the
            learner's hand), ``"rgb_array"`` (the picture from the learner's seat, ``(H, W, 3)
            uint8``: ``RecordVideo``, SB3's ``make_vec_env``; games with a picture) or ``"human"``
            (a window with that picture where one can be opened, else the printed text).
        **game_options: the game's options (e.g. ``num_players=3``), with a game name only.

    Raises:
        ValueError: bad options (unknown game, opponent, seat, render mode, ...).
        TypeError: a keyword argument that is no option of the env nor of the game.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "render_fps": 4}

    def __init__(
        self,
        game: str | Game | None = None,
        opponent: OpponentSpec | Sequence[OpponentSpec] = "random",
        learner_seat: int | None = None,
        illegal_action: str = "raise",
        learner_actions: str | None = None,
        render_mode: str | None = None,
        **game_options: Any,
    ) -> None:
        self.driver = build_driver(
            default_game() if game is None else game,
            1,
            opponent=opponent,
            learner_seat=learner_seat,
            illegal_action=illegal_action,
            learner_actions=learner_actions,
            render_mode=render_mode,
            face="GameEnv",
            autoreset=False,
            **game_options,
        )
        self.game = self.driver.game
        self.render_mode = render_mode
        self.metadata = {**type(self).metadata, "render_modes": list(render_modes(self.game))}
        self._human: HumanView | None = None
        self.observation_space = observation_box(self.game)
        self.action_space = spaces.Discrete(self.game.num_actions)

    # ------------------------------------------------------------------ API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        """Start a new episode.

        Args:
            seed: non-negative int: play ``game.init(seed)`` first; ``None``: the next episode
                of the stream of the last seed (seeded from ``self.np_random`` if never seeded).
            options: accepted for API compatibility; unused.

        Returns:
            ``obs (D,) float32`` and ``info`` (``action_mask (A,) int8``, ``learner_seat``).

        Raises:
            ValueError: ``seed`` is a bool, not an int, negative or ``>= 2**63`` (nothing changes).
        """
        seed = check_seed(seed)  # before gymnasium's own seeding, which raises no ValueError
        super().reset(seed=seed)
        if seed is not None:
            seeds = np.array([seed], dtype=np.int64)
        elif self.driver.state is None:
            seeds = np.array([int(self.np_random.integers(0, 2**62))], dtype=np.int64)
        else:
            seeds = None
        obs, mask = self.driver.reset(seeds)
        if self.render_mode == "human":
            self.render()
        return obs[0], self._info(mask[0])

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play the learner's ``action``; the opponents reply until the learner's next turn.

        Returns:
            ``obs (D,) float32``, ``reward``, ``terminated``, ``truncated``, ``info``.

        Raises:
            ValueError: an illegal or out-of-range action (with ``illegal_action="raise"``), a
                non-integer action, or a step after the episode ended (call ``reset``).
        """
        r = self.driver.step(np.array([action]) if np.ndim(action) == 0 else action)
        info = self._info(r.mask[0])
        if r.final_rows.size:
            info.update(r.final_info[0])
        if self.render_mode == "human":
            self.render()
        return r.obs[0], float(r.reward[0]), bool(r.terminated[0]), bool(r.truncated[0]), info

    def _info(self, mask: np.ndarray) -> dict[str, Any]:
        return {"action_mask": mask.astype(np.int8), "learner_seat": int(self.driver.seat[0])}

    def action_masks(self) -> np.ndarray:
        """``(A,) bool`` the learner's legal actions now (sb3-contrib's ``MaskablePPO`` hook)."""
        return self.driver.mask[0].copy()

    def set_opponent(self, opponent: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponent(s) from the next opponent move on (see :class:`GameEnv`)."""
        self.driver.set_opponent(opponent)

    @property
    def learner_seat(self) -> int:
        """The learner's seat in the current episode."""
        return int(self.driver.seat[0])

    def render(self) -> str | np.ndarray | None:
        """The position from the learner's seat: ``"ansi"`` the text picture, ``"rgb_array"`` the
        picture ``(H, W, 3) uint8``, ``"human"`` a window or the printed text."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            return self.driver.picture(0).to_array()
        if self.render_mode == "ansi":
            return self.driver.render(0)
        if self._human is None:
            self._human = HumanView()
        self._human.show(
            (lambda: self.driver.picture(0)) if has_picture(self.game) else None, lambda: self.driver.render(0)
        )
        return None

    def picture(self) -> Picture:
        """The current position drawn from the learner's seat (``.save("x.png")`` / ``"x.svg"``).

        Raises:
            ValueError: before :meth:`reset`.
            NotImplementedError: the game draws no picture.
        """
        return self.driver.picture(0)

    def close(self) -> None:
        """Close the ``human`` window, if one is open."""
        if self._human is not None:
            self._human.close()
