"""Statistics shared by make bench, make bench-gpio and host/compare.py: means of repetitions
that share their reference phases, ratios of two such means with an interval, and the
difference of two independent runs' means (welch()).

Every figure the loaders give is a repetition i: traced_i - (ref_i + ref_i+1) / 2, and repetition
i+1 reuses ref_i+1. So consecutive repetitions are correlated (positively: a high shared
reference lowers both), and sd / sqrt(n) under-covers (85 % for a nominal 95 % in the synthetic
test, tests/host/test_benchstat.py). The variance of the mean here adds the lag-1 covariance g1:

    var(mean) = (g0 + 2 (n - 1) / n * g1) / n

with g0 - g1 from the mean squared successive difference (unbiased: no mean in it) and g1 from
the sample variance, whose centring lowers it by 2 g1 / n; g1 is never counted below 0 (the
shared phase cannot make it negative). As g1 is estimated too, Student's t takes half the
degrees of freedom, (n - 1) // 2: the synthetic test covers 94-99 % with it.

Two rows measure in phases of their own (the loaders measure one method after the other, each
between its own reference phases), so their means are independent of each other; the ratio's
95 % interval is Fieller's for two independent means, with Student's t at the smaller row's
degrees of freedom (halved as above). When the denominator's interval reaches 0 the ratio has
no finite interval (printed as unbounded).
"""
import math

# two-sided 95 % Student t quantiles, never below the exact ones (loader/core/hist.c's): df 1..30
# exact rounded up to 3 decimals; above 30, 1.96 + 2.467 / df (df (t(df) - z) falls with df, and
# 2.467 is its value at df 31 rounded up): wide by at most 0.05 %
T95 = [12.707, 4.303, 3.183, 2.777, 2.571, 2.447, 2.365, 2.307, 2.263, 2.229,
       2.201, 2.179, 2.161, 2.145, 2.132, 2.120, 2.110, 2.101, 2.094, 2.086,
       2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.049, 2.046, 2.043]


def t95(df):
    if df < 1:
        return math.inf
    return T95[df - 1] if df <= len(T95) else 1.96 + 2.467 / df


def mean_var(xs):
    """the mean of the repetitions and its variance, counting the shared reference phases"""
    n = len(xs)
    if n < 3:
        return (sum(xs) / n if xs else math.nan), math.nan
    m = sum(xs) / n
    var = sum((x - m) ** 2 for x in xs) / (n - 1)  # expected: g0 - 2 g1 / n
    half_mssd = sum((xs[i + 1] - xs[i]) ** 2 for i in range(n - 1)) / (n - 1) / 2  # g0 - g1
    g1 = max((var - half_mssd) / (1 - 2 / n), 0.0)
    g0 = max(half_mssd + g1, var)
    return m, (g0 + 2 * (n - 1) / n * g1) / n


def dof(n):
    """Student's degrees of freedom for n repetitions (half: g1 is estimated from them too)"""
    return max(1, (n - 1) // 2)


def ci95(xs):
    """half-width of the mean's 95 % interval, shared phases counted"""
    _, v = mean_var(xs)
    return t95(dof(len(xs))) * math.sqrt(v) if not math.isnan(v) else math.nan


def ratio(a, b):
    """mean(a) / mean(b) and its 95 % interval (Fieller, independent rows): (r, lo, hi)"""
    ma, va = mean_var(a)
    mb, vb = mean_var(b)
    if math.isnan(va) or math.isnan(vb) or mb == 0:
        return (ma / mb if mb else math.nan), math.nan, math.nan
    t = t95(dof(min(len(a), len(b))))
    r = ma / mb
    g = t * t * vb / (mb * mb)
    if g >= 1:
        return r, -math.inf, math.inf
    root = (t / abs(mb)) * math.sqrt(max(va * (1 - g) + r * r * vb, 0.0))
    return r, (r - root) / (1 - g), (r + root) / (1 - g)


def fmt_ratio(a, b, target=None):
    """"1.23x [1.01, 1.52]" and, with a target, whether the ratio meets it (its upper bound
    too)"""
    r, lo, hi = ratio(a, b)
    if math.isinf(hi):
        s = f"{r:.2f}x [unbounded: the denominator's interval reaches 0]"
    elif math.isnan(lo):
        s = f"{r:.2f}x [no interval: too few repetitions]"
    else:
        s = f"{r:.2f}x [{lo:.2f}, {hi:.2f}]"
    if target is None:
        return s, None
    met = r <= target
    sure = "" if math.isnan(hi) else (" (the whole interval below it)" if hi <= target else
                                       " (within the interval of it)" if lo <= target else
                                       " (the whole interval above it)")
    return f"{s} (target <= {target}x: {'met' if met else 'NOT met'}{sure})", met


def welch(se_a, df_a, se_b, df_b):
    """the standard error of mean_b - mean_a for two independent means with standard errors
    se_a, se_b of df_a, df_b degrees of freedom, and its Welch-Satterthwaite degrees of freedom
    (rounded down, at least 1, as loader/core/hist.c's alt_se): (se, df). Both exact (se 0,
    the instruction-counted clock): (0.0, None), the difference is exact"""
    va, vb = se_a * se_a, se_b * se_b
    if va + vb == 0:
        return 0.0, None
    q = (va * va / df_a if va else 0.0) + (vb * vb / df_b if vb else 0.0)
    return math.sqrt(va + vb), max(1, math.floor((va + vb) ** 2 / q))
