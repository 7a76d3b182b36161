"""Pictures (``render_mode="rgb_array"``, PNG / SVG export, ``human`` fallback) through the real libraries.

* SB3's ``make_vec_env(id)`` passes ``render_mode="rgb_array"``: it builds and steps every registered
  id, with ``DummyVecEnv`` and ``SubprocVecEnv`` (the latter from a user script, as its workers
  import the script, and with gymnasium's ``"module:id"`` form from inside pytest).
* ``gymnasium.wrappers.RecordVideo`` writes a playable video of an episode.
* Every face renders ``(H, W, 3) uint8`` images; pictures differ when the position differs; a seat's
  picture shows only what that seat may see (``resample_hidden`` gives the identical image, and
  Monkey Fun's hand appears only for its owner).
* ``Picture.save`` / ``pictures.save(env, ...)`` write PNG files Pillow opens and SVG files that parse.
* A game without a picture gets a clear ``ValueError`` for ``rgb_array``; ``human`` mode prints the
  text picture where no window can open.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from PIL import Image

import monkey_envs
from monkey_envs.core import pictures
from monkey_envs.core.aec import GameAECEnv
from monkey_envs.core.game import Game
from monkey_envs.core.gym_vector import GameVectorEnv
from monkey_envs.core.pictures import Picture
from monkey_envs.core.sb3_vec import MonkeyVecEnv
from monkey_envs.games import GAMES, make_game
from monkey_envs.monkey_fun import MonkeyFun
from monkey_envs.registration import gymnasium_id

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = [n for n, path in GAMES.items() if path.startswith("monkey_envs.")]
IDS = [gymnasium_id(n) for n in SHIPPED]
#: SubprocVecEnv from a script (each starts two fresh workers: slow); the in-process test takes IDS[1].
SCRIPT_IDS = [IDS[0], IDS[-1]]


def _is_image(a: object) -> bool:
    return isinstance(a, np.ndarray) and a.ndim == 3 and a.shape[2] == 3 and a.dtype == np.uint8


def _random_masked(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


def _played(game: Game, seed: int, steps: int) -> object:
    """A position ``steps`` random legal moves into game ``seed`` (fewer if it ends)."""
    s = game.init([seed])
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if s.terminated[0]:
            break
        s = game.step(s, [int(rng.choice(np.flatnonzero(s.legal_action_mask[0])))])
    return s


class NoPicture(MonkeyFun):
    """A game whose View has no picture hook."""

    view = dataclasses.replace(MonkeyFun.view, picture=None)


# ------------------------------------------------------------------ SB3 make_vec_env (the reported crash)
@pytest.mark.parametrize("gym_id", IDS)
def test_make_vec_env_dummy_builds_steps_and_renders_every_id(gym_id):
    """SB3 passes render_mode="rgb_array" (the crash: 'render_mode must be None or one of ...')."""
    from stable_baselines3.common.env_util import make_vec_env

    venv = make_vec_env(gym_id, n_envs=2, seed=0)
    obs = venv.reset()
    assert obs.shape[0] == 2 and venv.render_mode == "rgb_array"
    rng = np.random.default_rng(0)
    for _ in range(12):
        masks = np.stack(venv.env_method("action_masks"))
        venv.step(_random_masked(masks, rng))
    images = venv.get_images()
    assert len(images) == 2 and all(_is_image(i) for i in images) and images[0].shape == images[1].shape
    tiled = venv.render()  # SB3 tiles the envs' pictures into one image
    h, w, _ = images[0].shape
    assert _is_image(tiled) and tiled.shape[0] * tiled.shape[1] >= 2 * h * w
    venv.close()


def test_make_vec_env_subproc_in_process_with_module_prefixed_id():
    """The workers start fresh interpreters: gymnasium's "module:id" form imports monkey_envs there."""
    from stable_baselines3.common.env_util import make_vec_env
    from stable_baselines3.common.vec_env import SubprocVecEnv

    venv = make_vec_env(f"monkey_envs:{IDS[1]}", n_envs=2, seed=0, vec_env_cls=SubprocVecEnv)
    try:
        venv.reset()
        rng = np.random.default_rng(1)
        for _ in range(6):
            venv.step(_random_masked(np.stack(venv.env_method("action_masks")), rng))
        images = venv.get_images()
        assert len(images) == 2 and all(_is_image(i) for i in images)
    finally:
        venv.close()


