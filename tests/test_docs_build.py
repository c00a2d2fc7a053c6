"""The documentation site (docs/) builds with warnings as errors: Sphinx, numpydoc, MyST and
the sphinx-gallery examples, executed. The docs tools are in the test extra."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import rocsim

ROOT = Path(__file__).resolve().parents[1]
#: Gallery scripts shown but not run (they need a cluster); see filename_pattern in conf.py.
NOT_RUN = {"plot_09_scale_out"}


def test_docs_build_with_warnings_as_errors(tmp_path):
    sphinx_build = shutil.which("sphinx-build")
    assert sphinx_build, "sphinx is a test dependency: python -m pip install -e '.[test]'"
    out = tmp_path / "html"
    done = subprocess.run(
        [sphinx_build, "-W", "--keep-going", "-b", "html", "docs", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-8000:]
    for page in ("index", "api", "getting_started", "reading_the_thesis", "coming_from_pROC"):
        assert (out / f"{page}.html").exists(), page
    # every public name has its API page, and the API page links it
    api = (out / "api.html").read_text()
    for name in rocsim.__all__:
        pages = [p.name for p in (out / "generated").glob(f"*.{name}.html")]
        assert pages, name  # rocsim.<name>, or <module>.<NAME> for constants
        assert f"generated/{pages[0]}" in api, name
    # every gallery example has its page; those that run drew their figures at build time
    examples = sorted((ROOT / "docs" / "gallery").glob("*.py"))
    assert len(examples) >= 5
    assert (out / "auto_examples" / "index.html").exists()
    for example in examples:
        assert (out / "auto_examples" / f"{example.stem}.html").exists(), example.name
        if example.stem not in NOT_RUN:
            assert list((out / "_images").glob(f"sphx_glr_{example.stem}_*.png")), example.name
    # the study pages' large figures fit the page and link to their full size
    study = (out / "auc_study.html").read_text()
    assert 'href="_images/auc_multiclass.png"' in study
