"""Load a benchmark script (``benchmarks/<name>.py``, not a package) as a module for smoke tests."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]


def load_benchmark(name: str) -> ModuleType:
    """Import ``benchmarks/<name>.py`` freshly and return the module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses (and pickling) look a class's module up there
    spec.loader.exec_module(module)
    return module
