"""The target tests' statistical criteria (imported by tests/target/60 and 81, and simulated by
tests/host/test_criteria_sim.py): each chosen before any run from the method's known effect
and the run's own noise, with its false-failure rate (a correct method fails) per run stated.

The overhead rows' intervals (loader/core/hist.c, alt_stat) are Student t intervals with
Welch-Satterthwaite degrees of freedom: the JSON gives their 95 % and 99.9 % half-widths, from
which the degrees of freedom (their ratio is t(0.975, df) / t(0.9995, df)) and the standard
error follow, and so the half-width at any other level.
"""
import math

# Per-run false-failure budget (at most 1 in 1000 a run of a test), split over its criteria.
# overhead_invariants.py (80-overhead-matrix.sh's matrix): the control's two-sided test, the
# filter's and the trigger's one-sided ones.
ALPHA_CONTROL = 2e-4
ALPHA_NOT_CHEAPER = 1e-4
# 60-gpio-path.sh: libgpiod - ioctl not below 0, one-sided.
ALPHA_LIBGPIOD = 1e-4


def t_cdf(t, df):
    """P(T <= t), Student's t with integer df >= 1 (closed form: Abramowitz & Stegun 26.7.3/4)."""
    th = math.atan2(t, math.sqrt(df))
    c2 = math.cos(th) ** 2
    s = math.sin(th)
    if df % 2:
        term, acc = math.cos(th), 0.0
        if df > 1:
            acc = term
            for k in range(3, df - 1, 2):
                term *= c2 * (k - 1) / k
                acc += term
        a = 2 / math.pi * (th + s * acc)
    else:
        term = acc = 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            acc += term
        a = s * acc
    return 0.5 + a / 2


_tq = {}


def t_quantile(p, df):
    """The p quantile (0.5 < p < 1) of Student's t with integer df, by bisection."""
    key = (p, df)
    if key not in _tq:
        lo, hi = 0.0, 1.0
        while t_cdf(hi, df) < p:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if t_cdf(mid, df) < p:
                lo = mid
            else:
                hi = mid
        _tq[key] = (lo + hi) / 2
    return _tq[key]


_dfs = {}


def df_of(ci95, ci999):
    """The degrees of freedom of a t interval given its 95 % and 99.9 % half-widths."""
    r = ci95 / ci999
    if r not in _dfs:
        _dfs[r] = min(range(1, 200),
                      key=lambda d: abs(t_quantile(0.975, d) / t_quantile(0.9995, d) - r))
    return _dfs[r]


def half_width(ci95, ci999, level):
    """The two-sided LEVEL half-width of the same interval (same standard error and df)."""
    if ci95 == 0 and ci999 == 0:
        return 0.0  # every repetition gave the same figure (TIMING=icount): no spread at all
    df = df_of(ci95, ci999)
    return ci95 / t_quantile(0.975, df) * t_quantile(0.5 + level / 2, df)


def not_below_zero(mean, ci95, ci999, alpha):
    """One-sided test at ALPHA that the true value is >= 0: fails when the upper end of the
    one-sided (1 - ALPHA) interval is below 0. A correct method (true value >= 0) fails with
    probability <= ALPHA. Returns (passed, that upper end)."""
    up = mean + half_width(ci95, ci999, 1 - 2 * alpha)
    return up >= 0, up


def within_zero(mean, ci95, ci999, alpha):
    """Two-sided test at ALPHA that the true value is 0. Returns (passed, half-width)."""
    h = half_width(ci95, ci999, 1 - alpha)
    return abs(mean) <= h, h
