# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""Compiled forward pass of the exact stratified-bootstrap law of a partial AUC
(:mod:`rocsim.core.partial_law`): one cell of pooled scores at a time.

A state past the low cut is ``(a, c, J)``: ``a`` resampled positives and ``c`` resampled
negatives above the cell, ``J`` the positives' integer sum of ``2 c_i + t_i`` (negatives above
and tied with each). It is stored as rows ``(a, c)`` of a grid, each row the run of ``J`` from
``first`` holding probability, in one flat array. Before the low cut the state is ``(a, c)``
alone (every positive there adds the same constant), a dense grid :func:`early_step` moves."""

import numpy as np

from libc.limits cimport LONG_MAX


cdef inline long _lower(long x, long y) noexcept nogil:
    return x if x < y else y


cdef inline long _upper(long x, long y) noexcept nogil:
    return x if x > y else y


cdef inline void _add_scaled(
    double* target, const double* source, long size, double w
) noexcept nogil:
    """``target[i] += w source[i]``: a row of states moved by one pair of binomial terms."""
    cdef long i
    for i in range(size):
        target[i] += w * source[i]


cdef inline void _scatter(
    double* target, long base, long stride, const double* source, long size, double w
) noexcept nogil:
    """``target[base - i stride] += w source[i]``: a row of ``J`` onto the value lattice (the
    value falls as ``J`` grows)."""
    cdef long i
    for i in range(size):
        target[base - i * stride] += w * source[i]


def layer_step(
    long a0,
    long na,
    long c0,
    long nc,
    const long[::1] start,
    const long[::1] first,
    const long[::1] length,
    const double[::1] data,
    long ka,
    const double[:, ::1] pos_w,
    const long[::1] pos_lo,
    const long[::1] pos_hi,
    long kc,
    const double[:, ::1] neg_w,
    const long[::1] neg_lo,
    const long[::1] neg_hi,
    const long[::1] in_a,
    const long[::1] in_c,
    const long[::1] in_sum,
    const double[::1] in_p,
    long cut,
    long p_hi,
    long q_hi,
    double[::1] lattice,
    long sc,
    const long[:, :, ::1] phi_id,
    const long[:, :, ::1] phi_shift,
    long n_ids,
    double tiny,
):
    """Move the states ``(a, c, J)`` of the grid ``(a0, na, c0, nc, start, first, length,
    data)`` across one cell, adding the states ``in_*`` (entering from before the low cut).

    In the cell ``j ~ Bin(m+ - a, p)`` positives (``pos_w[a - ka, j]``, nonzero for ``j`` in
    ``pos_lo .. pos_hi``) and ``t ~ Bin(n- - c, q)`` negatives (``neg_w[c - kc, t]``) are
    drawn: ``(a, c, J) -> (a + j, c + t, J + j (2 c + t))``. A state reaching ``c + t >= cut``
    (``s_hi = p_hi / q_hi`` negatives, ``cut = ceil(s_hi)``) is final: its value
    ``2 a s_hi - J`` (in units of ``1 / q_hi``, ``2 a p_hi - J q_hi``) goes to ``lattice``;
    positives tied with a block the cut falls inside add the non-lattice
    ``j (s_hi - c)^2 / t``, whose integer part (``phi_shift[c - sc, t, j]``) shifts the index
    and whose fraction picks the run ``phi_id`` (below ``n_ids``; -1: none, the lattice) of
    the atoms returned. The new grid's runs lose their ends below ``tiny``.

    Returns the new grid and the atoms of the straddling fractions, ``(first, start, length,
    probs)``: fraction ``i``'s run of ``length[i]`` values from the index ``first[i]`` starts
    at ``probs[start[i]]``."""
    cdef long n_in = in_a.shape[0], rows = na * nc
    cdef long r, a, c, t, j, i, target, size, base, cls, offset
    cdef long a_lo = LONG_MAX, a_hi = -1, c_lo = LONG_MAX, c_hi = -1
    cdef double wt, w
    cdef long[::1] row_a = a0 + np.arange(rows, dtype=np.int64) // _upper(nc, 1)
    cdef long[::1] row_c = c0 + np.arange(rows, dtype=np.int64) % _upper(nc, 1)
    # the new grid's extent
    for r in range(rows):
        if length[r] == 0:
            continue
        a, c = row_a[r], row_c[r]
        if c + neg_lo[c - kc] < cut:
            a_lo = _lower(a_lo, a + pos_lo[a - ka])
            a_hi = _upper(a_hi, a + pos_hi[a - ka])
            c_lo = _lower(c_lo, c + neg_lo[c - kc])
            c_hi = _upper(c_hi, _lower(c + neg_hi[c - kc], cut - 1))
    for i in range(n_in):
        a_lo, a_hi = _lower(a_lo, in_a[i]), _upper(a_hi, in_a[i])
        c_lo, c_hi = _lower(c_lo, in_c[i]), _upper(c_hi, in_c[i])
    cdef long new_na = a_hi - a_lo + 1 if a_hi >= 0 else 0
    cdef long new_nc = c_hi - c_lo + 1 if a_hi >= 0 else 0
    cdef long[::1] new_first = np.full(new_na * new_nc, LONG_MAX, dtype=np.int64)
    cdef long[::1] new_last = np.full(new_na * new_nc, -1, dtype=np.int64)
    cdef long[::1] atom_first = np.full(n_ids, LONG_MAX, dtype=np.int64)
    cdef long[::1] atom_last = np.full(n_ids, -1, dtype=np.int64)
    # each new row's run of J: the union of its sources' runs, shifted; each straddling
    # fraction's run of values likewise
    for r in range(rows):
        if length[r] == 0:
            continue
        a, c = row_a[r], row_c[r]
        for t in range(neg_lo[c - kc], neg_hi[c - kc] + 1):
            for j in range(pos_lo[a - ka], pos_hi[a - ka] + 1):
                if c + t < cut:
                    target = (a + j - a_lo) * new_nc + c + t - c_lo
                    offset = first[r] + j * (2 * c + t)
                    new_first[target] = _lower(new_first[target], offset)
                    new_last[target] = _upper(new_last[target], offset + length[r] - 1)
                elif j > 0 and (c + t) * q_hi != p_hi:
                    cls = phi_id[c - sc, t, j]
                    if cls >= 0:
                        base = 2 * a * p_hi - first[r] * q_hi + phi_shift[c - sc, t, j]
                        atom_first[cls] = _lower(atom_first[cls], base - (length[r] - 1) * q_hi)
                        atom_last[cls] = _upper(atom_last[cls], base)
    for i in range(n_in):
        target = (in_a[i] - a_lo) * new_nc + in_c[i] - c_lo
        new_first[target] = _lower(new_first[target], in_sum[i])
        new_last[target] = _upper(new_last[target], in_sum[i])
    new_start, new_length, size = _runs(new_first, new_last)
    atom_start, atom_length, atom_size = _runs(atom_first, atom_last)
    cdef double[::1] new_data = np.zeros(size)
    cdef double[::1] atoms = np.zeros(atom_size)
    cdef long[::1] to_start = new_start, to_length = new_length, at_start = atom_start
    with nogil:
        for r in range(rows):
            if length[r] == 0:
                continue
            a, c = row_a[r], row_c[r]
            for t in range(neg_lo[c - kc], neg_hi[c - kc] + 1):
                wt = neg_w[c - kc, t]
                for j in range(pos_lo[a - ka], pos_hi[a - ka] + 1):
                    w = wt * pos_w[a - ka, j]
                    if w == 0.0:
                        continue
                    if c + t < cut:
                        target = (a + j - a_lo) * new_nc + c + t - c_lo
                        offset = to_start[target] + first[r] + j * (2 * c + t) - new_first[target]
                        _add_scaled(&new_data[offset], &data[start[r]], length[r], w)
                    elif j == 0 or (c + t) * q_hi == p_hi:  # every positive's share on the lattice
                        base = 2 * (a + j) * p_hi - (first[r] + j * (2 * c + t)) * q_hi
                        _scatter(&lattice[0], base, q_hi, &data[start[r]], length[r], w)
                    else:  # the cut falls inside the block the cell's positives are tied with
                        cls = phi_id[c - sc, t, j]
                        base = 2 * a * p_hi - first[r] * q_hi + phi_shift[c - sc, t, j]
                        if cls < 0:
                            _scatter(&lattice[0], base, q_hi, &data[start[r]], length[r], w)
                        else:
                            base += at_start[cls] - atom_first[cls]
                            _scatter(&atoms[0], base, q_hi, &data[start[r]], length[r], w)
        for i in range(n_in):
            target = (in_a[i] - a_lo) * new_nc + in_c[i] - c_lo
            new_data[to_start[target] + in_sum[i] - new_first[target]] += in_p[i]
        # the runs' ends below tiny are left out
        for r in range(new_na * new_nc):
            while to_length[r] > 0 and new_data[to_start[r]] < tiny:
                to_start[r] += 1
                new_first[r] += 1
                to_length[r] -= 1
            while to_length[r] > 0 and new_data[to_start[r] + to_length[r] - 1] < tiny:
                to_length[r] -= 1
    return (
        (a_lo, new_na, c_lo, new_nc, new_start, np.asarray(new_first), new_length,
         np.asarray(new_data)),
        (np.asarray(atom_first), atom_start, atom_length, np.asarray(atoms)),
    )


def _runs(const long[::1] first, const long[::1] last):
    """The runs ``first .. last`` (empty where ``last < 0``) laid end to end: their starts,
    lengths and total."""
    cdef long k = first.shape[0], r, size = 0
    start = np.zeros(k, dtype=np.int64)
    length = np.zeros(k, dtype=np.int64)
    cdef long[::1] s = start, n = length
    for r in range(k):
        s[r] = size
        if last[r] >= 0:
            n[r] = last[r] - first[r] + 1
            size += n[r]
    return start, length, size


def early_step(
    const double[:, ::1] state,
    long ka,
    const double[:, ::1] pos_w,
    const long[::1] pos_lo,
    const long[::1] pos_hi,
    const double[:, ::1] neg_w,
    const long[::1] neg_lo,
    const long[::1] neg_hi,
    double tiny,
):
    """Move the states ``(a, c)`` before the low cut (``state[a, c]``, ``c`` below
    ``state.shape[1]``, every state with ``a`` outside the positives' kernel empty) across one
    cell, as :func:`layer_step` (the positives' kernel indexed from ``ka``, the negatives' from
    0). Returns the new grid (the same shape) and the moves that reach the low cut, as arrays
    ``(a, c, t, j, probability)`` of the source state and the draws."""
    cdef long nc = state.shape[1]
    cdef double[:, ::1] out = np.zeros((state.shape[0], nc))
    cdef long a, c, t, j, count = 0, k = 0, ka_end = ka + pos_lo.shape[0]
    cdef double v, wt, w
    for a in range(ka, ka_end):
        for c in range(nc):
            if state[a, c] < tiny:
                continue
            for t in range(_upper(neg_lo[c], nc - c), neg_hi[c] + 1):
                count += pos_hi[a - ka] - pos_lo[a - ka] + 1
    cdef long[::1] move_a = np.empty(count, dtype=np.int64)
    cdef long[::1] move_c = np.empty(count, dtype=np.int64)
    cdef long[::1] move_t = np.empty(count, dtype=np.int64)
    cdef long[::1] move_j = np.empty(count, dtype=np.int64)
    cdef double[::1] move_p = np.empty(count)
    with nogil:
        for a in range(ka, ka_end):
            for c in range(nc):
                v = state[a, c]
                if v < tiny:
                    continue
                for t in range(neg_lo[c], neg_hi[c] + 1):
                    wt = v * neg_w[c, t]
                    for j in range(pos_lo[a - ka], pos_hi[a - ka] + 1):
                        w = wt * pos_w[a - ka, j]
                        if c + t < nc:
                            out[a + j, c + t] += w
                        else:
                            move_a[k], move_c[k], move_t[k], move_j[k] = a, c, t, j
                            move_p[k] = w
                            k += 1
    return (
        np.asarray(out),
        np.asarray(move_a),
        np.asarray(move_c),
        np.asarray(move_t),
        np.asarray(move_j),
        np.asarray(move_p),
    )
