"""Work arrays kept from call to call, one set per thread.

A fresh array of a few hundred kB costs a page fault per 4 kB page on its first touch (glibc
maps such blocks anew, or returns the top of its heap to the kernel once it is free), which
can take as long as the arithmetic on it. A computation that makes the same big temporary
arrays at every call can take them from here instead.
"""

from __future__ import annotations

import threading

import numpy as np

#: Reusable work arrays of this thread (see :func:`scratch`).
_SCRATCH = threading.local()
#: At most this many values in one slot (8 MB); larger arrays are made anew.
SCRATCH_LIMIT = 2**20


def scratch(
    shape: tuple[int, ...], slot: str, dtype: type = float, limit: int = SCRATCH_LIMIT
) -> np.ndarray:
    """An uninitialised array of ``shape``, reused from call to call (``slot`` of this thread,
    which its next use overwrites) where it holds at most ``limit`` values.

    Examples
    --------
    >>> a = scratch((2, 3), "example")
    >>> a.shape, scratch((3, 2), "example").base is a.base
    ((2, 3), True)
    """
    size = int(np.prod(shape))
    if size > limit:
        return np.empty(shape, dtype)
    buffers = _SCRATCH.__dict__.setdefault("buffers", {})
    if slot not in buffers or buffers[slot].size < size or buffers[slot].dtype != dtype:
        buffers[slot] = np.empty(max(size, 1024), dtype)
    return buffers[slot][:size].reshape(shape)
