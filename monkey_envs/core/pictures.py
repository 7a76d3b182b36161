"""Pictures of positions, written once for every game: a small vector drawing, its raster and its SVG.

A game draws a position through the ``picture`` hook of its :class:`~monkey_envs.core.plugins.View`, which returns
a :class:`Picture`: a list of primitives (rectangles, circles, polygons, lines, text) on a canvas
measured in pixels. The same drawing then becomes

* an ``(H, W, 3) uint8`` array (:meth:`Picture.to_array`, the faces' ``render_mode="rgb_array"``),
  rasterised with Pillow -- imported only here, on first use (``pip install "monkey-envs[pictures]"``);
* a PNG (or any raster format Pillow writes) or an SVG file (:meth:`Picture.save`; the SVG is the
  same primitives written as SVG elements and needs no package);
* a window (``render_mode="human"``, :class:`HumanView`) when one can be opened, else the text picture.

Example::

    game = make_game("<game name>")
    state = game.init([0])
    game.picture(state, 0, viewer=0).save("position.png")   # or "position.svg"
    save(env, "position.svg")                               # an env's current picture (its own viewer)

Viewer rule (as for the text picture): ``picture(state, row, viewer)`` shows the public position
plus what seat ``viewer`` may see (``None``: public only); the conformance suite checks that
resampling what the seat cannot see leaves its picture unchanged, pixel for pixel.

The canvas is padded to a multiple of 16 pixels in both directions (video encoders want even sizes,
and macro blocks of 16), and a game's picture has one size for all positions of a configuration,
so a recorded episode is a valid video.

``human`` mode: a Tk window (``tkinter``, Tk 8.6) opens when a display is
there -- ``DISPLAY`` or ``WAYLAND_DISPLAY`` set on Linux and other Unix systems, always on macOS and
Windows -- and ``MONKEY_ENVS_WINDOW`` is not ``0``; if any of that is missing or the window fails to
open (or is closed), the face prints the text picture instead, as it did before pictures existed.
"""

from __future__ import annotations

import importlib.util
import inspect
import math
import os
import sys
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: Seat colours (fill), seat 0 first; every game draws seat ``i`` in ``SEAT_COLOURS[i]``.
SEAT_COLOURS: tuple[str, ...] = ("#d62728", "#1f77b4", "#2ca02c", "#f0b400", "#9467bd", "#ff7f0e", "#17becf")
#: Seat letters as the text pictures print them.
SEAT_LETTERS = "ABCDEFG"
#: Page colours shared by the games' pictures.
INK = "#222222"
PAPER = "#fbf8f0"
MUTED = "#8a8a8a"
#: Canvas sizes are padded up to a multiple of this (video encoders want even sizes).
SIZE_STEP = 16
#: Environment variable: ``0`` keeps ``human`` mode on text even where a window could open.
WINDOW_ENV = "MONKEY_ENVS_WINDOW"
#: The text faces every game has; ``rgb_array`` is added for games that draw a picture.
TEXT_RENDER_MODES: tuple[str, ...] = ("ansi", "human")
PICTURE_RENDER_MODE = "rgb_array"

_HALIGN = {"l": ("l", "start"), "m": ("m", "middle"), "r": ("r", "end")}


def _padded(n: float) -> int:
    return int(math.ceil(max(float(n), 1.0) / SIZE_STEP) * SIZE_STEP)


def _colour(c: str | None) -> str | None:
    if c is None:
        return None
    if not isinstance(c, str) or not c.startswith("#") or len(c) not in (4, 7):
        raise ValueError(f"colours are '#rgb' or '#rrggbb' strings or None, got {c!r}")
    return c


