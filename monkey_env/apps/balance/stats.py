"""The statistics of the balance report: intervals for proportions and means, differences, tests.

Every function returns an :class:`Estimate` (value, interval, sample size, and a p-value where a
test belongs to the figure), so that no figure of the report goes out without its n and CI.

- proportions: Wilson score interval (:func:`wilson`);
- means: Student t interval (:func:`mean_ci`);
- difference of two independent proportions: Newcombe's hybrid score interval (method 10 of
  Newcombe 1998) with the pooled two-proportion z test (:func:`diff_proportions`);
- difference of two independent means: Welch (:func:`diff_means`); paired: :func:`paired_diff`;
- difference of two categories of one multinomial sample (seat win shares of the same games,
  which are not independent): :func:`multinomial_diff`;
- all categories equally likely (is there a seat advantage at all?): :func:`chisq_uniform`;
- many tests at once (cards, piles): Holm's step-down correction (:func:`holm`).

scipy is a dependency of jax, so it is always there.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np
from scipy import stats as _st

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

    def excludes(self, ref: float) -> bool:
        return bool(self.lo > ref or self.hi < ref)

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
    """Wilson score interval for a proportion k/n (no continuity correction)."""
    if n <= 0:
        return Estimate(NAN, NAN, NAN, 0, conf=conf)
    z = z_value(conf)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if k <= 0 else max(0.0, centre - half)
    hi = 1.0 if k >= n else min(1.0, centre + half)
    return Estimate(p, lo, hi, int(n), conf=conf)


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
    a, b = wilson(k1, n1, conf), wilson(k2, n2, conf)
    p1, p2 = a.value, b.value
    d = p1 - p2
    lo = d - math.sqrt((p1 - a.lo) ** 2 + (b.hi - p2) ** 2)
    hi = d + math.sqrt((a.hi - p1) ** 2 + (p2 - b.lo) ** 2)
    pool = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pool * (1 - pool) * (1 / n1 + 1 / n2))
    p = 1.0 if se == 0 else float(2 * _st.norm.sf(abs(d) / se))
    return Estimate(d, lo, hi, int(n1 + n2), p, conf)


def diff_means(x, y, conf: float = CONF) -> Estimate:
    """mean(x) - mean(y) of two independent samples: Welch's t interval and test."""
    x, y = np.asarray(x, float), np.asarray(y, float)
    n1, n2 = len(x), len(y)
    if n1 < 2 or n2 < 2:
        return Estimate(NAN, NAN, NAN, n1 + n2, conf=conf)
    d = float(x.mean() - y.mean())
    v1, v2 = x.var(ddof=1) / n1, y.var(ddof=1) / n2
    se = math.sqrt(v1 + v2)
    if se == 0:
        return Estimate(d, d, d, n1 + n2, 1.0 if d == 0 else 0.0, conf)
    df = (v1 + v2) ** 2 / (v1 ** 2 / (n1 - 1) + v2 ** 2 / (n2 - 1))
    half = float(_st.t.ppf(0.5 + conf / 2, df)) * se
    p = float(2 * _st.t.sf(abs(d) / se, df))
    return Estimate(d, d - half, d + half, n1 + n2, p, conf)


def paired_diff(x, y, conf: float = CONF) -> Estimate:
    """mean(x - y) over pairs (two seats of the same games): paired t interval and test."""
    d = np.asarray(x, float) - np.asarray(y, float)
    e = mean_ci(d, conf)
    if e.n < 2:
        return e
    sd = float(d.std(ddof=1))
    p = (1.0 if e.value == 0 else 0.0) if sd == 0 else float(2 * _st.t.sf(abs(e.value) / (sd / math.sqrt(e.n)), e.n - 1))
    return Estimate(e.value, e.lo, e.hi, e.n, p, conf)


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
    expected = n / len(c)
    stat = float(((c - expected) ** 2 / expected).sum())
    return stat, float(_st.chi2.sf(stat, len(c) - 1)), int(n)


def holm(p_values, alpha: float = 1 - CONF) -> list[bool]:
    """Holm's step-down: which of these hypotheses are rejected at family-wise level alpha (NaN: never)."""
    p = np.asarray([1.0 if (v is None or not math.isfinite(v)) else v for v in p_values], float)
    order = np.argsort(p)
    m = len(p)
    reject = np.zeros(m, bool)
    for rank, i in enumerate(order):
        if p[i] <= alpha / (m - rank):
            reject[i] = True
        else:
            break
    return reject.tolist()


def games_for_halfwidth(p: float = 0.5, half: float = 0.03, conf: float = CONF) -> int:
    """Games needed for a ±half interval on a proportion near p (normal approximation)."""
    z = z_value(conf)
    return math.ceil(z * z * p * (1 - p) / (half * half))


def significance_text(e: Estimate) -> str:
    if e.p_value is None or not math.isfinite(e.value):
        return ""
    return "significant" if e.significant else "not significant"
