"""Sphinx configuration of rocsim's documentation site.

Build (warnings are errors, as in CI and ``tests/test_docs_build.py``)::

    python -m pip install -e ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html

The API reference (``api.rst``) is written by this file at every build from the name tables
of the layers (the ``TYPE_CHECKING`` imports of ``rocsim`` and ``rocsim.core``, the score
models), so that every public name has a page, grouped by layer and by the module that defines
it; the gallery
(``gallery/*.py``) is executed by sphinx-gallery.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))  # the source tree, even when rocsim is not installed
os.environ.setdefault("MPLBACKEND", "agg")

import sphinx.ext.autosummary as autosummary  # noqa: E402

import rocsim  # noqa: E402
import rocsim.core  # noqa: E402
from rocsim.core._lazy import lazy_names  # noqa: E402

project = "rocsim"
author = "the rocsim developers"
copyright = "2026, the rocsim developers"
release = rocsim.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "numpydoc",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "gallery",  # the gallery's sources: sphinx-gallery writes auto_examples/ from them
    "examples",  # docs/examples/: the breast-cancer script and the custom_method package
    "gallery_pending",  # gallery examples waiting for an API that is not there yet
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
]

# A gallery page whose source left gallery/ (e.g. for gallery_pending/) is not built again.
exclude_patterns += [
    f"auto_examples/{copy.stem}.rst"  # sphinx-gallery keeps a copy of each example's source
    for copy in (HERE / "auto_examples").glob("*.py")
    if not (HERE / "gallery" / copy.name).exists()
]

# --- MyST ----------------------------------------------------------------------------------
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3

# --- autodoc, autosummary, numpydoc ---------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
autodoc_member_order = "bysource"
numpydoc_show_class_members = False  # the result classes list their columns in prose
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
numpydoc_validation_checks: set[str] = set()

# The first sentence of a docstring is its summary in the API tables; "eq. 4.12" must not end
# it there, so that the equation numbers the docstrings cite stay visible in the tables.
autosummary.WELL_KNOWN_ABBREVIATIONS += ("eq.", "eqs.", "Eq.", "Eqs.")

# --- sphinx-gallery -------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": ["gallery"],
    "gallery_dirs": ["auto_examples"],
    # plot_*.py run at build time, except plot_09_scale_out.py (it needs a cluster): shown only
    "filename_pattern": r"/plot_(?!09_scale_out)",
    "within_subsection_order": "FileNameSortKey",
    # run every example at every build, changed or not: the pages show what the code computes
    # now, never a cached output of an older rocsim
    "run_stale_examples": True,
    "backreferences_dir": "gen_modules/backreferences",
    "doc_module": ("rocsim",),
    "reference_url": {"rocsim": None},
    "download_all_examples": False,
    "remove_config_comments": True,
    "min_reported_time": 1,
    "matplotlib_animations": False,
    "image_scrapers": ("matplotlib",),
}

# --- HTML -----------------------------------------------------------------------------------
html_theme = "furo"
html_title = f"rocsim {release}"
html_static_path: list[str] = []
templates_path = ["_templates"]
html_theme_options = {"navigation_with_keys": True}
html_show_sourcelink = True

# --- the API reference, written from the layers' name tables ---------------------------------

#: Section title and one-line summary of each module, in the order of the page.
MODULES = {
    "rocsim.analysis.roc": (
        "ROC curves",
        "On labels and scores of your own classifiers, scikit-learn style: pointwise ROC bands, "
        "bands for the whole true curve, and the comparison of two classifiers scored on the "
        "same instances.",
    ),
    "rocsim.analysis.cost": ("Cost curves", "Normalized expected cost, and its comparison."),
    "rocsim.analysis.pr": ("Precision-recall curves", "Pointwise precision-recall bands."),
    "rocsim.analysis.auc": ("Area under the curve", "The AUC, and the paired difference of two."),
    "rocsim.analysis.results": (
        "Results",
        "Typed tables with ``.to_frame()``, a one-line ``repr`` and ``.plot()``.",
    ),
    "rocsim.analysis._input": (
        "Reading the scores",
        "Labels and scores checked once; the scores' direction and its warning.",
    ),
    "rocsim.analysis.displays": (
        "Displays",
        "Curves with their bands drawn as scikit-learn's displays are: from predictions or "
        "from a fitted estimator.",
    ),
    "rocsim.core.curve_band": (
        "Bands of the whole curve",
        "The share of whole bootstrap curves a band holds, exact or by a Gaussian copula on "
        "the exact marginals, and the warning of a band holding more than asked.",
    ),
    "rocsim.core.labels": (
        "Labels",
        "Which instances are positive: scikit-learn's rules, for every entry point.",
    ),
    "rocsim.core.threshold": (
        "Threshold averaging",
        "The exact bootstrap law of (FPR, TPR) at fixed thresholds (section 4.3.1, "
        "Algorithm 4.1).",
    ),
    "rocsim.core.paired_threshold": (
        "Two classifiers, threshold averaging",
        "Paired laws at threshold pairs, dominance probabilities (eq. 4.5) and rectangles "
        "(eqs. 4.6-4.9).",
    ),
    "rocsim.core.vertical": (
        "Vertical averaging",
        "The exact bootstrap law of TPR at fixed FPRs (eqs. 4.10-4.14, Algorithm 4.3).",
    ),
    "rocsim.core.paired_vertical": (
        "Two classifiers, vertical averaging",
        "Moments and intervals of TPR1 - TPR2 at fixed FPRs (Algorithm 4.4).",
    ),
    "rocsim.core.cost": (
        "Cost curves",
        "Empirical cost curves and the exact bootstrap moments of the normalized cost "
        "(chapters 3 and 5, eqs. 5.3-5.14).",
    ),
    "rocsim.core.precision_recall": (
        "Precision-recall curves",
        "The exact bootstrap law of precision at fixed recalls or thresholds.",
    ),
    "rocsim.core.area": (
        "Area under the curve",
        "The AUC and its variance: DeLong's, and the exact bootstrap's in closed form.",
    ),
    "rocsim.core.partial_area": (
        "Partial area under the curve",
        "The partial AUC over a range of FPRs or TPRs (scikit-learn's and pROC's value, "
        "McClish-standardised) with a placement-value variance.",
    ),
    "rocsim.core.auc_methods": (
        "AUC interval methods",
        "What a method of one AUC's interval sees and returns (a method of your own too): the "
        "AUC with its variances, and a variance or a pivot. The built-in pivots: Wald on "
        "DeLong's, the exact bootstrap's or Hanley and McNeil's variance, the logit interval, "
        "Newcombe's score-type interval.",
    ),
    "rocsim.core.multiclass": (
        "Multiclass area under the curve",
        "The one-vs-one and one-vs-rest AUC of more than two classes (scikit-learn's value) "
        "with the exact per-class bootstrap variance and the placement-value one.",
    ),
    "rocsim.core.intervals": (
        "Proportion intervals",
        "Intervals for one proportion (eqs. 4.1-4.2) and for a paired difference "
        "(eqs. 4.7-4.9, Agresti-Min).",
    ),
    "rocsim.core.registry": (
        "Interval method registry",
        "Every built-in interval method of every kind of interval, described once: its "
        "formula, default pseudo-count, the designs it needs; the method tables derive from it.",
    ),
    "rocsim.core._validation": (
        "Input checks",
        "The checks of the core's entry points, for study kinds and functions of your own "
        "that take the same arguments.",
    ),
    "rocsim.core.kernel": (
        "Kernel comparator",
        "Kernel-smoothed ROC curve with the interval of Hall, Hyndman & Fan (2004).",
    ),
    "rocsim.core.roc": ("ROC curve and AUC", "The empirical ROC curve and its area."),
    "rocsim.core.counting": (
        "Counting",
        "Counts of scores at or above thresholds, the basis of every rate.",
    ),
    "rocsim.core.coverage": (
        "Exact coverage",
        "Coverage of intervals built on binomial counts, by summing binomial probabilities.",
    ),
    "rocsim.sim.planning": (
        "Sample-size planning",
        "How many test instances a band of a given width needs, from a score model.",
    ),
    "rocsim.sim.auc_planning": (
        "Sample size for the AUC",
        "How many test instances an AUC interval of a given width, or a test of the AUC "
        "with a given power, needs, from a score model.",
    ),
    "rocsim.sim.models": (
        "Score models",
        "The data-generating mechanisms of the coverage studies, with exact truths.",
    ),
}

API_HEADER = """\
.. This file is written by docs/conf.py at every build from rocsim's name tables: do not edit.

