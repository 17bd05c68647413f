"""The statistics of the balance report, on textbook values and simulated data with known answers."""

import math

import numpy as np
import pytest
from scipy import stats as st

from monkey_env.apps.balance import stats as S


# ---------------------------------------------------------------- textbook values
@pytest.mark.parametrize("k,n,lo,hi", [
    # Newcombe (1998), "Two-sided confidence intervals for the single proportion", method 3 (Wilson).
    (81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718),
])
def test_wilson_textbook(k, n, lo, hi):
    e = S.wilson(k, n)
    assert e.value == pytest.approx(k / n)
    assert e.lo == pytest.approx(lo, abs=6e-5) and e.hi == pytest.approx(hi, abs=6e-5)
    assert e.n == n


@pytest.mark.parametrize("k1,n1,k2,n2,lo,hi", [
    # Newcombe (1998), "Interval estimation for the difference between independent proportions", method 10.
    (56, 70, 48, 80, 0.0524, 0.3339), (9, 10, 3, 10, 0.1705, 0.8090), (5, 56, 0, 29, -0.0381, 0.1926),
    (0, 10, 0, 20, -0.1611, 0.2775), (10, 10, 0, 20, 0.6791, 1.0),
])
def test_newcombe_difference_textbook(k1, n1, k2, n2, lo, hi):
    e = S.diff_proportions(k1, n1, k2, n2)
    assert e.value == pytest.approx(k1 / n1 - k2 / n2)
    assert e.lo == pytest.approx(lo, abs=6e-5) and e.hi == pytest.approx(hi, abs=6e-5)


def test_two_proportion_z_test_matches_chi_square():
    # The pooled z test is the 2x2 chi-square test without continuity correction.
    e = S.diff_proportions(56, 70, 48, 80)
    chi2, p, _, _ = st.chi2_contingency([[56, 14], [48, 32]], correction=False)
    assert e.p_value == pytest.approx(p, rel=1e-9)
    assert e.significant


def test_mean_ci_textbook():
    # 1..10: mean 5.5, sd 3.0277, t(0.975, 9) = 2.2622 -> 5.5 ± 2.1659
    e = S.mean_ci(np.arange(1, 11))
    assert e.value == 5.5
    assert e.lo == pytest.approx(3.33415, abs=1e-4) and e.hi == pytest.approx(7.66585, abs=1e-4)


def test_welch_matches_scipy():
    rng = np.random.default_rng(3)
    x, y = rng.normal(1.0, 2.0, 40), rng.normal(0.0, 0.5, 25)
    e = S.diff_means(x, y)
    r = st.ttest_ind(x, y, equal_var=False)
    ci = r.confidence_interval(0.95)
    assert e.p_value == pytest.approx(r.pvalue, rel=1e-9)
    assert (e.lo, e.hi) == pytest.approx((ci.low, ci.high), rel=1e-9)


def test_paired_matches_scipy():
    rng = np.random.default_rng(4)
    x = rng.normal(10, 3, 30)
    y = x + rng.normal(-0.5, 1, 30)
    e = S.paired_diff(x, y)
    r = st.ttest_rel(x, y)
    assert e.p_value == pytest.approx(r.pvalue, rel=1e-9)
    assert (e.lo, e.hi) == pytest.approx(tuple(r.confidence_interval(0.95)), rel=1e-9)


def test_chisq_uniform():
    stat, p, n = S.chisq_uniform([22, 24, 38, 30, 46, 44])
    ref = st.chisquare([22, 24, 38, 30, 46, 44])
    assert stat == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue) and n == 204
    assert S.chisq_uniform([10, 10, 10])[1] == pytest.approx(1.0)


def test_holm():
    assert S.holm([0.01, 0.04, 0.03, 0.005]) == [True, False, False, True]
    assert S.holm([0.01, 0.02, 0.03, 0.04], alpha=0.1) == [True, True, True, True]
    assert S.holm([float("nan"), 0.001]) == [False, True]


