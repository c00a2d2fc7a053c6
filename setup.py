"""The compiled kernels of :mod:`rocsim.core`, built with the package (Cython, C).

Everything else about the package is in ``pyproject.toml``. The kernels are compiled when the
package is built (a wheel, or ``pip install`` from source), never on a user's first call.
They must give the same bits on every machine, so the floating-point code is compiled
without contraction into fused multiply-adds (``-ffp-contract=off``) and without
``-ffast-math``; OpenMP runs the paired vertical law's ranks on several cores (each rank's
sums are the same bits on any number of threads). A build that cannot find its C compiler
stops before building anything, in one line that names the cures (a compiler, or a wheel).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from Cython.Build import cythonize
from setuptools import Extension, setup
from setuptools.command.build import build
from setuptools.command.build_ext import build_ext
from setuptools.errors import PlatformError

if TYPE_CHECKING:
    from distutils.ccompiler import CCompiler

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

#: The one line a build without a C compiler ends with (setuptools' own failure is a page of
#: output ending in ``No such file or directory: 'gcc'``, which names neither cure).
NO_COMPILER = (
    "rocsim: building from source needs a C compiler, and {missing!r} was not found (gcc "
    "or clang; on Debian/Ubuntu: apt-get install build-essential; on macOS: xcode-select "
    "--install; on Windows: MSVC Build Tools); or install a prebuilt wheel: "
    "pip install --only-binary rocsim rocsim"
)


def missing_executable(compiler: CCompiler) -> str | None:
    """The command of ``compiler`` (a customized distutils compiler) that is not on ``PATH``,
    or ``None`` when both the compiler and the linker are found.

    MSVC is left to itself: it looks for its Build Tools in the registry, not on ``PATH``,
    and says so in its own one-line error.
    """
    if compiler.compiler_type == "msvc":
        return None
    for command in (getattr(compiler, "compiler_so", None), getattr(compiler, "linker_so", None)):
        if command and shutil.which(command[0]) is None:
            return command[0]
    return None


def require_c_compiler(compiler: CCompiler) -> None:
    """Fail in one line (:data:`NO_COMPILER`) if ``compiler`` cannot be run."""
    missing = missing_executable(compiler)
    if missing is not None:
        raise PlatformError(NO_COMPILER.format(missing=missing))


class BuildChecked(build):
    """``build`` that checks for the C compiler first: before it, ``build_py`` copies every
    module and prints a line for each, pages of output above the failure."""

    def run(self) -> None:
        if self.distribution.has_ext_modules():
            from distutils.ccompiler import new_compiler  # setuptools' own, once imported
            from distutils.sysconfig import customize_compiler

            compiler = new_compiler(compiler=self.compiler)
            customize_compiler(compiler)  # CC, LDSHARED and the interpreter's settings
            require_c_compiler(compiler)
        super().run()


class BuildExtChecked(build_ext):
    """``build_ext`` that checks its compiler before the first kernel (it is also run
    alone: ``python setup.py build_ext --inplace``, editable installs)."""

    def build_extensions(self) -> None:
        require_c_compiler(self.compiler)
        super().build_extensions()


setup(
    cmdclass={"build": BuildChecked, "build_ext": BuildExtChecked},
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