def test_make_vec_env_subproc_from_a_user_script(tmp_path: Path):
    """The documented usage: `import monkey_envs` at the top of a script, plain ids, SubprocVecEnv."""
    script = tmp_path / "train_like.py"
    script.write_text(
        textwrap.dedent(
            f"""
            import numpy as np
            import monkey_envs  # registers the ids (the workers import this script too)
            from stable_baselines3.common.env_util import make_vec_env
            from stable_baselines3.common.vec_env import SubprocVecEnv

            if __name__ == "__main__":
                rng = np.random.default_rng(0)
                for gym_id in {SCRIPT_IDS!r}:
                    venv = make_vec_env(gym_id, n_envs=2, seed=0, vec_env_cls=SubprocVecEnv)
                    venv.reset()
                    for _ in range(6):
                        masks = np.stack(venv.env_method("action_masks"))
                        venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
                    images = venv.get_images()
                    assert all(i.ndim == 3 and i.shape[2] == 3 and i.dtype == np.uint8 for i in images)
                    print(gym_id, images[0].shape)
                    venv.close()
            """
        ),
        encoding="utf-8",
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]))
    res = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert res.returncode == 0, res.stderr[-3000:]
    assert all(gym_id in res.stdout for gym_id in SCRIPT_IDS)


# ------------------------------------------------------------------ RecordVideo
def test_record_video_writes_a_video_of_an_episode(tmp_path: Path):
    pytest.importorskip("moviepy")
    from gymnasium.wrappers import RecordVideo

    env = RecordVideo(
        gymnasium.make(IDS[0], render_mode="rgb_array"),
        str(tmp_path / "videos"),
        episode_trigger=lambda e: True,
        disable_logger=True,
    )
    _, info = env.reset(seed=0)
    first = env.unwrapped.render()
    rng = np.random.default_rng(0)
    done, steps = False, 0
    while not done:
        _, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        done, steps = term or trunc, steps + 1
    env.close()
    videos = sorted((tmp_path / "videos").glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
    from moviepy import VideoFileClip

    with VideoFileClip(str(videos[0])) as clip:
        assert tuple(clip.size) == (first.shape[1], first.shape[0])
        assert clip.duration >= steps / env.metadata.get("render_fps", 30) * 0.9


# ------------------------------------------------------------------ every face renders images
@pytest.mark.parametrize("game", SHIPPED)
def test_every_face_renders_rgb_array_images_of_one_size(game):
    aec = monkey_envs.versioned_module(f"{game}_v{make_game(game).spec.version}").env(render_mode="rgb_array")
    aec.reset(seed=1)
    a = aec.render()
    assert _is_image(a)
    single = gymnasium.make(gymnasium_id(game), render_mode="rgb_array")
    single.reset(seed=1)
    b = single.render()
    assert _is_image(b) and b.shape == a.shape
    vec = GameVectorEnv(num_envs=3, game=game, render_mode="rgb_array")
    vec.reset(seed=1)
    frames = vec.render()
    assert len(frames) == 3 and all(_is_image(f) and f.shape == a.shape for f in frames)
    sb3 = MonkeyVecEnv(game, num_envs=2, render_mode="rgb_array")
    sb3.reset()
    assert all(_is_image(i) and i.shape == a.shape for i in sb3.get_images())
    assert _is_image(sb3.render())
    assert _is_image(sb3.env_method("render", indices=1)[0])


@pytest.mark.parametrize("game", SHIPPED)
def test_pictures_differ_when_the_position_differs(game):
    g = make_game(game)
    env = GameAECEnv(g, render_mode="rgb_array")
    env.reset(seed=2)
    before = env.render()
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))
    after = env.render()
    assert after.shape == before.shape and not np.array_equal(after, before)


