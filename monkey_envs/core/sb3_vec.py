"""A native Stable-Baselines3 ``VecEnv`` over the batched core (no sub-envs, no subprocesses).

::

    from sb3_contrib import MaskablePPO
    from monkey_envs.core.sb3_vec import MonkeyVecEnv

    venv = MonkeyVecEnv("<game name>", num_envs=64, opponent="random", seed=0, num_players=2)
    model = MaskablePPO("MlpPolicy", venv, n_steps=128).learn(20_000)

Each of the ``N`` envs is one game in the batch of a
:class:`~monkey_envs.core.driver.SingleAgentDriver`: the learner takes a seat (random per
episode unless ``learner_seat`` is fixed) and opponents play the other seats inside
``step``. Finished envs are reset in the same step (SB3's convention): ``dones[i]`` is True,
``obs[i]`` is already the next episode's first observation and
``infos[i]["terminal_observation"]`` holds the terminal one, next to the game's episode info
(numeric: ``end_reason`` int code, ``winners (P,) bool``, ``scores``, ...; see
:meth:`Game.episode_info <monkey_envs.core.game.Game.episode_info>`), ``learner_seat``,
``illegal_action`` and ``TimeLimit.truncated``.

:meth:`MonkeyVecEnv.action_masks` returns the driver's ``(N, A) bool`` mask array;
sb3-contrib's ``get_action_masks`` goes through ``env_method("action_masks")``, which returns
that array's rows. Seeding follows SB3: env ``i`` is seeded ``seed + i`` at the next reset
(``seed`` from the constructor or :meth:`MonkeyVecEnv.seed`); later resets continue each env's
deterministic episode stream, so env ``i`` of a batch replays like a one-env ``MonkeyVecEnv``
seeded with ``seed + i``.

This module imports stable_baselines3; the rest of ``monkey_envs`` does not.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env import VecEnv
from stable_baselines3.common.vec_env.base_vec_env import VecEnvIndices, VecEnvObs, VecEnvStepReturn

from monkey_envs.core.driver import OpponentSpec, build_driver
from monkey_envs.core.faces import entropy_seed, observation_box, row_seeds
from monkey_envs.core.game import Game
from monkey_envs.core.pictures import HumanView, Picture, has_picture

#: Every render mode this face may offer; a game without a picture (no ``View.picture`` hook) has no ``"rgb_array"``.
RENDER_MODES = ("ansi", "human", "rgb_array")
#: Attributes whose value differs per env (``get_attr`` returns one entry per env).
_PER_ENV_ATTRS = {"learner_seat"}


class MonkeyVecEnv(VecEnv):
    """``num_envs`` games of one game against built-in opponents, as an SB3 ``VecEnv``.

    Args:
        game_or_name: a game name (a key of :data:`monkey_envs.games.GAMES`) or a built game.
        num_envs: number of envs ``N``.
        opponent: an agent name for :func:`agents.make_agent`, an agent object, a list of
            ``P - 1`` of those (entry ``k`` plays the ``k``-th seat after the learner), or an
            :class:`~monkey_envs.core.opponents.OpponentPool` drawn from per episode and seat.
        seed: env ``i`` is seeded ``seed + i`` at the first reset.
        learner_seat: fixed learner seat, or ``None`` for a random seat per episode and env.
        illegal_action: ``"raise"`` (``ValueError``, nothing changes) or ``"lose"``.
        learner_actions: ``None`` or a name from ``game.action_filters()`` (e.g. ``"honest"``):
            restrict the learner's actions and mask to it (ablations).
        render_mode: ``None``, ``"ansi"``, ``"rgb_array"`` (games with a picture) or ``"human"``
            (see :meth:`render`).
        **game_options: the game's options (e.g. ``num_players=3``), with a game name only.

    Attributes:
        observation_space: ``Box((D,), float32)`` (one env's, SB3 convention).
        action_space: ``Discrete(A)``.
        driver: the :class:`~monkey_envs.core.driver.SingleAgentDriver` doing the work.

    Raises:
        ValueError: bad options (unknown game, opponent, seed, seat, render mode, ...).
        TypeError: a keyword argument that is no option of the env nor of the game.
    """

    def __init__(
        self,
        game_or_name: str | Game,
        num_envs: int,
        opponent: OpponentSpec | Sequence[OpponentSpec] = "random",
        seed: int | None = 0,
        learner_seat: int | None = None,
        illegal_action: str = "raise",
        learner_actions: str | None = None,
        render_mode: str | None = None,
        **game_options: Any,
    ) -> None:
        self.driver = build_driver(
            game_or_name,
            num_envs,
            opponent=opponent,
            learner_seat=learner_seat,
            illegal_action=illegal_action,
            learner_actions=learner_actions,
            render_mode=render_mode,
            face="MonkeyVecEnv",
            **game_options,
        )
        self.game = self.driver.game
        self.render_mode = render_mode
        self._human: HumanView | None = None
        super().__init__(self.driver.num_envs, observation_box(self.game), spaces.Discrete(self.game.num_actions))
        self.seed(seed)
        self._actions: np.ndarray | None = None

    # ------------------------------------------------------------------ core API
    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seed env ``i`` with ``seed + i`` at the next :meth:`reset` (``None``: a random base)."""
        if seed is None:
            seed = entropy_seed() >> 32  # small enough that seed + i stays far from overflow
        self._seeds = row_seeds(seed, self.num_envs).tolist()
        return self._seeds

    def reset(self) -> VecEnvObs:
        """Start a new episode in every env; returns ``obs (N, D) float32``.

        Uses the pending seeds (constructor or :meth:`seed`) once, then continues each env's
        episode stream.
        """
        seeds = None if self._seeds[0] is None else np.asarray(self._seeds, dtype=np.int64)
        obs, _ = self.driver.reset(seeds)
        self._reset_seeds()
        self._reset_options()
        seats = self.driver.seat.tolist()
        self.reset_infos = [{"learner_seat": s} for s in seats]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        """Store the ``(N,)`` integer actions for :meth:`step_wait`."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """Step every env; returns ``obs (N, D) float32``, ``rewards (N,) float32``,
        ``dones (N,) bool`` and ``infos`` (a list of ``N`` dicts).

        Raises:
            ValueError: a wrong shape/dtype, or an illegal action with ``illegal_action="raise"``.
        """
        if self._actions is None:
            raise ValueError("step_wait() called without step_async()")
        actions, self._actions = self._actions, None
        r = self.driver.step(actions)
        dones = r.terminated | r.truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for j, row in enumerate(r.final_rows.tolist()):
            info = infos[row]
            info.update(r.final_info[j])
            info["terminal_observation"] = r.final_obs[j]
            info["TimeLimit.truncated"] = bool(r.truncated[row] and not r.terminated[row])
        if self.render_mode == "human":
            self._show_human()
        return r.obs, r.reward, dones, infos

    def _show_human(self) -> None:
        if self._human is None:
            self._human = HumanView()
        drawn = (lambda: self.driver.picture(0)) if has_picture(self.game) else None
        self._human.show(drawn, lambda: self.driver.render(0))

    def action_masks(self) -> np.ndarray:
        """``(N, A) bool`` legal actions of every env's learner (the driver's array; do not modify)."""
        return self.driver.mask

    def set_opponent(self, opponent: OpponentSpec | Sequence[OpponentSpec]) -> None:
        """Replace the opponent(s) (a name, an agent, or a list per seat) from the next opponent move on.

        Used by self-play to swap in a newer policy without rebuilding the env.
        """
        self.driver.set_opponent(opponent)

    @property
    def learner_seat(self) -> np.ndarray:
        """``(N,) int64`` each env's learner seat in its current episode."""
        return self.driver.seat.copy()

    def close(self) -> None:
        """Close the ``human`` window, if one is open."""
        if self._human is not None:
            self._human.close()

    def render(self, mode: str | None = None) -> str | np.ndarray | None:
        """From the learners' seats: ``"ansi"`` env 0's text picture; ``"rgb_array"`` every env's
        picture tiled into one ``(H, W, 3) uint8`` image (SB3's ``VecEnv.render``); ``"human"`` env
        0's picture in a window where one can be opened, else its printed text."""
        mode = mode or self.render_mode
        if mode == "ansi":
            return self.driver.render(0)
        if mode == "human" and self.render_mode == "human":
            self._show_human()
            return None
        return super().render(mode)

    def get_images(self) -> Sequence[np.ndarray | None]:
        """``render_mode="rgb_array"``: one ``(H, W, 3) uint8`` picture per env (learner's seat); else ``None`` per env."""
        if self.render_mode != "rgb_array":
            return [None] * self.num_envs
        return [self.driver.picture(i).to_array() for i in range(self.num_envs)]

    def picture(self, index: int = 0) -> Picture:
        """The current position of env ``index`` drawn from its learner's seat (``.save("x.png")``).

        Raises:
            ValueError: before :meth:`reset`, or ``index`` out of range.
            NotImplementedError: the game draws no picture.
        """
        return self.driver.picture(index)

    # ------------------------------------------------------------------ per-env access
    def _indices(self, indices: VecEnvIndices) -> list[int]:
        idx = list(self._get_indices(indices))
        bad = [i for i in idx if not 0 <= int(i) < self.num_envs]
        if bad:
            raise ValueError(f"env indices {bad} out of range [0, {self.num_envs})")
        return [int(i) for i in idx]

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Per-env values of an attribute.

        ``learner_seat`` differs per env; any other attribute is shared by all envs (one
        batched game), so every requested env gets the same value.

        Raises:
            AttributeError: no such attribute.
        """
        idx = self._indices(indices)
        if attr_name in _PER_ENV_ATTRS:
            values = getattr(self, attr_name)
            return [values[i].item() for i in idx]
        value = getattr(self, attr_name)
        return [value for _ in idx]

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Set a shared attribute (all envs share one batched game, so ``indices`` must cover all).

        Raises:
            ValueError: ``indices`` selects only some envs, or a per-env attribute.
        """
        idx = self._indices(indices)
        if sorted(set(idx)) != list(range(self.num_envs)):
            raise ValueError(
                f"{attr_name!r} is shared by all {self.num_envs} envs of the batch; set it for all of them"
            )
        if attr_name in _PER_ENV_ATTRS:
            raise ValueError(f"{attr_name!r} is chosen per episode and cannot be set")
        setattr(self, attr_name, value)

    def env_method(
        self, method_name: str, *method_args: Any, indices: VecEnvIndices = None, **method_kwargs: Any
    ) -> list[Any]:
        """Call a method "in each env".

        ``action_masks`` returns the rows of the mask array (so sb3-contrib's
        ``np.stack(env_method("action_masks"))`` is the mask), ``render`` one text picture per
        env; any other method of this VecEnv (e.g. ``set_opponent``) is called once for the
        whole batch and its result repeated per requested env.
        """
        idx = self._indices(indices)
        if method_name == "action_masks":
            mask = self.driver.mask
            return [mask[i] for i in idx]
        if method_name == "render":
            if self.render_mode == "rgb_array":
                return [self.driver.picture(i).to_array() for i in idx]
            return [self.driver.render(i) for i in idx]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result for _ in idx]

    def env_is_wrapped(self, wrapper_class: type, indices: VecEnvIndices = None) -> list[bool]:
        """No env is wrapped in a gymnasium wrapper (there are no sub-envs): all False."""
        return [False for _ in self._indices(indices)]