class Picture:
    """A drawing on a ``width x height`` pixel canvas (origin top left, y down), kept as primitives.

    Args:
        width, height: the canvas size in pixels; each is padded up to a multiple of 16.
        background: ``"#rrggbb"`` page colour.
        title: a short description (the SVG's ``<title>``).

    Attributes:
        width, height: the padded canvas size (``to_array()`` is ``(height, width, 3)`` at scale 1).
        items: the primitives in drawing order, ``(kind, params)`` tuples.

    Colours are ``"#rgb"`` / ``"#rrggbb"`` strings (``None``: no fill or no outline). Raises
    ``ValueError`` for anything else, and for a non-positive canvas size.
    """

    def __init__(self, width: float, height: float, background: str = PAPER, title: str = "") -> None:
        if not (np.isfinite(width) and np.isfinite(height)) or width <= 0 or height <= 0:
            raise ValueError(f"a picture needs a positive size, got {width} x {height}")
        self.width = _padded(width)
        self.height = _padded(height)
        self.background = _colour(background)
        self.title = str(title)
        self.items: list[tuple[str, dict[str, Any]]] = []

    # ------------------------------------------------------------------ primitives
    def rect(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        fill: str | None = None,
        outline: str | None = INK,
        width: float = 1.0,
        radius: float = 0.0,
    ) -> Picture:
        """An axis-aligned rectangle with top left ``(x, y)``; ``radius`` rounds its corners."""
        self.items.append(
            (
                "rect",
                {
                    "x": x,
                    "y": y,
                    "w": w,
                    "h": h,
                    "fill": _colour(fill),
                    "outline": _colour(outline),
                    "width": width,
                    "radius": radius,
                },
            )
        )
        return self

    def circle(
        self, cx: float, cy: float, r: float, fill: str | None = None, outline: str | None = INK, width: float = 1.0
    ) -> Picture:
        """A circle of radius ``r`` around ``(cx, cy)``."""
        return self.ellipse(cx, cy, r, r, fill, outline, width)

    def ellipse(
        self,
        cx: float,
        cy: float,
        rx: float,
        ry: float,
        fill: str | None = None,
        outline: str | None = INK,
        width: float = 1.0,
    ) -> Picture:
        """An axis-aligned ellipse with radii ``rx``, ``ry`` around ``(cx, cy)``."""
        self.items.append(
            (
                "ellipse",
                {
                    "cx": cx,
                    "cy": cy,
                    "rx": rx,
                    "ry": ry,
                    "fill": _colour(fill),
                    "outline": _colour(outline),
                    "width": width,
                },
            )
        )
        return self

    def polygon(
        self,
        points: Sequence[tuple[float, float]],
        fill: str | None = None,
        outline: str | None = INK,
        width: float = 1.0,
    ) -> Picture:
        """A closed polygon through ``points`` (at least 3)."""
        pts = [(float(x), float(y)) for x, y in points]
        if len(pts) < 3:
            raise ValueError(f"a polygon needs at least 3 points, got {len(pts)}")
        self.items.append(
            ("polygon", {"points": pts, "fill": _colour(fill), "outline": _colour(outline), "width": width})
        )
        return self

    def line(self, points: Sequence[tuple[float, float]], colour: str = INK, width: float = 1.0) -> Picture:
        """An open polyline through ``points`` (at least 2)."""
        pts = [(float(x), float(y)) for x, y in points]
        if len(pts) < 2:
            raise ValueError(f"a line needs at least 2 points, got {len(pts)}")
        self.items.append(("line", {"points": pts, "colour": _colour(colour), "width": width}))
        return self

    def text(
        self,
        x: float,
        y: float,
        text: Any,
        size: float = 12.0,
        colour: str = INK,
        anchor: str = "l",
        bold: bool = False,
        mono: bool = False,
    ) -> Picture:
        """One line of text, vertically centred on ``y``; ``anchor`` ``"l"`` / ``"m"`` / ``"r"``: ``x`` is its left end, middle or right end."""
        if anchor not in _HALIGN:
            raise ValueError(f"anchor must be one of {sorted(_HALIGN)}, got {anchor!r}")
        s = str(text)
        if "\n" in s:
            raise ValueError("text() draws one line; call it once per line")
        self.items.append(
            (
                "text",
                {
                    "x": x,
                    "y": y,
                    "text": s,
                    "size": size,
                    "colour": _colour(colour),
                    "anchor": anchor,
                    "bold": bool(bold),
                    "mono": bool(mono),
                },
            )
        )
        return self

    # ------------------------------------------------------------------ glyphs built from primitives
    def regular_polygon(
        self,
        cx: float,
        cy: float,
        r: float,
        sides: int,
        fill: str | None = None,
        outline: str | None = INK,
        width: float = 1.0,
        rotation: float = 0.0,
    ) -> Picture:
        """A regular polygon with ``sides`` corners on the circle of radius ``r`` (a hexagon: ``sides=6``)."""
        pts = [
            (
                cx + r * math.cos(rotation + 2 * math.pi * k / sides),
                cy + r * math.sin(rotation + 2 * math.pi * k / sides),
            )
            for k in range(sides)
        ]
        return self.polygon(pts, fill, outline, width)

    def monkey_head(
        self, cx: float, cy: float, r: float, fill: str, outline: str = INK, face: str = "#f3d9b1"
    ) -> Picture:
        """A monkey's head (ears, head, face) of radius ``r`` in colour ``fill``: a player's piece."""
        self.circle(cx - 0.85 * r, cy - 0.25 * r, 0.38 * r, fill, outline, max(1.0, r / 10))
        self.circle(cx + 0.85 * r, cy - 0.25 * r, 0.38 * r, fill, outline, max(1.0, r / 10))
        self.circle(cx, cy, r * 0.9, fill, outline, max(1.0, r / 10))
        self.ellipse(cx, cy + 0.2 * r, 0.55 * r, 0.45 * r, face, None)
        self.circle(cx - 0.28 * r, cy - 0.12 * r, 0.09 * r, INK, None)
        self.circle(cx + 0.28 * r, cy - 0.12 * r, 0.09 * r, INK, None)
        return self

    def card(
        self,
        x: float,
        y: float,
        w: float,
        h: float,
        label: Any = "",
        fill: str = "#ffffff",
        colour: str = INK,
        size: float | None = None,
        face_down: bool = False,
        back: str = "#6b4f9e",
    ) -> Picture:
        """A playing card with ``label`` in its middle, or its back (``face_down``)."""
        r = min(w, h) * 0.12
        if face_down:
            self.rect(x, y, w, h, back, INK, 1.2, r)
            self.rect(x + w * 0.15, y + h * 0.12, w * 0.7, h * 0.76, None, "#ffffff", 1.0, r * 0.6)
            return self
        self.rect(x, y, w, h, fill, INK, 1.2, r)
        if label != "":
            self.text(x + w / 2, y + h / 2, label, size or h * 0.42, colour, "m", bold=True)
        return self

    def paste(self, other: Picture, dx: float = 0.0, dy: float = 0.0) -> Picture:
        """Draw ``other``'s primitives (not its background) here, shifted by ``(dx, dy)``."""
        for kind, p in other.items:
            q = dict(p)
            if "points" in q:
                q["points"] = [(x + dx, y + dy) for x, y in q["points"]]
            for key, d in (("x", dx), ("y", dy), ("cx", dx), ("cy", dy)):
                if key in q:
                    q[key] = q[key] + d
            self.items.append((kind, q))
        return self

    # ------------------------------------------------------------------ outputs
    def to_image(self, scale: float = 1.0, supersample: int = 2) -> Any:
        """The picture as a ``PIL.Image.Image`` (RGB) of ``round(width * scale) x round(height * scale)``.

        Drawn ``supersample`` times larger and scaled down (smooth edges without Pillow's own
        anti-aliasing). Needs Pillow (the ``pictures`` extra).
        """
        Image, ImageDraw = _pillow()
        if not (np.isfinite(scale) and scale > 0):
            raise ValueError(f"scale must be a positive number, got {scale!r}")
        if not isinstance(supersample, int) or supersample < 1:
            raise ValueError(f"supersample must be a positive int, got {supersample!r}")
        out_w, out_h = round(self.width * scale), round(self.height * scale)
        k = scale * supersample
        img = Image.new("RGB", (round(self.width * k), round(self.height * k)), self.background or "#ffffff")
        draw = ImageDraw.Draw(img)
        for kind, p in self.items:
            _draw_pil(img, draw, kind, p, k)
        if supersample > 1:  # a box filter: each pixel the mean of its supersample x supersample block
            if img.size == (out_w * supersample, out_h * supersample):
                img = img.reduce(supersample)
            else:
                img = img.resize((out_w, out_h), Image.Resampling.BOX)
        return img

    def to_array(self, scale: float = 1.0) -> np.ndarray:
        """``(H, W, 3) uint8`` RGB pixels (the ``rgb_array`` render mode); ``H = height * scale``."""
        return np.asarray(self.to_image(scale), dtype=np.uint8).copy()

    def to_svg(self) -> str:
        """The picture as an SVG document (text; no package needed)."""
        w, h = self.width, self.height
        out = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">',
        ]
        if self.title:
            from xml.sax.saxutils import escape  # here, not at import: it pulls in urllib, http, ssl, email

            out.append(f"<title>{escape(self.title)}</title>")
        if self.background:
            out.append(f'<rect x="0" y="0" width="{w}" height="{h}" fill="{self.background}"/>')
        for kind, p in self.items:
            out.append(_svg_item(kind, p))
        out.append("</svg>")
        return "\n".join(out) + "\n"

    def save(self, path: str | os.PathLike[str], scale: float = 1.0) -> Path:
        """Write the picture to ``path``: ``.svg`` as SVG, any other suffix Pillow knows (``.png``, ...) as a raster.

        Returns the path. Raises ``ValueError`` for a path without a suffix or one Pillow cannot write.
        """
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix == ".svg":
            p.write_text(self.to_svg(), encoding="utf-8")
            return p
        if not suffix:
            raise ValueError(f"cannot tell the picture format of {str(p)!r}: give it a suffix (.png, .svg, ...)")
        Image, _ = _pillow()
        Image.init()
        if suffix not in Image.EXTENSION:
            raise ValueError(f"cannot write pictures as {suffix!r} ({str(p)!r}): use .svg or a raster format like .png")
        self.to_image(scale).save(p)
        return p