# ------------------------------------------------------------------ no peeking
@pytest.mark.parametrize("game", SHIPPED)
def test_a_seats_picture_does_not_change_with_what_it_cannot_see(game):
    g = make_game(game, **({"num_players": 3} if game == "monkey_fun" else {}))
    for seed, steps in ((0, 5), (1, 17)):
        s = _played(g, seed, steps)
        for seat in range(g.num_players):
            base = g.picture(s, 0, seat).to_array()
            for k in range(3):
                twin = g.resample_hidden(s, seat, k)
                assert twin is not None
                assert np.array_equal(g.picture(twin, 0, seat).to_array(), base), (seed, seat, k)
        public = g.picture(s, 0, None).to_array()
        for k in range(2):
            assert np.array_equal(g.picture(g.resample_hidden(s, 0, k), 0, None).to_array(), public)


def test_monkey_fun_shows_a_hand_only_to_its_owner():
    """Rule: other players' hands are never seen. Seat 1's picture is the same whatever seat 0 holds,
    and differs from seat 0's picture (its own hand), and the public picture shows none."""
    g = make_game("monkey_fun", num_players=2)
    a = g.position(hands=[[3, 5, 8, 12], [1, 2, 2, 9]], current_player=0)
    b = g.position(hands=[[4, 6, 7, 11], [1, 2, 2, 9]], current_player=0)
    assert np.array_equal(g.picture(a, 0, 1).to_array(), g.picture(b, 0, 1).to_array())
    assert not np.array_equal(g.picture(a, 0, 0).to_array(), g.picture(b, 0, 0).to_array())
    assert not np.array_equal(g.picture(a, 0, 0).to_array(), g.picture(a, 0, 1).to_array())
    assert np.array_equal(g.picture(a, 0, None).to_array(), g.picture(b, 0, None).to_array())


def test_funky_monkey_card_in_flight_is_drawn_only_for_who_has_seen_it():
    """Rule: the face-down card is known to its player only; the receiver sees the announcement."""
    from monkey_envs.funky_monkey import FunkyMonkey

    g = FunkyMonkey(num_players=3)

    def offer(card: int):
        s = g.position(positions=[0, 1, 0], hands=[[card, 1], [2], [2]], active=0, turn_order=[1, 2])
        return g.step(s, [(card - 1) * 5 + 2])  # seat 0 plays `card` face down and announces "3"

    three, four = offer(3), offer(4)
    assert int(three.holder[0]) == 1
    receiver = [g.picture(s, 0, 1).to_array() for s in (three, four)]
    player = [g.picture(s, 0, 0).to_array() for s in (three, four)]
    assert np.array_equal(*receiver)  # the receiver cannot tell a true 3 from a bluffed 4
    assert not np.array_equal(*player)  # the player sees its own card (and its hand)


def test_the_gym_env_draws_from_the_learners_seat():
    env = gymnasium.make(IDS[0], render_mode="rgb_array")
    env.reset(seed=4)
    core = env.unwrapped
    seat = core.learner_seat
    assert np.array_equal(env.render(), core.game.picture(core.driver.state, 0, seat).to_array())


# ------------------------------------------------------------------ export
@pytest.mark.parametrize("game", SHIPPED)
def test_png_and_svg_export_write_valid_files(game, tmp_path: Path):
    g = make_game(game)
    s = _played(g, 3, 10)
    pic = g.picture(s, 0, 0)
    png = pic.save(tmp_path / f"{game}.png")
    with Image.open(png) as im:
        assert im.format == "PNG" and im.size == (pic.width, pic.height)
        assert np.array_equal(np.asarray(im.convert("RGB")), pic.to_array())
    svg = pic.save(tmp_path / f"{game}.svg")
    root = ET.parse(svg).getroot()
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    assert root.get("width") == str(pic.width) and root.get("height") == str(pic.height)
    assert len(root) > 50  # the same primitives as the raster
    assert pic.save(tmp_path / "big.png", scale=2).exists()
    with Image.open(tmp_path / "big.png") as im:
        assert im.size == (2 * pic.width, 2 * pic.height)


