"""Variant runs: where a thesis claim fails, run the study under the settings that could
explain why, re-evaluate its claims there, and say which reading of the thesis the result
supports.

A study config lists its variants under ``study.variants``::

    - name: unequal_scales
      question: Does the asymmetry come from unequal class variances?
      overrides: [model.pos.sd=3.75]       # Hydra overrides on top of the study's
      replications_factor: 1               # replications: the run's times this
      partners: [fig5_7]                   # studies its claims compare with, run alike
      explains: [left_right_asymmetry]     # the claims it could explain
      readings:                            # the first whose `if` matches is chosen
        - if: {left_right_asymmetry: true}
          then: The thesis's figure had unequal variances.
        - then: Unequal variances do not explain it.

A variant runs (into ``<results_dir>/<study>/variants/<name>/<study>``, partners beside it)
only when one of the claims it explains failed in the base run. The reading is chosen by
whether the claims hold in the variant run, never typed as a result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

VARIANT_KEYS = frozenset(
    {"name", "question", "overrides", "replications_factor", "partners", "explains", "readings"}
)


@dataclass(frozen=True)
class VariantResult:
    """A variant run: its spec, the study's claims evaluated on it, and the reading chosen."""

    study: str
    name: str
    question: str
    overrides: tuple[str, ...]
    explains: tuple[str, ...]
    claims: pd.DataFrame
    reading: str
    directory: Path


def check_variants(variants: Sequence[Mapping[str, Any]], claims: Sequence[str], study: str):
    """Raise ``ValueError`` naming the first malformed variant of ``study``."""
    for variant in variants:
        where = f"study {study}, variant {variant.get('name')!r}"
        unknown = set(variant) - VARIANT_KEYS
        if unknown:
            raise ValueError(f"{where}: unknown key(s) {sorted(unknown)}")
        if not variant.get("name") or not variant.get("readings"):
            raise ValueError(f"{where}: a variant needs `name` and `readings`")
        factor = variant.get("replications_factor", 1)
        if isinstance(factor, bool) or not isinstance(factor, int) or factor < 1:
            raise ValueError(f"{where}: replications_factor must be an integer >= 1")
        named = list(variant.get("explains") or [])
        for reading in variant["readings"]:
            named += list((reading.get("if") or {}).keys())
            if not reading.get("then"):
                raise ValueError(f"{where}: every reading needs `then`")
        for claim in named:
            if claim not in claims:
                raise ValueError(f"{where}: no claim {claim!r}; claims: {', '.join(claims)}")


def needed(variants, failing: set[str]) -> list[Mapping[str, Any]]:
    """The variants that explain at least one of the ``failing`` claims."""
    return [v for v in variants if failing & set(v.get("explains") or [])]


def choose_reading(variant: Mapping[str, Any], claims: pd.DataFrame) -> str:
    """The first reading whose ``if`` (claim -> holds) matches the variant's claims."""
    holds = dict(zip(claims["claim"], claims["holds"].astype(bool)))
    for reading in variant["readings"]:
        conditions = reading.get("if") or {}
        if all(c in holds and holds[c] == bool(want) for c, want in conditions.items()):
            return " ".join(str(reading["then"]).split())
    return "None of the readings given for this variant matches its results."


def variant_runs(
    study: str, variant, overrides: list[str], replications: int
) -> list[tuple[str, list[str]]]:
    """The studies a variant of ``study`` runs, partners first (its claims compare with them),
    each with its Hydra overrides: the base ``overrides``, the variant's, and ``replications``
    times its factor."""
    factor = int(variant.get("replications_factor", 1))
    extra = [
        *overrides,
        *(variant.get("overrides") or []),
        f"replications={replications * factor}",
    ]
    return [(name, extra) for name in [*(variant.get("partners") or []), study]]


def run_variant(
    study: str,
    variant,
    overrides: list[str],
    replications: int,
    results_dir: Path,
    figures=None,
    compose=None,
) -> VariantResult:
    """Run ``variant`` of ``study`` (and its partners, :func:`variant_runs`); evaluate the
    study's claims on it. With ``figures`` (:class:`rocsim.cli.study.Figures`) the figures are
    drawn in the background, once the claims are in their sets. ``compose(name, overrides)``
    gives each run's config (default :func:`rocsim.cli.study.compose_study`)."""
    from rocsim.cli.study import compose_study, run_and_draw
    from rocsim.sim.pipeline import plain_config, write_claims

    folder = Path(results_dir) / study / "variants" / variant["name"]
    runs = []
    for name, extra in variant_runs(study, variant, overrides, replications):
        cfg = (compose or compose_study)(name, extra)
        # with figures, drawn once the claims below are in the set (one writer at a time)
        output = run_and_draw(
            cfg, folder / name, figures=figures, draw=figures is None, reuse_from=results_dir
        )
        runs.append((output, cfg))
    claims = write_claims(plain_config(cfg), folder / study)  # cfg: the study's, composed last
    for output, run_cfg in runs if figures is not None else ():
        figures.draw(output, plain_config(run_cfg))
    return VariantResult(
        study,
        variant["name"],
        " ".join(str(variant.get("question") or "").split()),
        tuple(variant.get("overrides") or ()),
        tuple(variant.get("explains") or ()),
        claims,
        choose_reading(variant, claims),
        folder / study,
    )