# ============================================================================ rasterising (Pillow)
def _pillow() -> tuple[Any, Any]:
    try:
        from PIL import Image, ImageDraw
    except ImportError as e:  # pragma: no cover - Pillow is installed wherever the tests run
        raise ImportError('pictures need Pillow: pip install "monkey-envs[pictures]" (or pip install Pillow)') from e
    return Image, ImageDraw


def _font_files() -> dict[tuple[bool, bool], str | None]:
    """``(bold, mono) -> .ttf path``: the DejaVu fonts matplotlib ships, found without importing it."""
    found: dict[tuple[bool, bool], str | None] = dict.fromkeys(
        [(False, False), (True, False), (False, True), (True, True)]
    )
    spec = importlib.util.find_spec("matplotlib")
    if spec is not None and spec.submodule_search_locations:
        d = Path(next(iter(spec.submodule_search_locations))) / "mpl-data" / "fonts" / "ttf"
        names = {
            (False, False): "DejaVuSans.ttf",
            (True, False): "DejaVuSans-Bold.ttf",
            (False, True): "DejaVuSansMono.ttf",
            (True, True): "DejaVuSansMono-Bold.ttf",
        }
        for key, name in names.items():
            if (d / name).is_file():
                found[key] = str(d / name)
    return found


_FONT_FILES: dict[tuple[bool, bool], str | None] | None = None
_FONTS: dict[tuple[bool, bool, int], Any] = {}


