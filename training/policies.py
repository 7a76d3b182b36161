"""Policy networks for SB3, as ``training`` names them (torch is imported by this module; load it lazily).

The networks -- :data:`HEADS` (``ppo.head`` name -> policy class), :class:`ActionScorerPolicy`,
:func:`extractor_class` -- live in :mod:`agents.networks` (a loaded policy in the agent layer
rebuilds its network from them, and ``agents`` imports nothing from ``training``); this module
re-exports them for the training runner.

Saved models name their extractor class; an old model's ``training.policies.<Class>`` still
resolves (this module looks unknown attributes up in the features registry).
"""

from __future__ import annotations

from typing import Any

from agents.networks import HEADS, ActionScorerPolicy, ScorerHead, extractor_class


def __getattr__(name: str) -> Any:
    from agents.registry import features_class_named

    cls = features_class_named(name)
    if cls is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return cls


__all__ = ["HEADS", "ActionScorerPolicy", "ScorerHead", "extractor_class"]
