"""Public names loaded on first use (PEP 562), declared once: as the imports of the package's
``if TYPE_CHECKING:`` block, which editors and type checkers follow to the definitions, and
which :func:`lazy_names` reads (without running them) for the package's ``__getattr__``."""

from __future__ import annotations

import ast
from importlib import import_module
from pathlib import Path
from typing import Any


def lazy_names(init_file: str) -> dict[str, str]:
    """``{name: module}`` of the ``from module import name`` statements in the ``if
    TYPE_CHECKING:`` block of the module at ``init_file``, in their order."""
    tree = ast.parse(Path(init_file).read_text(encoding="utf-8"))
    names: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    names |= {alias.name: statement.module for alias in statement.names}
    return names


def load_name(namespace: dict[str, Any], where: dict[str, str], name: str) -> Any:
    """``name`` from its module (``where[name]``), kept in the package's ``namespace`` so that
    later look-ups skip the package's ``__getattr__``."""
    value = getattr(import_module(where[name]), name)
    namespace[name] = value
    return value
