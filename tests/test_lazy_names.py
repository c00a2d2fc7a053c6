"""The lazy packages' public names are declared once, as ``if TYPE_CHECKING:`` imports that
editors and type checkers follow to their definitions (issue 50): every declared name loads
from its module and is that module's object, and ``__all__`` lists exactly them."""

from __future__ import annotations

import importlib

import pytest

from rocsim.core._lazy import lazy_names


@pytest.mark.parametrize("package", ["rocsim", "rocsim.core"])
def test_every_declared_name_is_its_modules_object(package):
    module = importlib.import_module(package)
    declared = lazy_names(module.__file__)
    assert sorted(declared) == module.__all__ and len(declared) > 20
    for name, source in declared.items():
        assert getattr(module, name) is getattr(importlib.import_module(source), name), name


def test_names_are_read_from_the_type_checking_block_only(tmp_path):
    init = tmp_path / "pkg.py"
    init.write_text(
        "from typing import TYPE_CHECKING\nfrom os import sep\n"
        "if TYPE_CHECKING:\n    from json import dumps, loads\n    from math import pi\n"
    )
    assert lazy_names(str(init)) == {"dumps": "json", "loads": "json", "pi": "math"}
