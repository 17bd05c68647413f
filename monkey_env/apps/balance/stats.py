"""The statistics of the applications (balance report, evaluate, arena): intervals for proportions
and means, differences, tests. The one statistics module of the package: nothing else computes
an interval or a test by hand.

Every function returns an :class:`Estimate` (value, interval, sample size, and a p-value where a
test belongs to the figure), so that no figure of the report goes out without its n and CI.

- proportions: Wilson score interval (:func:`wilson`, statsmodels ``proportion_confint``); the
  successes may be fractional (a shared win counts 1/k, monkey_env.core.outcome.win_shares);
- means: Student t interval (:func:`mean_ci`, scipy);
- difference of two independent proportions: Newcombe's hybrid score interval (method 10 of
  Newcombe 1998, statsmodels ``confint_proportions_2indep(method="newcomb")``) with the pooled
  two-proportion z test (statsmodels ``proportions_ztest``) (:func:`diff_proportions`);
- difference of two independent means: Welch (:func:`diff_means`, scipy ``ttest_ind(equal_var=False)``);
  paired: :func:`paired_diff` (scipy ``ttest_rel``);
- difference of two categories of one multinomial sample (seat win shares of the same games,
  which are not independent): :func:`multinomial_diff` (no library has it: Wald with the
  multinomial covariance);
- one proportion against a fixed value (is A's win rate 1/2?): :func:`one_proportion_p`;
- all categories equally likely (is there a seat advantage at all?): :func:`chisq_uniform` (scipy ``chisquare``);
- many tests at once (cards, piles): Holm's step-down correction (:func:`holm`, statsmodels ``multipletests``);
- a statistic no formula covers (a seat spread: a max minus a min), or the difference of it
  between two independent samples: percentile bootstrap over the rows (:func:`bootstrap`).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np
from scipy import stats as _st
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint, proportions_ztest

CONF = 0.95


def z_value(conf: float = CONF) -> float:
    return NormalDist().inv_cdf(0.5 + conf / 2)


@dataclass(frozen=True)
class Estimate:
    """A figure with its interval: value in [lo, hi] at `conf`, from `n` observations."""

    value: float
    lo: float
    hi: float
    n: int
    p_value: float | None = None
    conf: float = CONF

    @property
    def significant(self) -> bool | None:
        """For a difference or a test: is it significant at 1 - conf? None when not a test."""
        if self.p_value is None:
            return None
        return bool(self.p_value < 1 - self.conf)

    def to_dict(self) -> dict:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, float) and not math.isfinite(v):
                d[k] = None
        if self.p_value is not None:
            d["significant"] = self.significant
        return d

    def fmt(self, digits: int = 3, pct: bool = False) -> str:
        if not math.isfinite(self.value):
            return f"n/a (n={self.n})"
        f = (lambda v: f"{100 * v:.{max(digits - 2, 0)}f}%") if pct else (lambda v: f"{v:.{digits}g}" if abs(v) >= 1000
                                                                              else f"{v:.{digits - 1}f}")
        s = f"{f(self.value)} [{f(self.lo)}, {f(self.hi)}] n={self.n}"
        if self.p_value is not None:
            s += f", p={self.p_value:.3g}" + ("" if self.significant else " (not significant)")
        return s


NAN = float("nan")


def wilson(k: float, n: int, conf: float = CONF) -> Estimate:
    """Wilson score interval for a proportion k/n (no continuity correction); k may be fractional."""
    if n <= 0:
        return Estimate(NAN, NAN, NAN, 0, conf=conf)
    k = float(k)
    lo, hi = proportion_confint(k, n, alpha=1 - conf, method="wilson")
    lo = 0.0 if k <= 0 else max(0.0, float(lo))
    hi = 1.0 if k >= n else min(1.0, float(hi))
    return Estimate(k / n, lo, hi, int(n), conf=conf)


def mean_ci(x, conf: float = CONF) -> Estimate:
    """Mean with a Student t interval."""
    x = np.asarray(x, float)
    n = len(x)
    if n == 0:
        return Estimate(NAN, NAN, NAN, 0, conf=conf)
    m = float(x.mean())
    if n == 1:
        return Estimate(m, NAN, NAN, 1, conf=conf)
    half = float(_st.t.ppf(0.5 + conf / 2, n - 1)) * float(x.std(ddof=1)) / math.sqrt(n)
    return Estimate(m, m - half, m + half, n, conf=conf)


def diff_proportions(k1: float, n1: int, k2: float, n2: int, conf: float = CONF) -> Estimate:
    """p1 - p2 of two independent samples: Newcombe's hybrid score interval, pooled z-test p-value.

    n of the estimate is n1 + n2."""
    if n1 <= 0 or n2 <= 0:
        return Estimate(NAN, NAN, NAN, max(n1, 0) + max(n2, 0), conf=conf)
    k1, k2 = float(k1), float(k2)
    d = k1 / n1 - k2 / n2
    lo, hi = confint_proportions_2indep(k1, n1, k2, n2, method="newcomb", compare="diff", alpha=1 - conf)
    pool = (k1 + k2) / (n1 + n2)
    if pool <= 0 or pool >= 1:          # no variance: nothing to test
        p = 1.0
    else:
        p = float(proportions_ztest([k1, k2], [n1, n2])[1])
    return Estimate(d, float(lo), float(hi), int(n1 + n2), p, conf)


def diff_means(x, y, conf: float = CONF) -> Estimate:
    """mean(x) - mean(y) of two independent samples: Welch's t interval and test."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n1, n2 = len(x), len(y)
    if n1 < 2 or n2 < 2:
        return Estimate(NAN, NAN, NAN, n1 + n2, conf=conf)
    d = float(x.mean() - y.mean())
    if np.ptp(x) == 0 and np.ptp(y) == 0:      # both constant: no variance, nothing to test
        return Estimate(d, d, d, n1 + n2, 1.0 if d == 0 else 0.0, conf)
    r = _st.ttest_ind(x, y, equal_var=False)
    ci = r.confidence_interval(conf)
    return Estimate(d, float(ci.low), float(ci.high), n1 + n2, float(r.pvalue), conf)


