"""gymnasium vector face: ``N`` games stepped together on the batched core (no sub-envs).

``gymnasium.make_vec("monkey_envs/<Game>-v0", num_envs=N, vectorization_mode="vector_entry_point",
opponent="random")`` builds a :class:`GameVectorEnv` over the
:class:`~monkey_envs.core.driver.SingleAgentDriver` -- the same learner / opponent logic as the
single env, on the whole batch.

Autoreset (gymnasium's ``AutoresetMode``, in ``metadata["autoreset_mode"]``), chosen with the
``autoreset_mode`` option:

* ``SAME_STEP`` (default). When env ``i`` ends in a
  step, that step returns ``terminated[i]`` / ``truncated[i]`` and the reward of the finishing
move, but the observation ``obs[i]`` is already the first one of env ``i``'s next episode. The
terminal observation is ``infos["final_obs"][i]`` (an object array with ``None`` elsewhere,
``infos["_final_obs"]`` marks the envs that ended) and the episode's info is
``infos["final_info"]`` (arrays with ``_key`` masks, as gymnasium's ``SyncVectorEnv`` in
same-step mode builds them).
* ``NEXT_STEP`` (gymnasium's own default, which its stateful vector wrappers such as
  ``gymnasium.wrappers.vector.NormalizeObservation`` require). The step in which env ``i`` ends
  returns its terminal observation, reward, ``terminated[i]`` / ``truncated[i]`` and the
  episode's info directly in ``infos`` (row ``i`` of each key; ``action_mask`` all zeros,
  ``learner_seat`` the finished episode's); the next step ignores ``actions[i]`` and returns the
  first observation of env ``i``'s next episode with reward 0, not done, and that episode's
  ``action_mask`` / ``learner_seat``. Env ``i`` is then step for step the single env that
  calls ``reset()`` after each episode.

Why same-step by default: it is the contract the rest of the package and SB3 use (the batched
core steps every env in every call, and no call is spent on a reset), and existing code reads
``final_obs`` / ``final_info``; pass ``autoreset_mode=AutoresetMode.NEXT_STEP`` (or
``"NextStep"``) for gymnasium's wrappers.

Every step's ``infos`` also hold ``action_mask (N, A) int8`` and ``learner_seat (N,) int64``
(with their all-True ``_action_mask`` / ``_learner_seat``).

Seeding: ``reset(seed=s)`` seeds env ``i`` with ``s + i`` (a list gives one seed per env); env
``i`` then plays exactly like a single :class:`~monkey_envs.core.gym_single.GameEnv` reset with
seed ``s + i`` whose episodes are restarted with ``reset()`` (with the built-in ``"random"``
opponent or deterministic agents).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from monkey_envs.core.driver import OpponentSpec, build_driver
from monkey_envs.core.faces import entropy_seed, observation_box, row_seeds
from monkey_envs.core.game import Game
from monkey_envs.core.pictures import HumanView, Picture, has_picture, render_modes
from monkey_envs.core.registry import default_game

#: Every render mode this face may offer; a game without a picture (no ``View.picture`` hook) has no ``"rgb_array"``.
RENDER_MODES = ("ansi", "human", "rgb_array")


def _autoreset_mode(mode: Any) -> AutoresetMode:
    """``mode`` as an ``AutoresetMode`` of the two this env offers, else ``ValueError``."""
    offered = (AutoresetMode.SAME_STEP, AutoresetMode.NEXT_STEP)
    try:
        got = AutoresetMode(mode)
    except ValueError:
        got = None
    if got not in offered:
        raise ValueError(f"autoreset_mode must be one of {[m.value for m in offered]} (AutoresetMode), got {mode!r}")
    return got


class GameVectorEnv(VectorEnv):
    """``num_envs`` games against built-in opponents, as a gymnasium ``VectorEnv``.

    Args:
        num_envs: number of games ``N``.
        game: a game name (a key of :data:`monkey_envs.games.GAMES`) or a built game; ``None``
            is :data:`monkey_envs.games.DEFAULT_GAME`.
        opponent: an agent name, an agent object, or a list of ``P - 1`` of those (see
            :class:`~monkey_envs.core.driver.SingleAgentDriver`).
        learner_seat: fixed learner seat, or ``None`` for a random seat per episode and env.
        illegal_action: ``"raise"`` (``ValueError``, nothing changes) or ``"lose"``.
        learner_actions: ``None`` or a name from ``game.action_filters()`` (e.g. ``"honest"``):
            restrict the learner's actions and mask to it (ablations).
        render_mode: ``None``, ``"ansi"`` (``render()`` returns one text picture per env),
            ``"rgb_array"`` (one ``(H, W, 3) uint8`` picture per env, each from its learner's seat;
            games with a picture) or ``"human"`` (env 0's picture in a window where one can be
            opened, else its printed text).
        autoreset_mode: ``AutoresetMode.SAME_STEP`` (default) or ``AutoresetMode.NEXT_STEP``
            (or their values ``"SameStep"`` / ``"NextStep"``); see the module docstring.
        **game_options: the game's options (e.g. ``num_players=3``), with a game name only.

    Attributes:
        single_observation_space: ``Box((D,), float32)``; ``observation_space`` is ``(N, D)``.
        single_action_space: ``Discrete(A)``; ``action_space`` is ``MultiDiscrete([A] * N)``.

    Raises:
        ValueError: bad options (unknown game, opponent, seat, render mode, ...).
        TypeError: a keyword argument that is no option of the env nor of the game.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": list(RENDER_MODES), "autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        num_envs: int = 1,
        game: str | Game | None = None,
        opponent: OpponentSpec | Sequence[OpponentSpec] = "random",
        learner_seat: int | None = None,
        illegal_action: str = "raise",
        learner_actions: str | None = None,
        render_mode: str | None = None,
        autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
        **game_options: Any,
    ) -> None:
        mode = _autoreset_mode(autoreset_mode)  # ValueError before anything is built
        self.driver = build_driver(
            default_game() if game is None else game,
            num_envs,
            opponent=opponent,
            learner_seat=learner_seat,
            illegal_action=illegal_action,
            learner_actions=learner_actions,
            render_mode=render_mode,
            face="GameVectorEnv",
            **game_options,
        )
        self.game = self.driver.game
        self.num_envs = self.driver.num_envs
        self.render_mode = render_mode
        self.metadata = {
            **type(self).metadata,
            "render_modes": list(render_modes(self.game)),
            "autoreset_mode": mode,
        }
        self._human: HumanView | None = None
        self.single_observation_space = observation_box(self.game)
        self.single_action_space = spaces.Discrete(self.game.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._all = np.ones(self.num_envs, dtype=bool)
        self.autoreset_mode = mode
        #: NEXT_STEP: envs whose terminal step was returned; the next step shows their new episode.
        self._restart = np.zeros(self.num_envs, dtype=bool)

    def reset(
        self, *, seed: int | Sequence[int] | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Start a new episode in every env.

        Args:
            seed: ``s`` (env ``i`` gets ``s + i``), a list of ``N`` seeds, or ``None`` to
                continue each env's episode stream.
            options: accepted for API compatibility; unused.

        Returns:
            ``obs (N, D) float32`` and ``infos`` (``action_mask``, ``learner_seat``).

        Raises:
            ValueError: a bool, non-integer or negative seed, a row seed ``>= 2**63``, or a list of
                the wrong length (nothing changes).
        """
        seeds = None if seed is None else row_seeds(seed, self.num_envs)  # ValueError before any change
        super().reset(seed=int(seed) if isinstance(seed, (int, np.integer)) else None)
        if seeds is None and self.driver.state is None:
            seeds = entropy_seed() + np.arange(self.num_envs, dtype=np.int64)
        obs, mask = self.driver.reset(seeds)
        self._restart[:] = False
        return obs, self._infos(mask)

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play the learners' actions; opponents reply; finished envs autoreset (``autoreset_mode``).

        Args:
            actions: ``(N,)`` integers.

        Returns:
            ``obs (N, D) float32``, ``rewards (N,) float64``, ``terminations (N,) bool``,
            ``truncations (N,) bool``, ``infos`` (see the module docstring).

        Raises:
            ValueError: a wrong shape/dtype, or an illegal action with ``illegal_action="raise"``.
        """
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            return self._step_next(actions)
        r = self.driver.step(actions)
        infos = self._infos(r.mask)
        if r.final_rows.size:
            final_obs = np.full(self.num_envs, None, dtype=object)
            for j, row in enumerate(r.final_rows.tolist()):
                final_obs[row] = r.final_obs[j]
            done = np.zeros(self.num_envs, dtype=bool)
            done[r.final_rows] = True
            infos["final_obs"], infos["_final_obs"] = final_obs, done
            final_info: dict[str, Any] = {}
            for j, row in enumerate(r.final_rows.tolist()):
                final_info = self._add_info(final_info, r.final_info[j], row)
            infos["final_info"], infos["_final_info"] = final_info, done.copy()
        if self.render_mode == "human":
            self.render()
        return r.obs, r.reward.astype(np.float64), r.terminated, r.truncated, infos

    def _step_next(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """:meth:`step` in ``NEXT_STEP`` mode: envs shown ended last step sit this one out (the
        driver already started their next episode; this step shows it)."""
        r = self.driver.step(actions, hold=self._restart if self._restart.any() else None)
        obs, infos = r.obs, self._infos(r.mask)
        self._restart[:] = False
        if r.final_rows.size:
            obs = obs.copy()
            obs[r.final_rows] = r.final_obs
            infos["action_mask"][r.final_rows] = 0  # the terminal state's (empty) mask
            for j, row in enumerate(r.final_rows.tolist()):
                infos = self._add_info(infos, r.final_info[j], row)
            self._restart[r.final_rows] = True
        if self.render_mode == "human":
            self.render()
        return obs, r.reward.astype(np.float64), r.terminated, r.truncated, infos

    def _infos(self, mask: np.ndarray) -> dict[str, Any]:
        return {
            "action_mask": mask.astype(np.int8),
            "_action_mask": self._all.copy(),
            "learner_seat": self.driver.seat.copy(),
            "_learner_seat": self._all.copy(),
        }

    def action_masks(self) -> np.ndarray:
        """``(N, A) bool`` the learners' legal actions now (the driver's array; do not modify)."""
        return self.driver.mask

    def set_opponent(self, opponent: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponent(s) from the next opponent move on."""
        self.driver.set_opponent(opponent)

    def render(self) -> tuple[str, ...] | tuple[np.ndarray, ...] | None:
        """Each env from its learner's seat: ``"ansi"`` one text picture per env, ``"rgb_array"`` one
        ``(H, W, 3) uint8`` picture per env; ``"human"``: env 0's in a window or its printed text."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "human":
            if self._human is None:
                self._human = HumanView()
            drawn = (lambda: self.driver.picture(0)) if has_picture(self.game) else None
            self._human.show(drawn, lambda: self.driver.render(0))
            return None
        if self.render_mode == "rgb_array":
            return tuple(self.driver.picture(i).to_array() for i in range(self.num_envs))
        return tuple(self.driver.render(i) for i in range(self.num_envs))

    def picture(self, index: int = 0) -> Picture:
        """The current position of env ``index`` drawn from its learner's seat (``.save("x.png")``).

        Raises:
            ValueError: before :meth:`reset`, or ``index`` out of range.
            NotImplementedError: the game draws no picture.
        """
        return self.driver.picture(index)

    def close_extras(self, **kwargs: Any) -> None:
        """Close the ``human`` window, if one is open."""
        if getattr(self, "_human", None) is not None:  # also when __init__ failed early
            self._human.close()
