"""Write the measured coverage of each interval method where users choose it: the docstrings
of the public functions (between ``.. coverage quote: <name>`` and ``.. end of coverage
quote``) and the method tables of ``docs/interval_methods.md``, from the coverage studies'
tables kept in ``docs/data`` (``write_bands_page.py`` and ``write_auc_page.py`` copy them
there from a run). Computed, never typed: ``tests/test_docs.py`` checks that the quotes are
this script's output on those tables.

Usage: ``python docs/examples/write_coverage_quotes.py [--check]`` (``--check``: change
nothing, exit 1 if a quote is not this script's output).
"""

from __future__ import annotations

import re
import sys
import textwrap
from pathlib import Path

import pandas as pd
from study_pages import markdown, replace_section

from rocsim.core.operating_point import PREVALENCE_METRICS

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "docs" / "data"
PAGE = ROOT / "docs" / "interval_methods.md"
START = "<!-- method tables: written by docs/examples/write_coverage_quotes.py -->"
END = "<!-- end of method tables -->"
QUOTE = re.compile(
    r"^(?P<indent> *)\.\. coverage quote: (?P<name>\w+)\n.*?^ *\.\. end of coverage quote\n",
    re.S | re.M,
)
#: Where each quote goes: the quote's name -> the source file holding it.
FILES = {
    "roc_ci": ROOT / "rocsim" / "analysis" / "roc.py",
    "compare_roc": ROOT / "rocsim" / "analysis" / "roc.py",
    "auc_ci": ROOT / "rocsim" / "analysis" / "auc.py",
    "net_benefit_ci": ROOT / "rocsim" / "analysis" / "decision.py",
    "compare_aucs": ROOT / "rocsim" / "analysis" / "auc.py",
    "operating_point_ci": ROOT / "rocsim" / "analysis" / "operating_point.py",
    "compare_net_benefit": ROOT / "rocsim" / "analysis" / "decision.py",
    "operating_point_ci_full": ROOT / "rocsim" / "analysis" / "operating_point.py",
    "operating_point_ci_fpr": ROOT / "rocsim" / "analysis" / "operating_point.py",
    "operating_point_ci_fpr_full": ROOT / "rocsim" / "analysis" / "operating_point.py",
    "operating_point_ci_tpr": ROOT / "rocsim" / "analysis" / "operating_point.py",
}


def table(name: str) -> pd.DataFrame | None:
    path = DATA / name / "coverage.csv"
    return pd.read_csv(path) if path.exists() else None


def summary(tables: list[pd.DataFrame], by: list[str]) -> pd.DataFrame:
    """Per method: the lowest and highest of its mean coverages over the groups ``by`` (n, and
    averaging where a study has it), its lowest condition and its mean width."""
    whole = pd.concat(tables, ignore_index=True)
    rows = []
    for method, part in whole.groupby("method", sort=False):
        keys = [k for k in by if k in part]
        means = part.groupby(keys)["coverage"].mean()
        rows.append(
            {
                "method": method,
                "mean coverage per n": f"{means.min():.3f}-{means.max():.3f}",
                "lowest condition": f"{part['coverage'].min():.3f}",
                "n per class": f"{int(part['n'].min())}-{int(part['n'].max())}",
            }
        )
    return pd.DataFrame(rows)


def sentence(frame: pd.DataFrame, label: dict[str, str] | None = None) -> str:
    """``"`simultaneous` mean 0.967-0.999, lowest 0.958; ..."`` of a :func:`summary`."""
    label = label or {}
    parts = [
        f"``{label.get(row['method'], row['method'])}`` {row['mean coverage per n']} "
        f"(lowest {row['lowest condition']})"
        for _, row in frame.iterrows()
    ]
    return "; ".join(parts)


def studies(*names: str) -> list[pd.DataFrame]:
    return [t for t in (table(name) for name in names) if t is not None]


BAND_LABELS = {"simultaneous": "simultaneous, wald", "simultaneous-score": "simultaneous, score"}