def paired_diff(x, y, conf: float = CONF) -> Estimate:
    """mean(x - y) over pairs (two seats of the same games): paired t interval and test."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    d = x - y
    e = mean_ci(d, conf)
    if e.n < 2:
        return e
    if np.ptp(d) == 0:                         # constant differences: no variance
        return Estimate(e.value, e.value, e.value, e.n, 1.0 if e.value == 0 else 0.0, conf)
    r = _st.ttest_rel(x, y)
    ci = r.confidence_interval(conf)
    return Estimate(e.value, float(ci.low), float(ci.high), e.n, float(r.pvalue), conf)


def one_proportion_p(k: float, n: int, p0: float) -> float:
    """Two-sided p-value of the z test that a proportion k/n equals p0 (variance from p0;
    statsmodels ``proportions_ztest``); NaN without games."""
    if n <= 0:
        return NAN
    if float(k) / n == p0:
        return 1.0
    return float(proportions_ztest(float(k), n, value=p0, prop_var=p0)[1])


def multinomial_diff(k_i: float, k_j: float, n: int, conf: float = CONF) -> Estimate:
    """p_i - p_j of two categories of the same multinomial sample (e.g. seat 1 and seat 2 winning
    the same games): Wald interval with Var = (p_i + p_j - (p_i - p_j)^2) / n, z-test."""
    if n <= 0:
        return Estimate(NAN, NAN, NAN, 0, conf=conf)
    pi, pj = k_i / n, k_j / n
    d = pi - pj
    se = math.sqrt(max(pi + pj - d * d, 0.0) / n)
    z = z_value(conf)
    if se == 0:
        return Estimate(d, d, d, int(n), 1.0 if d == 0 else 0.0, conf)
    return Estimate(d, d - z * se, d + z * se, int(n), float(2 * _st.norm.sf(abs(d) / se)), conf)


def chisq_uniform(counts) -> tuple[float, float, int]:
    """Pearson's chi-square test that every category is equally likely: (statistic, p-value, n)."""
    c = np.asarray(counts, float)
    n = float(c.sum())
    if n == 0 or len(c) < 2:
        return NAN, NAN, int(n)
    r = _st.chisquare(c)
    return float(r.statistic), float(r.pvalue), int(round(n))


def holm(p_values, alpha: float = 1 - CONF) -> list[bool]:
    """Holm's step-down: which of these hypotheses are rejected at family-wise level alpha (NaN: never)."""
    p = np.asarray([1.0 if (v is None or not math.isfinite(v)) else v for v in p_values], float)
    if len(p) == 0:
        return []
    return [bool(r) for r in multipletests(p, alpha=alpha, method="holm")[0]]


def games_for_halfwidth(p: float = 0.5, half: float = 0.03, conf: float = CONF) -> int:
    """Games needed for a ±half interval on a proportion near p (normal approximation)."""
    z = z_value(conf)
    return math.ceil(z * z * p * (1 - p) / (half * half))


def bootstrap(statistic, x, y=None, draws: int = 1000, seed: int = 0, conf: float = CONF) -> Estimate:
    """statistic(x), or statistic(x) - statistic(y) for two independent samples, with a
    percentile bootstrap interval: rows (axis 0, e.g. games) drawn with replacement, seeded."""
    x = np.asarray(x)
    rng = np.random.default_rng(seed)
    diff = y is not None
    y = np.asarray(y) if diff else None

    def value(a, b):
        return float(statistic(a)) - (float(statistic(b)) if diff else 0.0)

    point = value(x, y)
    samples = np.asarray([value(x[rng.integers(0, len(x), len(x))],
                                y[rng.integers(0, len(y), len(y))] if diff else None) for _ in range(draws)])
    lo, hi = np.quantile(samples, [(1 - conf) / 2, (1 + conf) / 2])
    return Estimate(point, float(lo), float(hi), len(x) + (len(y) if diff else 0), conf=conf)