def _font(size: float, bold: bool, mono: bool) -> Any:
    """A Pillow font of ``size`` pixels: DejaVu when matplotlib's copy is there, else Pillow's own."""
    global _FONT_FILES
    from PIL import ImageFont

    px = max(1, round(size))
    key = (bold, mono, px)
    font = _FONTS.get(key)
    if font is None:
        if _FONT_FILES is None:
            _FONT_FILES = _font_files()
        path = _FONT_FILES.get((bold, mono)) or _FONT_FILES.get((False, mono)) or _FONT_FILES.get((False, False))
        if path is not None:
            font = ImageFont.truetype(path, px)
        else:
            try:
                font = ImageFont.load_default(px)
            except TypeError:  # pragma: no cover - Pillow < 10.1 has one bitmap size
                font = ImageFont.load_default()
        _FONTS[key] = font
    return font


_MASKS: dict[tuple[str, int, bool, bool, str], tuple[Any, tuple[int, int]]] = {}


def _text_mask(text: str, size: float, bold: bool, mono: bool, anchor: str) -> tuple[Any, tuple[int, int]]:
    """The text's coverage mask (an ``"L"`` image) and its offset from the anchor point; cached, as
    the same labels come back in every frame (rendering glyphs is most of a picture's cost)."""
    key = (text, max(1, round(size)), bold, mono, anchor)
    hit = _MASKS.get(key)
    if hit is None:
        from PIL import Image, ImageDraw

        font = _font(size, bold, mono)
        left, top, right, bottom = (math.floor(v) for v in font.getbbox(text, anchor=anchor))
        if right <= left or bottom <= top:
            hit = (None, (0, 0))
        else:
            mask = Image.new("L", (right - left + 1, bottom - top + 1), 0)
            ImageDraw.Draw(mask).text((-left, -top), text, fill=255, font=font, anchor=anchor)
            hit = (mask, (left, top))
        if len(_MASKS) >= 8192:
            _MASKS.clear()
        _MASKS[key] = hit
    return hit