def test_games_for_halfwidth():
    assert S.games_for_halfwidth(0.5, 0.03) == 1068
    assert S.games_for_halfwidth(0.25, 0.03) == 801


def test_empty_and_degenerate():
    assert math.isnan(S.wilson(0, 0).value)
    assert S.wilson(0, 0).to_dict()["value"] is None
    assert S.diff_means([1, 1, 1], [1, 1, 1]).p_value == 1.0
    assert "not significant" in S.diff_proportions(5, 10, 5, 10).fmt()


# ---------------------------------------------------------------- coverage on simulated data
REPS = 2000


def _covered(lo, hi, truth):
    return np.mean((np.asarray(lo) <= truth) & (truth <= np.asarray(hi)))


def test_wilson_coverage():
    rng = np.random.default_rng(11)
    for p, n in ((0.3, 100), (0.05, 200), (0.5, 40)):
        ks = rng.binomial(n, p, REPS)
        es = [S.wilson(k, n) for k in ks]
        cov = _covered([e.lo for e in es], [e.hi for e in es], p)
        assert 0.925 <= cov <= 0.975, (p, n, cov)


def test_mean_and_welch_coverage():
    rng = np.random.default_rng(12)
    es = [S.mean_ci(rng.exponential(3.0, 30)) for _ in range(REPS)]
    assert 0.91 <= _covered([e.lo for e in es], [e.hi for e in es], 3.0) <= 0.97  # skewed data: a little under
    ds = [S.diff_means(rng.normal(5, 1, 20), rng.normal(4, 3, 50)) for _ in range(REPS)]
    assert 0.93 <= _covered([d.lo for d in ds], [d.hi for d in ds], 1.0) <= 0.97
    # Under the null, the test rejects about 5% of the time.
    null = [S.diff_means(rng.normal(0, 1, 20), rng.normal(0, 2, 30)).p_value for _ in range(REPS)]
    assert 0.035 <= np.mean(np.asarray(null) < 0.05) <= 0.065


def test_newcombe_coverage_and_size():
    rng = np.random.default_rng(13)
    k1, k2 = rng.binomial(150, 0.4, REPS), rng.binomial(300, 0.3, REPS)
    es = [S.diff_proportions(a, 150, b, 300) for a, b in zip(k1, k2)]
    assert 0.93 <= _covered([e.lo for e in es], [e.hi for e in es], 0.1) <= 0.97
    k1, k2 = rng.binomial(200, 0.25, REPS), rng.binomial(200, 0.25, REPS)
    ps = [S.diff_proportions(a, 200, b, 200).p_value for a, b in zip(k1, k2)]
    assert 0.035 <= np.mean(np.asarray(ps) < 0.05) <= 0.065


def test_multinomial_diff_coverage():
    # Seat win shares of the same games are dependent: the independent-samples formula would be wrong.
    rng = np.random.default_rng(14)
    probs = [0.4, 0.3, 0.2, 0.1]
    counts = rng.multinomial(500, probs, REPS)
    es = [S.multinomial_diff(c[0], c[3], 500) for c in counts]
    assert 0.93 <= _covered([e.lo for e in es], [e.hi for e in es], 0.3) <= 0.97
    # The independent-samples interval has the wrong width here (too narrow for negatively correlated shares).
    wrong = [S.diff_proportions(c[0], 500, c[1], 500) for c in counts]
    right = [S.multinomial_diff(c[0], c[1], 500) for c in counts]
    assert np.mean([w.hi - w.lo for w in wrong]) < np.mean([r.hi - r.lo for r in right])


def test_paired_detects_seat_gap():
    # Two seats of the same games: a 0.5-point gap hidden by game-to-game noise is found by pairing.
    rng = np.random.default_rng(15)
    base = rng.normal(30, 8, 400)
    a, b = base + rng.normal(0.5, 1, 400), base + rng.normal(0, 1, 400)
    assert S.paired_diff(a, b).significant
    assert not S.diff_means(a, b).significant
