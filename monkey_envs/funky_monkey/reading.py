"""Named facts of Funky Monkey observations (what a seat can see), for heuristics and analytics."""

from __future__ import annotations

from typing import Any

import numpy as np


class Reading:
    """Named facts of a batch of observations (observer-first seats), for the heuristics.

    Attributes (``B`` rows, ``P`` seats, seat 0 = the observer):
        phase: ``(B,)`` pending phase (-1 when over). pos, alive, coconuts, total: ``(B, P)``.
        golden: ``(B,)`` relative seat holding the golden coconut, -1 if none. tiger: ``(B,)``.
        bowls: ``(B, 2) bool``. hand: ``(B, 5)``. unseen: ``(B, 5)`` unseen movement cards.
        announce, known, pyramid: ``(B,)`` kinds (-1 if none). treasures: ``(B, 3)`` own.
        face: ``(B, 11)`` face-up kind per tile slot (0 = face down).
    """

    def __init__(self, game: Any, obs: np.ndarray) -> None:
        v = game.obs_layout.unflatten(np.asarray(obs, dtype=np.float32))
        P = game.num_players
        self.P = P
        self.B = obs.shape[0]

        def onehot(x: np.ndarray) -> np.ndarray:
            return np.where(x.any(1), x.argmax(1), -1)

        self.phase = onehot(v["phase"])
        self.alive = v["alive"] > 0.5
        self.pos = np.where(self.alive, v["position"].argmax(2), -1)
        self.tiger = v["tiger"].argmax(1)
        self.coconuts = np.rint(v["coconuts"] * 10).astype(np.int64)
        g = v["golden"].argmax(1)
        self.golden = np.where(g < P, g, -1)
        self.total = self.coconuts + (self.golden[:, None] == np.arange(P))
        self.bowls = v["bowls"] > 0.5
        self.hand = np.rint(v["hand"] * 5).astype(np.int64)
        self.unseen = np.rint(v["unseen_cards"] * (P + 2)).astype(np.int64)
        self.announce = onehot(v["announcement"])
        self.known = onehot(v["known_card"])
        self.pyramid = onehot(v["pyramid_card"])
        self.treasures = np.rint(v["treasures"]).astype(np.int64)
        self.face = v["tiles"].argmax(2)
        self.active = onehot(v["active"])
        self.truths = np.rint(v["truths_shown"] * 5).astype(np.int64)
        self.bluffs = np.rint(v["bluffs_shown"] * 5).astype(np.int64)
        self.receiver = np.where(self.alive[:, 1:].any(1), self.alive[:, 1:].argmax(1) + 1, 1)  # next on the left
