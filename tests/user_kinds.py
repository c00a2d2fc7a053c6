"""Study kinds of a user's own, for the tests: the mean of ``n`` normal draws around the axis
value ``mu``, written as a user writes a kind (rocsim's public names only). The tests that run
them as commands copy this file into a folder outside the repository and name a kind by
``_target_: user_kinds.<Class>``."""

from __future__ import annotations

import numpy as np
from scipy import stats

from rocsim.sim import Setup, StudyKind, interval_outcome

LEVEL = 0.95


class NormalMean(StudyKind):
    """``n`` draws of ``N(mu, 1)``; the target is ``mu``."""

    grid = "mu"

    def setup(self, condition):
        mu = float(condition.params["mu"])
        return Setup(x=np.array([mu]), target=np.array([mu]))

    def generate(self, condition, setup, rng):
        return rng.normal(setup.target[0], 1.0, int(condition.params["n"]))


class MeanTest(NormalMean):
    """The mean, its SE, its t interval and the t test of 0: estimates."""

    def analyse(self, condition, setup, data):
        return estimates(data)


class MeanOnly(NormalMean):
    """The estimate and its SE only: no interval, no test."""

    def analyse(self, condition, setup, data):
        out = estimates(data)
        return {"estimate": out["estimate"], "se": out["se"]}


class FlakyMean(NormalMean):
    """A z interval of the mean whose ``analyse`` fails when the first draw lies more than
    ``cut`` above ``mu`` (axis ``cut``, default 1.5: about 7% of data sets)."""

    def analyse(self, condition, setup, data):
        if data[0] - setup.target[0] > float(condition.params.get("cut", 1.5)):
            raise ValueError(f"first draw {data[0]:.3f} too far out")
        half = 1.96 / np.sqrt(data.size)
        return interval_outcome(setup.target, data.mean() - half, data.mean() + half)


def estimates(data: np.ndarray) -> dict[str, np.ndarray]:
    """The mean of ``data``, its SE, the t test of 0 and the t interval at :data:`LEVEL`."""
    mean, se = data.mean(), data.std(ddof=1) / np.sqrt(data.size)
    half = stats.t.ppf(0.5 + LEVEL / 2, data.size - 1) * se
    p = 2 * stats.t.sf(abs(mean / se), data.size - 1)
    values = {"estimate": mean, "se": se, "p_value": p, "low": mean - half, "high": mean + half}
    return {name: np.array([value]) for name, value in values.items()}