def test_save_an_envs_current_picture(tmp_path: Path):
    from stable_baselines3.common.env_util import make_vec_env

    aec = monkey_envs.monkey_fun_v0.env()  # wrapped: pictures.save looks through the wrappers
    aec.reset(seed=0)
    pictures.save(aec, tmp_path / "aec.png")
    single = gymnasium.make(IDS[1])
    single.reset(seed=0)
    pictures.save(single, tmp_path / "single.svg")
    ET.parse(tmp_path / "single.svg")
    vec = GameVectorEnv(num_envs=2, game=SHIPPED[2])
    vec.reset(seed=0)
    pictures.save(vec, tmp_path / "vec1.png", index=1)
    dummy = make_vec_env(IDS[0], n_envs=2, seed=0)
    dummy.reset()
    pictures.save(dummy, tmp_path / "dummy1.png", index=1)
    for name in ("aec.png", "vec1.png", "dummy1.png"):
        with Image.open(tmp_path / name) as im:
            assert im.format == "PNG"
    with pytest.raises(ValueError, match="one env"):
        pictures.save(single, tmp_path / "x.png", index=1)
    with pytest.raises(ValueError, match="no picture"):
        pictures.save(object(), tmp_path / "x.png")
    with pytest.raises(ValueError, match="reset"):
        pictures.save(monkey_envs.monkey_fun_v0.raw_env(), tmp_path / "x.png")


def test_picture_primitives_refuse_bad_input(tmp_path: Path):
    pic = Picture(100, 50)
    assert (pic.width, pic.height) == (112, 64)  # padded to multiples of 16 (video encoders)
    with pytest.raises(ValueError, match="colour"):
        pic.rect(0, 0, 10, 10, fill="red")
    with pytest.raises(ValueError, match="anchor"):
        pic.text(0, 0, "x", anchor="top")
    with pytest.raises(ValueError, match="one line"):
        pic.text(0, 0, "a\nb")
    with pytest.raises(ValueError, match="3 points"):
        pic.polygon([(0, 0), (1, 1)])
    with pytest.raises(ValueError, match="positive size"):
        Picture(0, 10)
    with pytest.raises(ValueError, match="suffix"):
        pic.save(tmp_path / "noext")
    with pytest.raises(ValueError, match="cannot write"):
        pic.save(tmp_path / "x.docx")
    text = pic.text(5, 5, "<&>").to_svg()
    assert "&lt;&amp;&gt;" in text and ET.fromstring(text) is not None


# ------------------------------------------------------------------ a game without a picture
def test_a_game_without_a_picture_gets_a_clear_error():
    g = NoPicture(num_players=2)
    assert not pictures.has_picture(g) and pictures.has_picture(make_game("monkey_fun"))
    with pytest.raises(NotImplementedError, match="draws no picture"):
        g.picture(g.init([0]))
    for make in (
        lambda: GameAECEnv(g, render_mode="rgb_array"),
        lambda: gymnasium.make(IDS[0], game=g, render_mode="rgb_array"),
        lambda: GameVectorEnv(num_envs=2, game=g, render_mode="rgb_array"),
        lambda: MonkeyVecEnv(g, num_envs=2, render_mode="rgb_array"),
    ):
        with pytest.raises(ValueError, match=r"render_mode 'rgb_array' needs a picture of the game, and NoPicture"):
            make()
    env = GameAECEnv(g, render_mode="ansi")  # text still works
    assert env.metadata["render_modes"] == ["ansi", "human"]
    env.reset(seed=0)
    assert env.render().startswith("Monkey Fun")


# ------------------------------------------------------------------ human mode
def test_human_mode_prints_the_text_where_no_window_can_open(monkeypatch, capsys):
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if sys.platform.startswith(("win", "darwin")):
        monkeypatch.setenv(pictures.WINDOW_ENV, "0")
    env = GameAECEnv("monkey_fun", render_mode="human")
    env.reset(seed=0)
    capsys.readouterr()
    assert env.render() is None
    assert capsys.readouterr().out.startswith("Monkey Fun")
    assert env._human is not None and not env._human.windowed
    env.close()


def test_human_mode_falls_back_to_text_when_the_window_fails(monkeypatch, capsys):
    """A display that cannot be opened (or no tkinter): one warning, then the text picture."""
    monkeypatch.setenv("DISPLAY", ":4711")  # no X server there
    monkeypatch.delenv(pictures.WINDOW_ENV, raising=False)
    env = gymnasium.make(IDS[2], render_mode="human")
    with pytest.warns(RuntimeWarning, match="no window"):
        env.reset(seed=0)
    assert "Monki" in capsys.readouterr().out
    env.step(int(np.flatnonzero(env.unwrapped.action_masks())[0]))  # no second warning: text from now on
    assert "Monki" in capsys.readouterr().out
    env.close()


