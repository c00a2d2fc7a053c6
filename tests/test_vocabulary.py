"""One vocabulary (issue 50, item 5): every interval function of ``rocsim.core`` ends in
``_ci`` and every interval result class in ``CI``; a seed is ``random_state``. The former
names keep working for one release, each with a ``DeprecationWarning`` naming the new one."""

from __future__ import annotations

import importlib
import warnings

import pytest

import rocsim
import rocsim.core
from rocsim.core._deprecated import RENAMED


@pytest.mark.parametrize("old, new", sorted(RENAMED.items()))
def test_a_former_core_name_warns_and_gives_the_new_one(old, new):
    with pytest.warns(DeprecationWarning, match=rf"rocsim\.core\.{old} is deprecated.*{new}"):
        value = getattr(rocsim.core, old)
    assert value is getattr(rocsim.core, new)
    module = importlib.import_module(value.__module__)  # where it is defined, too
    with pytest.warns(DeprecationWarning, match=new):
        assert getattr(module, old) is value


def test_the_core_speaks_one_suffix():
    names = rocsim.core.__all__
    assert not [n for n in names if n.endswith("_interval") or n.endswith("Interval")]
    assert not set(RENAMED) & set(names)
    assert set(RENAMED.values()) <= set(names)


def test_the_new_names_warn_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in RENAMED.values():
            getattr(rocsim.core, name)


def test_sample_size_takes_random_state_and_its_former_seed():
    options = dict(at=0.2, averaging="threshold", width=0.2)
    new = rocsim.sample_size(0.8, random_state=3, **options)
    with pytest.warns(DeprecationWarning, match="use random_state"):
        old = rocsim.sample_size(0.8, seed=3, **options)
    assert new.to_frame().equals(old.to_frame()) and new.random_state == 3
    with pytest.warns(DeprecationWarning, match="SampleSize.random_state"):
        assert new.seed == 3


def test_every_public_seed_is_random_state():
    """A public function that takes a seed calls it random_state (``seed`` at most as the
    deprecated alias beside it)."""
    import inspect

    for name in rocsim.__all__:
        try:
            parameters = inspect.signature(getattr(rocsim, name)).parameters
        except (TypeError, ValueError):  # a constant, or a class without a signature
            continue
        if "seed" in parameters:
            assert "random_state" in parameters, name
