"""Bands over the whole ROC curve from :func:`rocsim.roc_ci` (``band=``): Bonferroni's is the
pointwise interval at ``1 - alpha / k`` bit for bit; the band's kind and level are on the
result."""

from __future__ import annotations

import numpy as np
import pytest

import rocsim


def scores(n: int = 150, seed: int = 5):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(n), np.zeros(n)]
    return y, np.round(y + rng.normal(size=2 * n), 2)  # ties too


@pytest.mark.parametrize("averaging", ["vertical", "horizontal"])
@pytest.mark.parametrize("method", ["score", "wald", "percentile"])
def test_bonferroni_is_the_pointwise_interval_at_alpha_over_k(averaging, method):
    y, s = scores()
    # 0.501 and 0.502 share a rank: k counts distinct points
    at = [0.1, 0.3, 0.501, 0.502, 0.7, 0.9]
    band = rocsim.roc_ci(
        y, s, averaging=averaging, at=at, band="bonferroni", method=method, confidence_level=0.9
    )
    k = 5
    pointwise = rocsim.roc_ci(
        y, s, averaging=averaging, at=at, method=method, confidence_level=1 - 0.1 / k
    )
    got, expected = band.to_frame(), pointwise.to_frame()
    for column in ("fpr_low", "fpr_high", "tpr_low", "tpr_high"):
        np.testing.assert_array_equal(got[column], expected[column])
    assert band.pointwise_level == pointwise.confidence_level == 1 - 0.1 / k
    assert band.confidence_level == 0.9


def test_the_band_says_its_kind_and_level():
    y, s = scores()
    band = rocsim.roc_ci(y, s, averaging="vertical", band="bonferroni", at=[0.2, 0.4])
    frame = band.to_frame()
    assert frame.attrs["band"] == "bonferroni"
    assert frame.attrs["confidence_level"] == 0.95
    assert frame.attrs["pointwise_level"] == pytest.approx(0.975)
    assert "bonferroni band" in repr(band) and "97.5%" in repr(band)
    assert list(frame.columns[:5]) == ["at", "fpr", "fpr_low", "fpr_high", "tpr"]
    pointwise = rocsim.roc_ci(y, s, averaging="vertical", at=[0.2])
    assert pointwise.to_frame().attrs["band"] == "pointwise"
    assert "pointwise" in repr(pointwise)
    assert band.plot() is not None


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"band": "bonferroni"}, "needs averaging='vertical' or 'horizontal'"),
        ({"band": "everywhere", "averaging": "vertical"}, "unknown band 'everywhere'"),
    ],
)
def test_bad_band_is_one_clear_line(kwargs, message):
    y, s = scores(20)
    with pytest.raises(ValueError, match=message):
        rocsim.roc_ci(y, s, **kwargs)