def test_human_mode_stays_on_text_when_asked(monkeypatch, capsys):
    monkeypatch.setenv("DISPLAY", ":4711")
    monkeypatch.setenv(pictures.WINDOW_ENV, "0")
    venv = GameVectorEnv(num_envs=2, game="funky_monkey", render_mode="human")
    venv.reset(seed=0)
    venv.render()
    assert capsys.readouterr().out.startswith("Funky Monkey")


# ------------------------------------------------------------------ the command behind docs/pictures
def test_the_picture_command_writes_the_documented_files(tmp_path: Path, capsys):
    out = tmp_path / "fm.png"
    argv = ["--game", "funky_monkey", "--config", '{"num_players": 4}', "--seed", "5", "--steps", "40", "-o", str(out)]
    assert pictures.main(argv) == 0
    assert pictures.main([*argv[:-1], str(tmp_path / "again.png")]) == 0  # seeded: the same picture again
    with Image.open(out) as a, Image.open(tmp_path / "again.png") as b:
        assert np.array_equal(np.asarray(a), np.asarray(b))
    assert pictures.main(["--game", "monki", "--viewer", "none", "-o", str(tmp_path / "m.svg")]) == 0
    ET.parse(tmp_path / "m.svg")
    assert pictures.main(["--game", "no_such_game", "-o", str(tmp_path / "x.png")]) == 2
    assert pictures.main(["--game", "monki", "--viewer", "7", "-o", str(tmp_path / "x.png")]) == 2
    assert "error: viewer must be None or a seat" in capsys.readouterr().err


class _FakeTk:
    """Stands in for ``tkinter`` (no display here): records the images a window would show."""

    def __init__(self) -> None:
        self.shown: list[bytes] = []
        self.closed = False
        fake = self

        class Tk:
            def title(self, text):
                self.text = text

            def update_idletasks(self):
                pass

            def update(self):
                if fake.closed:
                    raise RuntimeError("application has been destroyed")

            def destroy(self):
                pass

        class Label:
            def __init__(self, root):
                pass

            def pack(self):
                pass

            def configure(self, image):
                fake.shown.append(image.data)

        class PhotoImage:
            def __init__(self, master, data, format):
                assert format == "png"
                self.data = data

        self.Tk, self.Label, self.PhotoImage = Tk, Label, PhotoImage


def test_human_mode_shows_the_picture_in_a_window_where_one_opens(monkeypatch, capsys):
    import base64
    import io

    fake = _FakeTk()
    monkeypatch.setitem(sys.modules, "tkinter", fake)
    monkeypatch.setenv("DISPLAY", ":0")
    monkeypatch.delenv(pictures.WINDOW_ENV, raising=False)
    env = GameAECEnv("monkey_fun", render_mode="human")
    env.reset(seed=0)
    env.render()
    assert capsys.readouterr().out == ""  # nothing printed: the picture went to the window
    with Image.open(io.BytesIO(base64.b64decode(fake.shown[-1]))) as im:
        assert np.array_equal(np.asarray(im.convert("RGB")), env.picture().to_array())
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))  # human: shown after a step
    assert len(fake.shown) == 2 and env._human.windowed
    fake.closed = True  # the user closes the window: text from then on
    with pytest.warns(RuntimeWarning, match="no window"):
        env.render()
    assert capsys.readouterr().out.startswith("Monkey Fun") and not env._human.windowed
    env.close()


def test_importing_the_package_and_its_aec_face_leaves_svg_escaping_unloaded():
    """Issue 23 item 2 (cold start): ``xml.sax.saxutils`` pulls in urllib, http, ssl and email
    (about 0.03 CPU-s); only SVG export needs it, so nothing imports it before a picture is written."""
    code = (
        "import sys, monkey_envs, monkey_envs.core.aec, monkey_envs.core.pictures as P\n"
        "before = 'xml.sax.saxutils' in sys.modules\n"
        "svg = P.Picture(20, 10, title='a<b').text(1, 1, 'x&y').to_svg()\n"
        "print(before, 'a&lt;b' in svg and 'x&amp;y' in svg)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.split() == ["False", "True"], r.stdout + r.stderr