def quotes() -> dict[str, str]:
    """The text of each quote, by name."""
    out = {}
    bands = studies("bands_small_n", "bands")
    if bands:
        frame = summary(bands, ["n", "averaging"])
        frame = frame[frame["method"] != "rocci"]
        out["roc_ci"] = (
            "Measured simultaneous coverage of the true curve at level 0.95 (the band "
            "studies, :doc:`/bands_study`; mean over the models and AUCs per n and averaging, "
            "lowest and highest of those means, and the lowest condition): "
            f"{sentence(frame, BAND_LABELS)}."
        )
    paired = studies("paired_bands")
    if paired:
        out["compare_roc"] = (
            "Measured simultaneous coverage of the true difference at level 0.95 (the paired "
            "band study, :doc:`/bands_study`; mean over the pairs and correlations per n and "
            "averaging, and the lowest condition): "
            f"{sentence(summary(paired, ['n', 'averaging']))}."
        )
    auc = studies("auc_methods")
    multiclass = studies("auc_multiclass")
    partial = studies("partial_auc")
    parts = []
    if auc:
        parts.append(f"binary, :doc:`/auc_study`: {sentence(summary(auc, ['n']))}")
    if multiclass:
        parts.append(f"multiclass: {sentence(summary(multiclass, ['n']))}")
    if partial:
        parts.append(f"partial, :doc:`/bands_study`: {sentence(summary(partial, ['n']))}")
    percentile = [t[t["method"] == "percentile"] for t in studies("partial_auc_percentile")]
    if percentile:
        parts.append(
            "partial, the exact law's percentile (partial_auc_percentile, FPR [0, f], f up to "
            f"{max(t['x'].max() for t in percentile):g}): "
            f"{sentence(summary(percentile, ['n']))}"
        )
    differences = []
    for name, what in (
        ("auc_paired", "binary"),
        ("auc_paired_partial", "partial"),
        ("auc_multiclass_paired", "multiclass"),
    ):
        found = studies(name)
        if found:
            differences.append(f"{what} ({name}): {sentence(summary(found, ['n']))}")
    if differences:
        out["compare_auc"] = (
            "Measured coverage of the true difference of the AUCs at level 0.95 "
            "(:doc:`/auc_study`; mean over the pairs of classifiers and correlations per n, "
            "lowest and highest of those means, and the lowest condition): "
            + "; ".join(differences)
            + "."
        )
    family = family_by_adjust()
    if family:
        out["compare_aucs"] = (
            "Measured coverage of every pair's true difference at once at level 0.95 "
            "(:doc:`/auc_family_study`; each ``adjust``, mean over the covariances, numbers of "
            "models and AUC gaps per n, lowest and highest of those means, and the lowest "
            f"condition): {sentence(summary(family, ['n']))}."
        )
    matched = matched_net_benefit()
    if matched:
        out["net_benefit_ci"] = (
            "Measured coverage of the true net benefit at level 0.95 (:doc:`/net_benefit_study`; "
            "the bootstrap matching how the test sets were drawn, mean over the prevalences, "
            "AUCs and threshold probabilities per n and sampling, lowest and highest of those "
            "means, and the lowest condition and threshold): "
            f"{sentence(summary(matched, ['n', 'sampling']))}."
        )
    paired = matched_net_benefit("net_benefit_difference")
    if paired:
        out["compare_net_benefit"] = (
            "Measured coverage of the true difference of net benefits at level 0.95 "
            "(:doc:`/net_benefit_difference_study`; the bootstrap matching how the test sets "
            "were drawn, mean over the AUC gaps and threshold probabilities per n and "
            "bootstrap, lowest and highest of those means, and the lowest condition and "
            f"threshold): {sentence(summary(paired, ['n', 'bootstrap']))}."
        )
    operating = studies("operating_point")
    if operating:
        out["operating_point_ci"] = (
            "Measured coverage of each metric's true value at level 0.95 at fixed score "
            "thresholds, on the stratified bootstrap's law and test sets of fixed class sizes "
            "(:doc:`/operating_point_study`; mean over the thresholds per metric and n, lowest "
            "and highest of those means, and the lowest condition and threshold): "
            f"{sentence(summary(operating, ['n', 'metric']))}."
        )
    cohorts = by_bootstrap("operating_point_full")
    if cohorts:
        out["operating_point_ci_full"] = (
            "Measured on each bootstrap's laws (``auto``, the default: the full bootstrap's for "
            "PPV, NPV and accuracy, the stratified one's for the others), on test sets of fixed "
            "class sizes and on cohorts (the prevalence random; "
            ":doc:`/operating_point_full_study`; mean over the "
            "thresholds per metric and n, lowest and highest of those means, and the lowest "
            f"condition and threshold): {sentence(summary(cohorts, ['n', 'metric']))}."
        )
    at_fpr = studies("operating_point_fpr")
    if at_fpr:
        out["operating_point_ci_fpr"] = (
            "Measured at a fixed FPR, the threshold moving with the resample, on the default "
            "laws (``auto``) and test sets of fixed class sizes "
            "(:doc:`/operating_point_fpr_study`; the population's metric at that FPR, mean over "
            "the FPRs per metric and n, lowest and highest of those means, and the lowest "
            "condition and FPR): "
            f"{sentence(summary(at_fpr, ['n', 'metric']))}."
        )
    fpr_cohorts = by_bootstrap("operating_point_fpr_full", auto=False)
    if fpr_cohorts:
        out["operating_point_ci_fpr_full"] = (
            "Measured at a fixed FPR for PPV, NPV and accuracy on each law (``full_approx`` "
            "their default), on test sets of fixed class sizes and on cohorts "
            "(:doc:`/operating_point_fpr_full_study`; mean over the FPRs per metric and n, "
            "lowest and highest of those means, and the lowest condition and FPR): "
            f"{sentence(summary(fpr_cohorts, ['n', 'metric']))}."
        )
    at_tpr = by_sampling("operating_point_tpr")
    if at_tpr:
        out["operating_point_ci_tpr"] = (
            "Measured at a fixed TPR on the default laws (``auto``), on test sets of fixed "
            "class sizes and on cohorts (:doc:`/operating_point_tpr_study`; mean over the TPRs "
            "per metric and n, lowest and highest of those means, and the lowest condition "
            f"and TPR): {sentence(summary(at_tpr, ['n', 'metric']))}."
        )
    if parts:
        out["auc_ci"] = (
            "Measured coverage of the true AUC at level 0.95 (mean over the models and AUCs "
            "per n, lowest and highest of those means, and the lowest condition): "
            + "; ".join(parts)
            + "."
            + size_sentence(studies("auc_tests"))
        )
    return out


