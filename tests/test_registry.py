"""One method registry: every dispatch table derived from it, no method decided by its name
elsewhere, the planning laws on the registered formulas, and methods of the user's own for the
AUC."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import rocsim
from rocsim.core import (
    area,
    cost,
    intervals,
    multiclass,
    paired_vertical,
    partial_area,
    precision_recall,
    registry,
    vertical,
)
from rocsim.core.auc_methods import Pivot
from rocsim.sim import vertical_law

PACKAGE = Path(rocsim.__file__).parent
STUDIES = Path(__import__("rocsim.studies").studies.__file__).parent


def test_a_method_is_named_in_the_registry_only():
    """No module but the registry decides anything by the name of a method with a
    pseudo-count (the issue's ``grep -rn '"agresti"' rocsim studies``)."""
    files = [*PACKAGE.rglob("*.py"), *STUDIES.glob("*.py")]
    named = [p for p in files if '"agresti"' in p.read_text() and p.name != "registry.py"]
    assert named == []


@pytest.mark.parametrize(
    ("table", "kind"),
    [
        (intervals.PROPORTION_METHODS, "proportion"),
        (intervals.PAIRED_METHODS, "paired"),
        (vertical.VERTICAL_METHODS, "vertical"),
        (paired_vertical.VERTICAL_DIFFERENCE_METHODS, "vertical_difference"),
        (precision_recall.PR_METHODS, "precision"),
        (area.AUC_INTERVAL_METHODS, "auc"),
    ],
)
def test_every_dispatch_table_is_the_registry_s(table, kind):
    assert table == registry.formulas(kind)
    assert all(callable(formula) for formula in table.values())
    assert registry.DEFAULT_METHODS.get(kind, next(iter(table))) in table


def test_the_name_tables_are_the_registry_s():
    assert cost.COST_METHODS == registry.names("proportion", gaussian=True)
    assert cost.COST_DIFFERENCE_METHODS == registry.names("paired", gaussian=True)
    assert vertical_law.LAW_METHODS == registry.names("vertical", moment_form=True)
    assert area.AUC_METHODS == registry.names("auc_variance")
    assert area.AUC_DIFFERENCE_METHODS == registry.names("auc_difference")
    assert partial_area.PARTIAL_AUC_METHODS == registry.names("partial_auc")
    assert multiclass.MULTICLASS_AUC_METHODS == registry.names("multiclass_auc")
    for kind in ("cost", "cost_difference"):
        assert registry.DEFAULT_METHODS[kind] in registry.names(kind)


def test_pseudo_counts_come_from_the_registry():
    """Thesis Table 5.1 (one proportion, 2) and Agresti & Min (paired, 1/2): the defaults, and
    a pseudo-count given to a method that takes none is refused naming those that do."""
    for kind, default in (("proportion", 2.0), ("paired", 0.5), ("vertical", 2.0)):
        (name,) = registry.pseudo_count_methods(kind)
        assert intervals.check_pseudo_count(name, None, kind) == default
        assert intervals.check_pseudo_count("wald", None, kind) is None
        with pytest.raises(ValueError, match=rf"^pseudo_count applies to method='{name}' only"):
            intervals.check_pseudo_count("wald", 1.0, kind)
    with pytest.raises(TypeError, match="unknown traits"):
        registry.names("proportion", symmetric=True)


def test_the_moment_forms_are_the_intervals_of_the_laws():
    """The planning law's interval of ``(e, D)`` is the registered formula on the adjusted
    moments (sim/vertical_law re-implements none), and ``holds`` inverts it: ``tau`` is in
    the interval of ``e`` exactly when ``e`` is in ``holds(tau)``."""
    m, d, level = 40, 0.002, 0.9
    e = np.linspace(0.0, 1.0, 401)
    for name in vertical_law.LAW_METHODS:
        info = registry.method_info("vertical", name)
        interval = vertical_law._Interval(m, level, info.moment_form, info.pseudo_count)
        low, high = interval.bounds(e, d)
        size = m + 2 * (info.pseudo_count or 0.0)
        adj = (m * e + (info.pseudo_count or 0.0)) / size
        dd = d * (m / size) ** 2
        want_low, want_high = info.moment_form.bounds(
            adj, adj * (1 - adj) / size + (1 - 1 / size) * dd, size, level
        )
        np.testing.assert_allclose(low, np.clip(want_low, 0, 1), rtol=0, atol=1e-15)
        np.testing.assert_allclose(high, np.clip(want_high, 0, 1), rtol=0, atol=1e-15)
        for tau in (0.1, 0.5, 0.83):
            held = interval.holds(tau, d)
            inside = (low <= tau) & (tau <= high)
            away = np.abs(e - held[0]) > 1e-9
            away &= np.abs(e - held[1]) > 1e-9
            np.testing.assert_array_equal(
                inside[away], ((held[0] <= e) & (e <= held[1]))[away], err_msg=name
            )


def test_the_vertical_law_uses_the_registered_formula():
    pos = np.array([0.9, 0.8, 0.3, 0.6, 0.75, 0.55])
    neg = np.array([0.7, 0.5, 0.2, 0.1, 0.4, 0.35])
    law = vertical.vertical_distribution(pos, neg, [1, 2, 3])
    for name, formula in vertical.VERTICAL_METHODS.items():
        a = registry.default_pseudo_count("vertical", name)
        ci = law.ci(0.9, name)
        low, high = formula(ci if a is not None else law, 0.9)  # agresti: on its moments
        np.testing.assert_array_equal(ci.low, np.clip(low, 0, 1))
        np.testing.assert_array_equal(ci.high, np.clip(high, 0, 1))


POS = np.array([0.9, 0.8, 0.4, 0.7, 0.65, 0.3])
NEG = np.array([0.7, 0.4, 0.1, 0.2, 0.5])


def test_a_variance_of_your_own_gives_the_wald_interval():
    own = area.auc_ci(POS, NEG, method=lambda data: data.variance("delong"))
    delong = area.auc_ci(POS, NEG, method="delong")
    assert (own.low, own.high, own.var, own.p_value) == (
        delong.low,
        delong.high,
        delong.var,
        delong.p_value,
    )
    assert own.method.endswith("<lambda>")


def test_a_pivot_of_your_own_gives_its_test_and_interval():
    """Newcombe's pivot written by the user (the docs' protocol) gives the built-in's
    interval and p-value, one-sided too."""
    from rocsim.core.auc_methods import newcombe_var

    def newcombe(data):
        def z(theta):
            var = newcombe_var(theta, data.n_pos, data.n_neg)
            if var <= 0:
                return 0.0 if theta == data.auc else math.copysign(np.inf, data.auc - theta)
            return (data.auc - theta) / math.sqrt(var)

        return Pivot(newcombe_var(data.auc, data.n_pos, data.n_neg), z)

    for alternative in ("two-sided", "greater"):
        own = area.auc_ci(POS, NEG, method=newcombe, alternative=alternative, null=0.6)
        ref = area.auc_ci(POS, NEG, method="newcombe", alternative=alternative, null=0.6)
        assert own.low == pytest.approx(ref.low, abs=1e-12)
        assert own.high == pytest.approx(ref.high, abs=1e-12)
        assert own.p_value == pytest.approx(ref.p_value, abs=1e-12)
    y = np.r_[np.ones(POS.size), np.zeros(NEG.size)]
    top = rocsim.auc_ci(y, np.r_[POS, NEG], method=newcombe)
    assert top.method == "test_a_pivot_of_your_own_gives_its_test_and_interval.<locals>.newcombe"


@pytest.mark.parametrize(
    ("method", "message"),
    [
        (lambda data: "wide", r"must return a variance or a Pivot\(var, z\)"),
        (lambda data: -1.0, r"returned the variance -1.0; it must be >= 0"),
        (lambda data, level: 0.1, r"must be callable as f\(data\)"),
        (lambda data: Pivot(0.1, z=3), "whose z is not callable"),
    ],
)
def test_a_bad_auc_method_is_named(method, message):
    with pytest.raises(ValueError, match=message):
        area.auc_ci(POS, NEG, method=method)


def test_auc_methods_needing_two_per_class_say_so():
    for name in registry.names("auc", min_per_class=True):
        with pytest.raises(ValueError, match=f"method='{name}' needs at least 2 positives"):
            area.auc_ci([0.9], [0.1, 0.2], method=name)


P2 = np.array([0.6, 0.85, 0.5, 0.7, 0.4, 0.35])
N2 = np.array([0.65, 0.2, 0.3, 0.1, 0.45])


@pytest.mark.parametrize("variance", ["delong", "exact_bootstrap"])
def test_a_difference_method_of_your_own(variance):
    """``auc_difference_ci`` takes ``f(data) -> variance`` too: on the built-in variance it
    gives the built-in interval and test, one-sided included; a pivot's interval stays in
    [-1, 1]."""
    for alternative in ("two-sided", "less"):
        own = area.auc_difference_ci(
            POS, P2, NEG, N2, method=lambda d: d.variance(variance), alternative=alternative
        )
        ref = area.auc_difference_ci(POS, P2, NEG, N2, method=variance, alternative=alternative)
        assert (own.difference, own.var, own.low, own.high, own.p_value) == pytest.approx(
            (ref.difference, ref.var, ref.low, ref.high, ref.p_value), abs=1e-15
        )

    def flat(data):
        return Pivot(0.04, lambda theta: (data.difference - theta) / 0.2)

    wide = area.auc_difference_ci(POS, P2, NEG, N2, method=flat, confidence_level=0.999)
    assert -1.0 <= wide.low < wide.difference < wide.high <= 1.0
    with pytest.raises(ValueError, match="unknown variance 'tango'"):
        area.auc_difference_ci(POS, P2, NEG, N2, method=lambda d: d.variance("tango"))