def _draw_pil(img: Any, draw: Any, kind: str, p: dict[str, Any], k: float) -> None:
    width = max(1, round(p.get("width", 1.0) * k)) if p.get("width", 0) > 0 else 0
    if kind == "rect":
        box = [p["x"] * k, p["y"] * k, (p["x"] + p["w"]) * k, (p["y"] + p["h"]) * k]
        if p["radius"] > 0:
            draw.rounded_rectangle(box, radius=p["radius"] * k, fill=p["fill"], outline=p["outline"], width=width)
        else:
            draw.rectangle(box, fill=p["fill"], outline=p["outline"], width=width)
    elif kind == "ellipse":
        box = [(p["cx"] - p["rx"]) * k, (p["cy"] - p["ry"]) * k, (p["cx"] + p["rx"]) * k, (p["cy"] + p["ry"]) * k]
        draw.ellipse(box, fill=p["fill"], outline=p["outline"], width=width)
    elif kind == "polygon":
        pts = [(x * k, y * k) for x, y in p["points"]]
        draw.polygon(pts, fill=p["fill"], outline=p["outline"], width=width)
    elif kind == "line":
        pts = [(x * k, y * k) for x, y in p["points"]]
        draw.line(pts, fill=p["colour"], width=width, joint="curve")
    elif kind == "text":
        mask, (dx, dy) = _text_mask(p["text"], p["size"] * k, p["bold"], p["mono"], _HALIGN[p["anchor"]][0] + "m")
        if mask is not None:
            x, y = round(p["x"] * k) + dx, round(p["y"] * k) + dy
            img.paste(p["colour"], (x, y, x + mask.size[0], y + mask.size[1]), mask)
    else:  # pragma: no cover - only the methods above add items
        raise ValueError(f"unknown picture item {kind!r}")


# ============================================================================ SVG
def _n(v: float) -> str:
    return f"{float(v):.2f}".rstrip("0").rstrip(".")


def _paint(p: dict[str, Any]) -> str:
    fill = p.get("fill")
    out = f' fill="{fill}"' if fill else ' fill="none"'
    if p.get("outline") and p.get("width", 0) > 0:
        out += f' stroke="{p["outline"]}" stroke-width="{_n(p["width"])}"'
    return out