def family_by_adjust() -> list[pd.DataFrame]:
    """The ``auc_family`` study's tables with its adjustments as the methods (its ``method``
    axis is the covariance, averaged over)."""
    return [
        t.drop(columns="method").rename(columns={"adjust": "method"})
        for t in studies("auc_family")
    ]


def matched_net_benefit(name: str = "net_benefit") -> list[pd.DataFrame]:
    """A net benefit study's cells where the bootstrap matches the sampling."""
    return [t[t["sampling"] == t["bootstrap"]] for t in studies(name)]


#: How the test sets of a study with a ``sampling`` axis were drawn, in words.
DRAWN = {"stratified": "fixed classes", "full": "cohorts"}


def by_bootstrap(name: str, auto: bool = True) -> list[pd.DataFrame]:
    """A study's tables with each method named with its bootstrap and how the test sets were
    drawn (``agresti_hull, full bootstrap, cohorts``), and first the cells of
    ``operating_point_ci``'s default, ``auto`` (each metric on the bootstrap it reads,
    :data:`rocsim.core.operating_point.PREVALENCE_METRICS` on the full one, or at a fixed FPR
    on its approximation ``full_approx``); without them where ``auto`` is one of the study's
    bootstraps (its metrics all read the same)."""
    out = []
    for t in studies(name):
        full = t["metric"].isin(PREVALENCE_METRICS)
        default = t[t["bootstrap"].isin(["full", "full_approx"]) == full]
        for part in (default.assign(bootstrap="auto"), t) if auto else (t,):
            named = part["method"] + ", " + part["bootstrap"] + " bootstrap, "
            out.append(part.assign(method=named + part["sampling"].map(DRAWN)))
    return out


def by_sampling(name: str) -> list[pd.DataFrame]:
    """A study's tables with each method named with how the test sets were drawn
    (``agresti_hull, cohorts``)."""
    return [t.assign(method=t["method"] + ", " + t["sampling"].map(DRAWN)) for t in studies(name)]


#: Studies whose tables are read through a selection: the cells a method table compares.
SELECTED = {
    "operating_point_full": lambda: by_bootstrap("operating_point_full"),
    "operating_point_fpr_full": lambda: by_bootstrap("operating_point_fpr_full", auto=False),
    "operating_point_tpr": lambda: by_sampling("operating_point_tpr"),
    "net_benefit": matched_net_benefit,
    "net_benefit_difference": lambda: matched_net_benefit("net_benefit_difference"),
    "auc_family": family_by_adjust,
}


def size_sentence(tests: list[pd.DataFrame]) -> str:
    """The measured size of each method's test (its rejection rate of a true null AUC),
    lowest and highest over the nulls, alternatives and n of the ``auc_tests`` study."""
    if not tests:
        return ""
    whole = pd.concat(tests, ignore_index=True)
    at_null = whole[(whole["auc"] - whole["null"]).abs() < 1e-9]
    parts = [
        f"``{method}`` {part['rejection'].min():.3f}-{part['rejection'].max():.3f}"
        for method, part in at_null.groupby("method", sort=False)
    ]
    nulls = ", ".join(f"{v:g}" for v in sorted(set(at_null["null"])))
    return (
        " Measured size of the test at 0.05 (the rejection rate of a true null AUC, lowest "
        f"and highest over the nulls {nulls}, both alternatives and n; :doc:`/auc_tests_study`): "
        + "; ".join(parts)
        + "."
    )


