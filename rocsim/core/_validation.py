"""Input checks shared by the public entry points.

Each public function validates once, at its entry, and hands clean float arrays to the
private helpers, which trust them (the scikit-learn ``_ranking.py`` pattern).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

#: How a sample is drawn, a bootstrap resample (``bootstrap=``) or a study's test set
#: (``sampling=``): ``stratified``, each class on its own with its size fixed; ``full``, the
#: whole sample at once, so that the class sizes are random (binomial). One vocabulary for both.
SCHEMES = ("stratified", "full")


def as_real_array(values, name: str) -> np.ndarray:
    """``values`` as a float array, or a ``ValueError`` naming ``name`` for ragged, complex
    or non-numeric input (numpy would drop an imaginary part or say only "could not convert
    string to float"), and for masked entries (numpy would use the values under the mask)."""
    if np.ma.isMaskedArray(values) and np.ma.is_masked(values):
        masked = int(np.ma.count_masked(values))
        raise ValueError(f"{name} has {masked} masked value(s); drop or fill them first")
    try:
        raw = np.asarray(values)
    except ValueError:  # numpy refuses ragged nested sequences
        raise ValueError(f"{name} must be an array of numbers, got a ragged sequence") from None
    if np.iscomplexobj(raw):
        raise ValueError(f"{name} must hold real numbers, got complex values")
    if raw.dtype == object:  # numpy casts None to NaN, and complex to real, without a word
        for v in raw.ravel().tolist():
            if isinstance(v, complex):
                raise ValueError(f"{name} must hold real numbers, got complex values")
            if v is None or not _is_number(v):
                raise ValueError(f"{name} must hold numbers, got {v!r}")
    try:
        return raw.astype(float)
    except (ValueError, TypeError):
        bad = next((v for v in raw.ravel().tolist() if not _is_number(v)), None)
        raise ValueError(f"{name} must hold numbers, got {bad!r}") from None


def _is_number(value) -> bool:
    try:
        float(value)
    except (ValueError, TypeError):
        return False
    return True


def check_scores(scores, name: str) -> np.ndarray:
    """Return ``scores`` as a finite, non-empty 1-D float array, or raise ``ValueError``."""
    arr = as_real_array(scores, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of scores, got shape {arr.shape}")
    if arr.size == 0:
        raise ValueError(f"{name} is empty: both classes need at least one instance")
    if not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); scores must be finite")
    return arr


def check_rates(values, name: str) -> np.ndarray:
    """Rates (FPRs, total positive ratios) as a non-empty 1-D float array strictly inside
    (0, 1), or ``ValueError`` naming ``name``."""
    grid = np.atleast_1d(as_real_array(values, name))
    if grid.ndim != 1 or grid.size == 0 or not np.all(np.isfinite(grid)):
        raise ValueError(f"{name} must be a non-empty 1-D array of finite numbers")
    if np.any(grid <= 0) or np.any(grid >= 1):
        raise ValueError(f"{name} must lie strictly between 0 and 1")
    return grid


def check_two_classes(pos_scores, neg_scores) -> tuple[np.ndarray, np.ndarray]:
    """Validate the positive and negative scores of one classifier."""
    return check_scores(pos_scores, "pos_scores"), check_scores(neg_scores, "neg_scores")


def check_paired(pos1, pos2, neg1, neg2) -> tuple[np.ndarray, ...]:
    """Validate two classifiers' scores of the same instances: ``pos1[i]`` and ``pos2[i]`` are
    the scores of positive ``i``, likewise for the negatives."""
    arrays = [
        check_scores(v, name)
        for v, name in ((pos1, "pos1"), (pos2, "pos2"), (neg1, "neg1"), (neg2, "neg2"))
    ]
    for a, b, cls in ((arrays[0], arrays[1], "positives"), (arrays[2], arrays[3], "negatives")):
        if a.size != b.size:
            raise ValueError(
                f"the two classifiers must score the same {cls}: {a.size} != {b.size} scores"
            )
    return tuple(arrays)


def common_class_sizes(sizes) -> tuple[int, int]:
    """The ``(n+, n-)`` every test set of a batch shares (``sizes``: one pair per test set),
    or ``ValueError``: the simulation studies' batched interval formulas take one size per
    class."""
    distinct = set(sizes)
    if len(distinct) != 1:
        raise ValueError(f"the test sets must share their class sizes, got {sorted(distinct)}")
    return distinct.pop()


def check_counts(values, name: str) -> np.ndarray:
    """Counts (or effective counts) as a finite float array, or ``ValueError`` naming ``name``:
    strings, ``None``, complex values and booleans are refused (``True`` is not a count)."""
    arr = as_real_array(values, name)
    if np.asarray(values).dtype == np.bool_:
        raise ValueError(f"{name} must hold numbers, got booleans")
    if not np.all(np.isfinite(arr)):
        bad = arr[~np.isfinite(arr)].ravel()[0]
        raise ValueError(f"{name} must be finite, got {bad}")
    return arr


def check_broadcastable(**arrays: np.ndarray) -> tuple[int, ...]:
    """The common shape of ``arrays`` (numpy broadcasting), or ``ValueError`` naming them."""
    try:
        return np.broadcast_shapes(*(a.shape for a in arrays.values()))
    except ValueError:
        names = list(arrays)
        listed = ", ".join(names[:-1]) + f" and {names[-1]}"
        shapes = ", ".join(str(a.shape) for a in arrays.values())
        raise ValueError(f"{listed} must have broadcastable shapes, got {shapes}") from None


#: Largest confidence level accepted: a tail of ``1 - level`` below about 1e-10 is lost to the
#: rounding of ``level`` itself (``0.9999999999999999`` gave NaN bounds), and its quantiles to
#: that of the normal and binomial tails.
MAX_CONFIDENCE_LEVEL = 1 - 1e-9


def check_confidence_level(confidence_level: float) -> float:
    """Return ``confidence_level`` as a float in ``(0, 1 - 1e-9]``
    (:data:`MAX_CONFIDENCE_LEVEL`)."""
    try:
        level = float(confidence_level)
    except (TypeError, ValueError):
        raise ValueError(
            f"confidence_level must be a number in (0, 1), got {confidence_level!r}"
        ) from None
    if not 0.0 < level < 1.0:
        raise ValueError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    if level > MAX_CONFIDENCE_LEVEL:
        raise ValueError(
            f"confidence_level must be at most 1 - 1e-9 (its tail would be lost to rounding), "
            f"got {confidence_level!r}"
        )
    return level


def check_thresholds(thresholds, name: str = "thresholds") -> np.ndarray:
    """Return thresholds as a 1-D float array (``-inf``/``inf`` allowed, NaN not)."""
    arr = as_real_array(thresholds, name)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {arr.shape}")
    if np.any(np.isnan(arr)):
        raise ValueError(f"{name} contains NaN")
    return arr


def check_conditions(w) -> np.ndarray:
    """Operating conditions as a 1-D float array in [0, 1], or ``ValueError``."""
    arr = np.atleast_1d(as_real_array(w, "w"))
    if arr.ndim != 1:
        raise ValueError(f"w must be 1-D, got shape {arr.shape}")
    if not np.all((arr >= 0.0) & (arr <= 1.0)):  # also rejects NaN
        raise ValueError("operating conditions w must lie in [0, 1]")
    return arr


def check_choice(value: str, valid: Iterable[str], name: str) -> str:
    """Raise a ``ValueError`` listing the valid names when ``value`` is not one of them."""
    valid = list(valid)
    if value not in valid:
        raise ValueError(f"unknown {name} {value!r}; valid: {', '.join(valid)}")
    return value


def check_probability(p, name: str = "p") -> float:
    """``p`` as a float in [0, 1], or a ``ValueError`` naming ``name`` (NaN included)."""
    try:
        value = float(p)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}") from None
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
    return value