def _svg_item(kind: str, p: dict[str, Any]) -> str:
    if kind == "rect":
        r = f' rx="{_n(p["radius"])}"' if p["radius"] > 0 else ""
        return f'<rect x="{_n(p["x"])}" y="{_n(p["y"])}" width="{_n(p["w"])}" height="{_n(p["h"])}"{r}{_paint(p)}/>'
    if kind == "ellipse":
        return f'<ellipse cx="{_n(p["cx"])}" cy="{_n(p["cy"])}" rx="{_n(p["rx"])}" ry="{_n(p["ry"])}"{_paint(p)}/>'
    if kind == "polygon":
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in p["points"])
        return f'<polygon points="{pts}"{_paint(p)}/>'
    if kind == "line":
        pts = " ".join(f"{_n(x)},{_n(y)}" for x, y in p["points"])
        return (
            f'<polyline points="{pts}" fill="none" stroke="{p["colour"]}" stroke-width="{_n(p["width"])}" '
            'stroke-linecap="round" stroke-linejoin="round"/>'
        )
    if kind == "text":
        from xml.sax.saxutils import escape, quoteattr  # see Picture.to_svg

        family = "DejaVu Sans Mono, monospace" if p["mono"] else "DejaVu Sans, Arial, sans-serif"
        weight = ' font-weight="bold"' if p["bold"] else ""
        return (
            f'<text x="{_n(p["x"])}" y="{_n(p["y"])}" font-family={quoteattr(family)} font-size="{_n(p["size"])}"'
            f'{weight} fill="{p["colour"]}" text-anchor="{_HALIGN[p["anchor"]][1]}" dominant-baseline="central"'
            f' xml:space="preserve">{escape(p["text"])}</text>'
        )
    raise ValueError(f"unknown picture item {kind!r}")  # pragma: no cover


# ============================================================================ helpers for games
def text_picture(text: str, title: str = "", size: float = 14.0, columns: int = 0, lines: int = 0) -> Picture:
    """A picture of a text picture (monospace, one line per line): for a game without a drawing of its own.

    A game's ``View.picture`` hook may return it
    (``return text_picture(game.render(state, row, viewer), columns=60, lines=8)``). The canvas holds
    ``columns x lines`` characters (0: fit this text -- then the size follows the text, which a
    video of an episode does not allow); longer lines and extra lines are cut. Only as good as the
    text: a real drawing is better.
    """
    rows = str(text).rstrip("\n").split("\n")
    cols = columns if columns > 0 else max(len(r) for r in rows)
    n = lines if lines > 0 else len(rows)
    char_w, line_h = 0.61 * size, 1.35 * size
    pic = Picture(2 * size + char_w * max(cols, 1), 2 * size + line_h * max(n, 1), "#ffffff", title)
    for i, r in enumerate(rows[:n]):
        if r:
            pic.text(size, size + line_h * (i + 0.5), r[:cols], size, INK, "l", mono=True)
    return pic


def tint(colour: str, amount: float, towards: str = "#ffffff") -> str:
    """``colour`` mixed with ``towards`` (white: a lighter shade): ``amount`` 0 keeps it, 1 gives ``towards``."""
    a, b = _rgb(colour), _rgb(towards)
    t = min(max(float(amount), 0.0), 1.0)
    return "#" + "".join(f"{round(x + (y - x) * t):02x}" for x, y in zip(a, b, strict=True))


def _rgb(colour: str) -> tuple[int, int, int]:
    c = _colour(colour) or "#000000"
    h = c[1:] if len(c) == 7 else "".join(ch * 2 for ch in c[1:])
    return int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16)


def grid_cells(x0: float, y0: float, rows: int, cols: int, cell: float) -> np.ndarray:
    """``(rows * cols, 2) float64`` top-left corners of a grid's cells, row-major (cell ``r * cols + c``)."""
    r, c = np.divmod(np.arange(rows * cols), cols)
    return np.stack([x0 + c * cell, y0 + r * cell], axis=1).astype(np.float64)


# ============================================================================ games and faces
def has_picture(game: Any) -> bool:
    """Whether ``game`` draws pictures (its :class:`~monkey_envs.core.plugins.View` has a ``picture`` hook)."""
    from monkey_envs.core.game import Game

    if not isinstance(game, Game):
        return False
    view = type(game).view
    return type(game).picture is not Game.picture or (view is not None and view.picture is not None)


def render_modes(game: Any) -> tuple[str, ...]:
    """The render modes a face offers for ``game``: ``("ansi", "human")``, plus ``"rgb_array"`` with a picture."""
    return (*TEXT_RENDER_MODES, PICTURE_RENDER_MODE) if has_picture(game) else TEXT_RENDER_MODES


