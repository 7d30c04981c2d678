"""host/benchstat.py: the intervals of make bench and make bench-gpio cover what they claim.

Synthetic rows made the way both loaders measure: reference phases b_0..b_n, traced phases in
between, repetition i = traced_i - (b_i + b_i+1) / 2, so consecutive repetitions share a
reference. The 95 % interval of a row's mean and of the ratio of two rows' means must cover the
true value in about 95 % of the runs (seeded: the same figures every time); sd / sqrt(n) would
cover about 85 % here.
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "host"))
from benchstat import ci95, mean_var, ratio  # noqa: E402

RUNS = 2000


def row(rng, cost, n, ref_sd=60.0, traced_sd=20.0):
    refs = [1000 + rng.gauss(0, ref_sd) for _ in range(n + 1)]
    return [1000 + cost + rng.gauss(0, traced_sd) - (refs[i] + refs[i + 1]) / 2
            for i in range(n)]


def test_mean_interval_covers_with_shared_references():
    rng = random.Random(13)
    hit = sum(abs(mean_var(d)[0] - 300) <= ci95(d) for d in (row(rng, 300, 12)
                                                              for _ in range(RUNS)))
    assert 0.93 <= hit / RUNS <= 0.995, hit / RUNS


def test_ratio_interval_covers():
    rng = random.Random(9)
    hit = 0
    for _ in range(RUNS):
        _, lo, hi = ratio(row(rng, 300, 12), row(rng, 200, 12))
        hit += lo <= 1.5 <= hi
    assert 0.93 <= hit / RUNS <= 0.995, hit / RUNS


def test_ratio_unbounded_when_the_denominator_may_be_zero():
    rng = random.Random(1)
    r, lo, hi = ratio(row(rng, 300, 4), row(rng, 1, 4, ref_sd=400.0))
    assert lo == float("-inf") and hi == float("inf")


def test_naive_interval_under_covers():
    """why the lag-1 term: sd / sqrt(n) with n - 1 degrees of freedom misses far more often"""
    rng = random.Random(13)
    hit = 0
    for _ in range(RUNS):
        d = row(rng, 300, 12)
        m = sum(d) / len(d)
        sd = (sum((x - m) ** 2 for x in d) / (len(d) - 1)) ** 0.5
        hit += abs(m - 300) <= 2.201 * sd / len(d) ** 0.5  # t95, 11 degrees of freedom
    assert hit / RUNS < 0.9, hit / RUNS
