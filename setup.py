"""The compiled kernels of :mod:`rocsim.core`, built with the package (Cython, C).

Everything else about the package is in ``pyproject.toml``. The kernels are compiled when the
package is built (a wheel, or ``pip install`` from source), never on a user's first call.
They must give the same bits on every machine, so the floating-point code is compiled
without contraction into fused multiply-adds (``-ffp-contract=off``) and without
``-ffast-math``; OpenMP runs the paired vertical law's ranks on several cores (each rank's
sums are the same bits on any number of threads).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension, setup

if sys.platform == "win32":
    COMPILE, LINK = ["/O2", "/fp:precise", "/openmp"], []
elif sys.platform == "darwin":  # Apple's clang has no OpenMP runtime: the lanes run in turn
    COMPILE, LINK = ["-O3", "-ffp-contract=off"], []
else:
    COMPILE, LINK = ["-O3", "-ffp-contract=off", "-fopenmp"], ["-fopenmp"]

KERNELS = sorted(Path("rocsim", "core").glob("_*.pyx"))

extensions = [
    Extension(
        ".".join(source.with_suffix("").parts),
        [str(source)],
        extra_compile_args=COMPILE,
        extra_link_args=LINK,
    )
    for source in KERNELS
]

setup(
    # the kernels compile in parallel, one per core
    options={"build_ext": {"parallel": os.cpu_count() or 1}},
    ext_modules=cythonize(
        extensions,
        nthreads=os.cpu_count() or 1,
        compiler_directives={
            "language_level": "3",
            "boundscheck": False,
            "wraparound": False,
            "initializedcheck": False,
            "cdivision": True,
        },
    ),
)