def check_render_mode(game: Any, render_mode: Any) -> str | None:
    """``render_mode`` if ``game``'s faces offer it (``None`` is always fine).

    Raises:
        ValueError: an unknown mode, or ``"rgb_array"`` for a game that draws no picture (the
            message says so and names the hook to implement).
    """
    if render_mode is None:
        return None
    modes = render_modes(game)
    if render_mode == PICTURE_RENDER_MODE and render_mode not in modes:
        raise ValueError(
            f"render_mode 'rgb_array' needs a picture of the game, and {type(game).__name__} draws none "
            f"(its View has no picture hook); its render modes: {modes}"
        )
    if render_mode not in modes:
        raise ValueError(f"render_mode must be None or one of {modes}, got {render_mode!r}")
    return render_mode


def save(source: Any, path: str | os.PathLike[str], index: int = 0, scale: float = 1.0) -> Path:
    """Write a picture to ``path`` (``.svg`` or a raster format such as ``.png``; see :meth:`Picture.save`).

    Args:
        source: a :class:`Picture`, or an env of any face of this package (AEC, Parallel,
            gymnasium single or vector, SB3 VecEnv; wrappers are looked through with
            ``unwrapped``): its current position, from the seat its render shows.
        index: the env of a vector env.
        scale: pixels per canvas pixel for raster formats.

    Raises:
        ValueError: ``source`` has no picture (a game without the hook, an env not reset, ...).
    """
    return picture_of(source, index).save(path, scale)


def picture_of(source: Any, index: int = 0) -> Picture:
    """The :class:`Picture` of ``source``: itself, or an env's current position (see :func:`save`).

    Looks through wrappers (``unwrapped``, ``venv``) and into SB3's ``DummyVecEnv`` (env ``index``).

    Raises:
        ValueError: nothing with a picture inside ``source``, or ``index`` given for a single env.
    """
    if isinstance(source, Picture):
        return source
    env = source
    for _ in range(64):
        if callable(getattr(type(env), "picture", None)):
            break
        envs = getattr(env, "envs", None)
        if isinstance(envs, list) and envs:
            if not 0 <= index < len(envs):
                raise ValueError(f"index must be in [0, {len(envs)}), got {index!r}")
            env, index = envs[index], 0
            continue
        inner = getattr(env, "venv", None)
        if inner is None:
            inner = getattr(env, "unwrapped", None)
        if inner is None or inner is env:
            break
        env = inner
    fn = getattr(env, "picture", None)
    if not callable(fn) or isinstance(env, type):
        raise ValueError(f"{type(source).__name__} has no picture (neither a Picture nor an env of monkey_envs)")
    if "index" in inspect.signature(fn).parameters:
        return fn(index=index)
    if index != 0:
        raise ValueError(f"index {index!r} given for {type(env).__name__}, which holds one env")
    return fn()


def _display_available() -> bool:
    if os.environ.get(WINDOW_ENV, "1").strip() == "0":
        return False
    if sys.platform.startswith(("win", "darwin")):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class HumanView:
    """What a face's ``render_mode="human"`` does: show the picture in a window, or print the text.

    :meth:`show` opens a Tk window the first time it is given a picture and a display is there (see
    the module docstring), and updates it on later calls; where no window can be opened -- no
    display, ``MONKEY_ENVS_WINDOW=0``, no ``tkinter``, an error opening it, or the user closed it --
    it prints the text picture (a warning says why, once). :attr:`windowed` says which.
    """

    def __init__(self) -> None:
        self._root: Any = None
        self._label: Any = None
        self._photo: Any = None
        self._failed = False
        #: True while pictures go to a window, False when the text picture is printed.
        self.windowed = False

    def show(self, picture: Callable[[], Picture] | None, text: Callable[[], str]) -> None:
        """Show the current position: ``picture()`` in the window if there is one, else print ``text()``."""
        if picture is not None and not self._failed and _display_available():
            try:
                self._show_window(picture())
                self.windowed = True
                return
            except Exception as e:  # no Tk, no display after all, the window closed: text from now on
                self._failed = True
                self.windowed = False
                self._close_window()
                warnings.warn(
                    f"render_mode='human': no window ({type(e).__name__}: {e}); printing the text picture instead",
                    RuntimeWarning,
                    stacklevel=3,
                )
        print(text())

    def _show_window(self, pic: Picture) -> None:
        import base64
        import io
        import tkinter

        if self._root is None:
            self._root = tkinter.Tk()
            self._root.title(pic.title or "monkey_envs")
            self._label = tkinter.Label(self._root)
            self._label.pack()
        png = io.BytesIO()
        pic.to_image().save(png, format="PNG")  # Tk 8.6 reads PNG itself: no ImageTk needed
        self._photo = tkinter.PhotoImage(master=self._root, data=base64.b64encode(png.getvalue()), format="png")
        self._label.configure(image=self._photo)
        self._root.update_idletasks()
        self._root.update()

    def _close_window(self) -> None:
        root, self._root, self._label, self._photo = self._root, None, None, None
        if root is not None:
            try:
                root.destroy()
            except Exception:  # already gone
                pass

    def close(self) -> None:
        """Close the window, if one is open."""
        self._close_window()
        self.windowed = False


