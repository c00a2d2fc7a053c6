"""Labels and scores of a user's classifier: which instances are positive.

The one label parser of rocsim, for every entry point that takes ``(y_true, y_score)``: the
practitioner's functions and displays, ``rocsim analyze``, the planning functions. It follows
scikit-learn's rules (``sklearn.metrics`` and its ``pos_label``): labels are any two values;
without ``pos_label`` the positive one must be evident, ``1`` of {0, 1} or {-1, 1} and
``True`` of booleans; otherwise ``pos_label`` is required, and the error says so.
"""

from __future__ import annotations

import numpy as np

from rocsim.core._validation import as_real_array, check_scores

#: Label sets whose positive label needs no ``pos_label`` (scikit-learn's), and that label.
EVIDENT_LABELS = (({0, 1}, 1), ({-1, 1}, 1), ({False, True}, True))


def positive_mask(y_true, pos_label=None, name: str = "y_true") -> np.ndarray:
    """Boolean mask of the positive instances of ``y_true`` (scikit-learn's rules).

    Examples
    --------
    >>> positive_mask([0, 1, 1]).tolist()
    [False, True, True]
    >>> positive_mask(["sick", "well", "sick"], pos_label="sick").tolist()
    [True, False, True]
    """
    y = _labels(y_true, name)
    values = _classes(y, name)
    if values.size == 0:
        raise ValueError(f"{name} is empty: both classes need at least one instance")
    if values.size == 1:
        raise ValueError(f"{name} holds one class only ({values[0]!r}); both are needed")
    if values.size > 2:
        raise ValueError(
            f"{name} must hold exactly two classes, got {values.size} (binary labels): "
            f"{values[:5].tolist()}"
        )
    return y == _positive_label(values, pos_label, name)


def positive_label(y_true, pos_label=None, name: str = "y_true"):
    """The positive class of binary labels ``y_true`` (scikit-learn's rules): ``pos_label``
    when given, else ``1`` of 0/1 or -1/1 labels and ``True`` of booleans.

    Examples
    --------
    >>> positive_label([0, 1, 1])
    1
    """
    listed = _classes(_labels(y_true, name), name).tolist()
    label = _positive_label(np.asarray(listed), pos_label, name)
    return next(value for value in listed if value == label)  # True, not 1, of booleans