.. _api:

API reference
=============

The reference follows the package's layers. The practitioner's API is the top level,
``rocsim.<name>``, in scikit-learn's convention (``y_true, y_score``); the exact core is
``rocsim.core.<name>``, on the two classes' scores apart (``pos_scores, neg_scores``); the
simulation layer's score models are ``rocsim.sim.models.<name>``. Within a layer, names are
grouped by the module that defines them. Docstrings cite the thesis's equations, sections and
algorithms by number (Gadoury, 2009); where the thesis is read differently or misprints a
formula, :doc:`reading_the_thesis` says how and why.
"""


def _by_module(package) -> dict[str, tuple[str, ...]]:
    """A lazy package's public names by defining module (its ``TYPE_CHECKING`` imports)."""
    grouped: dict[str, tuple[str, ...]] = {}
    for name, module in lazy_names(package.__file__).items():
        grouped[module] = (*grouped.get(module, ()), name)
    return grouped


#: The layers of the reference, in order: title, introduction, the namespace the names are
#: documented in, and its names by defining module.
LAYERS = (
    (
        "Practitioner API (rocsim)",
        "Labels and scores of your own classifiers: functions, their results and displays.",
        "rocsim",
        _by_module(rocsim),
    ),
    (
        "Exact core (rocsim.core)",
        "Class-split scores in, exact bootstrap laws and intervals out.",
        "rocsim.core",
        _by_module(rocsim.core),
    ),
    (
        "Simulation layer (rocsim.sim)",
        "The score models of the coverage studies.",
        "rocsim.sim.models",
        {"rocsim.sim.models": ("PairedScoreModel", "ScoreModel", "draw_test_set", "make_model")},
    ),
)