# ============================================================================ command line
def main(argv: Sequence[str] | None = None) -> int:
    """``python -m monkey_envs.core.pictures --game NAME [--config JSON] [--seed S] [--steps N] [--viewer V] -o FILE``.

    Plays ``N`` random legal moves (seeded: the same command draws the same picture) of game ``NAME``
    from ``game.init(S)`` -- stopping early if it ends -- and saves the position's picture as seen by
    ``V`` (a seat, ``current``: the seat to move, the default, or ``none``: public) to ``FILE``
    (``.png``, ``.svg``, ...). E.g. ``--game monkey_fun --config '{"num_players": 4}' --steps 30
    -o docs/pictures/monkey_fun.png``.
    """
    import argparse
    import json

    from monkey_envs.core.registry import GAMES, add_import_option, import_plugins, make_game

    parser = argparse.ArgumentParser(prog="python -m monkey_envs.core.pictures", description=main.__doc__)
    parser.add_argument("--game", required=True, help="a registered game name")
    parser.add_argument("--config", default="{}", help="the game's options as a JSON object")
    parser.add_argument("--seed", type=int, default=0, help="game seed (and of the random moves)")
    parser.add_argument("--steps", type=int, default=0, help="random legal moves to play first")
    parser.add_argument("--viewer", default="current", help="a seat number, 'current' or 'none'")
    parser.add_argument("-o", "--output", required=True, help="file to write (.png, .svg, ...)")
    parser.add_argument("--scale", type=float, default=1.0, help="pixels per canvas pixel (raster formats)")
    add_import_option(parser)
    args = parser.parse_args(argv)
    try:
        import_plugins(args.imports)
        if args.game not in GAMES:
            raise ValueError(f"unknown game {args.game!r}; known: {sorted(GAMES)}")
        config = json.loads(args.config)
        if not isinstance(config, dict):
            raise ValueError(f"--config must be a JSON object, got {args.config!r}")
        if args.steps < 0:
            raise ValueError(f"--steps must be >= 0, got {args.steps}")
        game = make_game(args.game, **config)
        state = game.init([args.seed])
        rng = np.random.default_rng(args.seed)
        for _ in range(args.steps):
            if state.terminated[0] or state.truncated[0]:
                break
            state = game.step(state, [int(rng.choice(np.flatnonzero(state.legal_action_mask[0])))])
        if args.viewer == "none":
            viewer = None
        elif args.viewer == "current":
            cp = int(state.current_player[0])
            viewer = cp if cp >= 0 else None
        else:
            viewer = int(args.viewer)
        out = game.picture(state, 0, viewer).save(args.output, args.scale)
    except (ValueError, NotImplementedError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(f"wrote {out} ({args.game}, seed {args.seed}, {int(state.step_count[0])} moves, viewer {viewer})")
    return 0


if __name__ == "__main__":  # pragma: no cover - the command line
    sys.exit(main())


__all__ = [
    "INK",
    "MUTED",
    "PAPER",
    "SEAT_COLOURS",
    "SEAT_LETTERS",
    "HumanView",
    "Picture",
    "check_render_mode",
    "grid_cells",
    "has_picture",
    "picture_of",
    "render_modes",
    "save",
    "text_picture",
    "tint",
]