def split_by_label(
    y_true, *scores, pos_label=None, names: tuple[str, ...] | None = None
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The positive mask of ``y_true`` and each score array, validated together: finite 1-D
    float arrays as long as ``y_true``. ``names`` names the score arrays in messages
    (default ``y_score``, or ``y_score1``, ``y_score2``, ...)."""
    if names is None:
        names = (
            ("y_score",)
            if len(scores) == 1
            else tuple(f"y_score{k + 1}" for k in range(len(scores)))
        )
    positive = positive_mask(y_true, pos_label)
    arrays = []
    for values, name in zip(scores, names):
        arr = check_scores(values, name)
        if arr.size != positive.size:
            raise ValueError(f"y_true and {name} differ in length: {positive.size} != {arr.size}")
        arrays.append(arr)
    return positive, arrays


def split_scores(y_true, y_score, *, pos_label=None) -> tuple[np.ndarray, np.ndarray]:
    """Scores of the positives and of the negatives, from labels and scores: the bridge from
    scikit-learn's ``(y_true, y_score)`` to the exact core's class-split functions.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, any two values.
    y_score : array-like of shape (n,)
        Finite scores; higher means more likely positive.
    pos_label : optional
        The positive label (needed unless the labels are 0/1, -1/1 or booleans).

    Returns
    -------
    pos_scores, neg_scores : ndarray

    Examples
    --------
    >>> split_scores(["a", "b", "a"], [0.9, 0.2, 0.4], pos_label="a")
    (array([0.9, 0.4]), array([0.2]))
    """
    positive, (scores,) = split_by_label(y_true, y_score, pos_label=pos_label)
    return scores[positive], scores[~positive]


def split_by_class(
    y_true, *scores, labels=None, names: tuple[str, ...] = ("y_score",)
) -> tuple[list, list[list[np.ndarray]]]:
    """The classes of a multiclass ``y_true`` and, for each ``(n, c)`` score matrix, its rows
    split by class (in the classes' order, each class's rows in their order): scikit-learn's
    rules for ``roc_auc_score(multi_class=)``. The classes are the sorted labels of
    ``y_true``, or ``labels`` (unique and sorted, naming the score columns in order); every
    class must be present.

    Examples
    --------
    >>> scores = [[0.2, 0.8], [0.6, 0.4], [0.3, 0.7]]
    >>> classes, (by_class,) = split_by_class(["b", "a", "b"], scores)
    >>> classes, [rows.tolist() for rows in by_class]
    (['a', 'b'], [[[0.6, 0.4]], [[0.2, 0.8], [0.3, 0.7]]])
    """
    y = _labels(y_true, "y_true")
    present = _classes(y, "y_true")
    classes = present if labels is None else _given_classes(labels, present)
    matrices = [_score_matrix(s, name, y.size, classes.size) for s, name in zip(scores, names)]
    if classes.size < 2:
        raise ValueError(f"y_true holds {classes.size} class; a multiclass AUC needs two or more")
    return classes.tolist(), [[m[y == c] for c in classes] for m in matrices]


def _given_classes(labels, present: np.ndarray) -> np.ndarray:
    """``labels`` checked as scikit-learn checks them: unique, sorted, covering ``y_true``,
    and (rocsim's rule) each present in it."""
    given = _labels(labels, "labels")
    ordered = _classes(given, "labels")
    if ordered.size != given.size:
        raise ValueError("labels must be unique")
    if not np.array_equal(ordered, given):
        raise ValueError(f"labels must be sorted (as the score columns are), got {given.tolist()}")
    outside = np.setdiff1d(present, given)
    if outside.size:
        raise ValueError(f"y_true holds labels not in labels: {outside.tolist()}")
    absent = np.setdiff1d(given, present)
    if absent.size:
        raise ValueError(
            f"labels {absent.tolist()} have no instance in y_true; every class needs one"
        )
    return given


def _score_matrix(values, name: str, rows: int, columns: int) -> np.ndarray:
    """``values`` as a finite ``(rows, columns)`` float matrix, or a ``ValueError``."""
    matrix = as_real_array(values, name)
    if matrix.ndim != 2 or matrix.shape != (rows, columns):
        raise ValueError(
            f"{name} must have shape (n_samples, n_classes) = ({rows}, {columns}), one column "
            f"per class, got shape {matrix.shape}"
        )
    if not np.all(np.isfinite(matrix)):
        bad = int(np.count_nonzero(~np.isfinite(matrix)))
        raise ValueError(f"{name} contains {bad} NaN or infinite value(s); scores must be finite")
    return matrix


def _labels(y_true, name: str) -> np.ndarray:
    if np.ma.isMaskedArray(y_true) and np.ma.is_masked(y_true):
        raise ValueError(f"{name} has {int(np.ma.count_masked(y_true))} masked label(s)")
    y = np.asarray(y_true)
    if y.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got shape {y.shape}")
    missing = _missing(y)
    if missing:
        raise ValueError(f"{name} has {missing} missing label(s)")
    return y


def _missing(y: np.ndarray) -> int:
    """How many labels are missing: NaN, None, or pandas' NA/NaT."""
    if y.dtype.kind == "f":
        return int(np.count_nonzero(np.isnan(y)))
    if y.dtype.kind != "O":
        return 0
    import pandas as pd

    return int(np.count_nonzero(pd.isna(y)))


def _classes(y: np.ndarray, name: str) -> np.ndarray:
    """The distinct labels, sorted; labels numpy cannot order (``1`` beside ``'1'``) named."""
    try:
        return np.unique(y)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in y.tolist()})
        raise ValueError(
            f"{name} mixes labels of types {', '.join(kinds)} that cannot be compared "
            f"(e.g. 1 and '1'); give labels of one type"
        ) from None


def _positive_label(values: np.ndarray, pos_label, name: str):
    listed = values.tolist()
    if pos_label is not None:
        if pos_label not in listed:
            raise ValueError(f"pos_label {pos_label!r} is not a label of {name}: {listed}")
        return pos_label
    labels = set(listed)
    for known, positive in EVIDENT_LABELS:
        if labels == known:
            return positive
    raise ValueError(
        f"labels {listed} are not 0/1, -1/1 or booleans: say which is positive with pos_label"
    )
