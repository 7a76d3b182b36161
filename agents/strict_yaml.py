"""The strict YAML reader shared by the agent library and the training runner.

Run configs (``training.config``) and the ``config.yaml`` a saved model's run left beside it
(:mod:`agents.policy`) are untrusted files: they are read with a ``yaml.SafeLoader`` subclass
that refuses anchors, aliases, merge keys, duplicate keys and deep nesting, from files of at most
:data:`MAX_FILE_BYTES`; every problem is a :class:`ConfigError` naming where. It lives in the
agent layer so both layers use one reader (``training`` imports it from here; ``agents`` imports
nothing from ``training``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

#: Size limits of the input itself.
MAX_FILE_BYTES = 1 << 20
MAX_DEPTH = 64


class ConfigError(ValueError):
    """A bad config key or value; ``str()`` is ``"<key>: <why>"``.

    Attributes:
        key: the dotted key (or the file / ``--set`` item) at fault.
        why: what is wrong with it.
    """

    def __init__(self, key: str, why: str) -> None:
        super().__init__(f"{key}: {why}")
        self.key = key
        self.why = why


def short(value: Any, limit: int = 80) -> str:
    """``repr(value)`` cut to ``limit`` characters (error messages never print unbounded values)."""
    try:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) > 10**30:
            return f"<an integer of {value.bit_length()} bits>"
        text = repr(value)
    except Exception:  # a repr that fails or would be too large
        return f"<{type(value).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def cut(text: str, limit: int = 120) -> str:
    """``text`` (a key or path, shown as is) cut to ``limit`` characters."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


class _Refused(Exception):
    """A construct the strict loader refuses (anchors, aliases, merge keys, duplicate keys)."""

    def __init__(self, mark: Any, message: str) -> None:
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        super().__init__(where + message)


def _strict_loader() -> type:
    """A ``yaml.SafeLoader`` subclass refusing anchors, aliases, merge keys and duplicate keys."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        depth = 0

        def fetch_flow_collection_start(self, token_class: Any) -> None:
            # the scanner's cost grows with the flow depth: stop a "[[[[..." file at once
            if self.flow_level >= MAX_DEPTH:
                raise _Refused(self.get_mark(), f"nested deeper than {MAX_DEPTH} levels")
            super().fetch_flow_collection_start(token_class)

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise _Refused(event.start_mark, f"YAML aliases (*{cut(str(event.anchor), 40)}) are not allowed")
            if getattr(event, "anchor", None) is not None:
                raise _Refused(event.start_mark, f"YAML anchors (&{cut(str(event.anchor), 40)}) are not allowed")
            if self.depth >= MAX_DEPTH:
                raise _Refused(event.start_mark, f"nested deeper than {MAX_DEPTH} levels")
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    raise _Refused(key_node.start_mark, "YAML merge keys (<<) are not allowed")
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:
                    raise _Refused(key_node.start_mark, f"unhashable key {short(key)}") from None
                if duplicate:
                    raise _Refused(key_node.start_mark, f"duplicate key {short(key)}")
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def _no_alias_dumper() -> type:
    import yaml

    class NoAliasDumper(yaml.SafeDumper):
        def ignore_aliases(self, data: Any) -> bool:
            return True

    return NoAliasDumper


def parse_yaml(text: str, where: str) -> Any:
    """Parse ``text`` with the strict loader.

    Raises:
        ConfigError: ``where: <problem>`` for bad or refused YAML (never another exception).
    """
    import yaml

    try:
        return yaml.load(text, Loader=_strict_loader())  # a SafeLoader subclass
    except _Refused as exc:
        raise ConfigError(where, str(exc)) from None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        at = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = exc.problem or exc.context or "invalid"
        raise ConfigError(where, f"not valid YAML: {at}{cut(str(problem), 160)}") from None
    except RecursionError:
        raise ConfigError(where, "not valid YAML: nested too deeply") from None
    except Exception as exc:  # e.g. an integer too long to convert; any parser failure is bad input
        raise ConfigError(where, f"not valid YAML: {cut(str(exc), 160)}") from None


def read_yaml(path: str | Path) -> Any:
    """Read a YAML file with the strict loader (at most 1 MiB).

    Raises:
        ConfigError: a missing, oversized, non-UTF-8 or invalid file.
    """
    p = Path(path)
    where = cut(str(p), 200)
    if not p.is_file():
        raise ConfigError(where, "config file not found")
    try:
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            raise ConfigError(where, f"{size} bytes: a config file may hold at most {MAX_FILE_BYTES}")
        text = p.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(where, "not UTF-8 text") from None
    except OSError as exc:
        raise ConfigError(where, f"cannot read: {exc.strerror or exc}") from None
    return parse_yaml(text, where)


__all__ = ["MAX_DEPTH", "MAX_FILE_BYTES", "ConfigError", "cut", "parse_yaml", "read_yaml", "short"]