def method_tables() -> list[str]:
    """The page's tables: one per function and study, a row per method."""
    lines = []
    for title, names, by in (
        ("`roc_ci(band=...)`: the true curve", ("bands_small_n", "bands"), ["n", "averaging"]),
        ("`compare_roc(band=...)`: the true difference", ("paired_bands",), ["n", "averaging"]),
        ("`auc_ci(method=...)`: the true AUC", ("auc_methods",), ["n"]),
        ("`compare_auc(method=...)`: the true difference", ("auc_paired",), ["n"]),
        (
            "`compare_auc(max_fpr=..., method=...)`: the partial AUCs' difference",
            ("auc_paired_partial",),
            ["n"],
        ),
        (
            "`compare_auc(multi_class=..., method=...)`: the multiclass AUCs' difference",
            ("auc_multiclass_paired",),
            ["n"],
        ),
        ("`auc_ci(multi_class=..., method=...)`", ("auc_multiclass",), ["n"]),
        ("`auc_ci(max_fpr=..., method=...)`: the partial AUC", ("partial_auc",), ["n"]),
        (
            '`auc_ci(max_fpr=..., method="percentile")`: the exact law\'s percentile interval',
            ("partial_auc_percentile",),
            ["n"],
        ),
        (
            "`compare_aucs(adjust=...)`: every pair's true difference at once (`auc_family`)",
            ("auc_family",),
            ["n"],
        ),
        (
            "`net_benefit_ci(method=...)`: the true net benefit, the bootstrap matching the "
            "sampling",
            ("net_benefit",),
            ["n", "sampling"],
        ),
        (
            "`compare_net_benefit(method=...)`: the true difference, the bootstrap matching "
            "the sampling",
            ("net_benefit_difference",),
            ["n", "bootstrap"],
        ),
        (
            "`operating_point_ci(method=...)`: each metric's true value at a threshold",
            ("operating_point",),
            ["n", "metric"],
        ),
        (
            "`operating_point_ci(method=..., bootstrap=...)`: each metric's true value, fixed "
            "class sizes or cohorts",
            ("operating_point_full",),
            ["n", "metric"],
        ),
        (
            "`operating_point_ci(fpr=..., method=...)`: each metric's true value at a fixed FPR",
            ("operating_point_fpr",),
            ["n", "metric"],
        ),
        (
            "`operating_point_ci(fpr=..., method=..., bootstrap=...)`: PPV, NPV and accuracy at "
            "a fixed FPR, fixed class sizes or cohorts",
            ("operating_point_fpr_full",),
            ["n", "metric"],
        ),
        (
            "`operating_point_ci(tpr=..., method=...)`: each metric's true value at a fixed TPR, "
            "fixed class sizes or cohorts",
            ("operating_point_tpr",),
            ["n", "metric"],
        ),
    ):
        found = [t for name in names for t in SELECTED.get(name, lambda n=name: studies(n))()]
        lines += [f"## {title}", ""]
        if not found:
            lines += ["Not run.", ""]
            continue
        lines += [
            f"From {', '.join(f'`{n}`' for n in names)}: the mean coverage over the conditions "
            f"of each {' and '.join(by)}, the lowest and highest of those means, and the "
            "lowest single condition.",
            "",
            *markdown(summary(found, by)),
            "",
        ]
    return lines


def rewrite(text: str, texts: dict[str, str]) -> str:
    """``text`` with each quote's lines replaced by its text (wrapped at its indent)."""

    def one(match: re.Match) -> str:
        indent, name = match.group("indent"), match.group("name")
        body = texts.get(name, "Not measured yet.")
        wrapped = textwrap.fill(body, width=99, initial_indent=indent, subsequent_indent=indent)
        return (
            f"{indent}.. coverage quote: {name}\n\n{wrapped}\n\n{indent}.. end of coverage quote\n"
        )

    return QUOTE.sub(one, text)


def main() -> int:
    check = "--check" in sys.argv[1:]
    texts = quotes()
    stale = []
    for path in sorted(set(FILES.values())):
        before = path.read_text()
        after = rewrite(before, texts)
        if after != before:
            stale.append(path)
            if not check:
                path.write_text(after)
    before = PAGE.read_text()
    if not check:
        replace_section(PAGE, START, END, method_tables())
    if PAGE.read_text() != before:
        stale.append(PAGE)
    if check:
        page_now = before.split(START)[1].split(END)[0].strip()
        if page_now != "\n".join(method_tables()).strip():
            stale.append(PAGE)
    for path in stale:
        print(f"{'stale' if check else 'wrote'}: {path.relative_to(ROOT)}")
    return 1 if check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