#: Modules that define no public name but whose docstrings the reference cites: listed with the
#: others under "Modules" (their docstring only).
EXTRA_MODULES = (
    "rocsim.core.formulas",
    "rocsim.core.methods",
    "rocsim.core.joint_thresholds",
    "rocsim.sim.runner",
    "rocsim.sim.kinds",
    "rocsim.sim.performance",
    "rocsim.sim.vertical_law",
    "rocsim.core.curve_covariance",
    "rocsim.core.confidence_band",
    "rocsim.core.copula",
    "rocsim.core.difference_band",
    "rocsim.core.interpolated",
    "rocsim.core.bands",
    "rocsim.core.band_comparators",
    "rocsim.core.cost_band",
    "rocsim.core.resampled_curves",
)

#: Public name -> the page documenting it (``namespace.name``; constants under their module).
CANONICAL = {
    name: f"{module}.{name}" if name.isupper() else f"{namespace}.{name}"
    for _, _, namespace, sources in LAYERS
    for module, names in sources.items()
    for name in names
}
#: Public name -> the modules whose ``module.name`` is that page too (the defining module, and
#: the namespace it is documented in).
ALIASES = {
    name: {module, namespace}
    for _, _, namespace, sources in LAYERS
    for module, names in sources.items()
    for name in names
}


def _relative(module: str, namespace: str) -> str:
    """``module`` as autosummary wants it under ``.. currentmodule:: namespace``."""
    return module.removeprefix(namespace + ".") if module != namespace else module


def _modules() -> list[str]:
    return [module for *_, sources in LAYERS for module in sources]


def _api_pages() -> set[str]:
    """The pages autosummary writes into ``generated/``: one per name and per module."""
    return set(CANONICAL.values()) | set(_modules()) | set(EXTRA_MODULES)


def write_api_page(path: Path) -> None:
    """Write ``api.rst``: one part per layer, one section per defining module, one page per
    name."""
    parts = [API_HEADER]
    for layer, intro, namespace, sources in LAYERS:
        parts += [f"\n{layer}\n{'-' * len(layer)}\n", f"{intro}\n"]
        order = [m for m in MODULES if m in sources] + [m for m in sources if m not in MODULES]
        for module in order:
            title, summary = MODULES.get(module, (module, ""))
            heading = f"{title} (``{module}``)"
            names = sorted(sources[module], key=lambda n: (n.isupper(), n[:1].islower(), n))
            parts += [
                f"\n{heading}\n{'~' * len(heading)}\n",
                f"{summary} Module: :mod:`{module}`.\n" if summary else "",
                f".. currentmodule:: {namespace}\n",
                ".. autosummary::\n   :toctree: generated\n   :nosignatures:\n",
                # constants under their own module, whose ``#:`` comments document them
                *[
                    f"   ~{_relative(module, namespace)}.{n}" if n.isupper() else f"   {n}"
                    for n in names
                ],
                "",
            ]
    parts += [
        "\nModules\n-------\n",
        "What each module is about, from its own docstring.\n",
        ".. currentmodule:: rocsim\n",
        ".. autosummary::\n   :toctree: generated\n",
        *[f"   ~{_relative(module, 'rocsim')}" for module in [*_modules(), *EXTRA_MODULES]],
        "",
    ]
    text = "\n".join(parts)
    if not path.exists() or path.read_text() != text:  # keep Sphinx's caches when unchanged
        path.write_text(text)


write_api_page(HERE / "api.rst")
# pages of names that left the name tables (or moved) would be built but linked from nowhere
for stub in (HERE / "generated").glob("*.rst"):
    if stub.stem not in _api_pages():
        stub.unlink()


def resolve_public_names(app, env, node, contnode):
    """Link ``:func:`roc_ci```, ``:func:`rocsim.core.vertical.vertical_ci``` (the defining
    module, as module docstrings write it) and ``:func:`rocsim.core.vertical_ci``` to the page
    of the public name."""
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    module, _, name = target.rpartition(".")
    if name not in CANONICAL or module not in ("", "rocsim", *ALIASES[name]):
        return None
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], CANONICAL[name], node, contnode
    )


def setup(app):
    app.connect("missing-reference", resolve_public_names)
