#!/usr/bin/env python3
"""Reference values for truncnormal_test.go, boundedpareto_test.go,
special_test.go and truncate_test.go, computed independently of the Go code
with mpmath at 120 significant digits from the textbook formulas:

  truncated normal: F(x) = (Q(a) - Q(z)) / (Q(a) - Q(b)), Q(x) = erfc(x/sqrt 2)/2,
                    mean = mu + sigma (phi(a) - phi(b)) / (Q(a) - Q(b)),
                    quantiles by 300 bisection steps on F;
  bounded Pareto:   F(x) = (1 - (L/x)^alpha) / (1 - (L/H)^alpha), mean by
                    numerical quadrature of x f(x), Q(p) = L (1 - p c)^(-1/alpha);
  Mills ratio:      R(x) = Q(x) / phi(x).

Points are float64-representable so that the Go inputs equal these. Run:
python3 reference_values.py (needs mpmath).
"""
from mpmath import mp, mpf, erfc, sqrt, quad, npdf, nstr

mp.dps = 120


def Q(x):
    return erfc(x / sqrt(2)) / 2


def show(name, v):
    print(f"{name} = {nstr(v, 20)}")


def truncnormal(mu, s, A, B, xs):
    mu, s, A, B = mpf(mu), mpf(s), mpf(A), mpf(B)
    a, b = (A - mu) / s, (B - mu) / s
    Z = Q(a) - Q(b)
    cdf = lambda x: (Q(a) - Q((x - mu) / s)) / Z
    sf = lambda x: (Q((x - mu) / s) - Q(b)) / Z
    pdf = lambda x: npdf((x - mu) / s) / s / Z

    def quant(p):
        lo, hi = A, B
        for _ in range(300):
            m = (lo + hi) / 2
            lo, hi = (m, hi) if cdf(m) < p else (lo, m)
        return (lo + hi) / 2

    print("truncnormal", mu, s, A, B)
    show(" mass", Z)
    show(" mean", mu + s * (npdf(a) - npdf(b)) / Z)
    for p in ["1e-10", "0.3", "0.5", "0.9"]:
        show(f" quantile({p})", quant(mpf(p)))
    for x in xs:
        x = mpf(x)
        show(f" x={x} cdf", cdf(x))
        show(f" x={x} sf", sf(x))
        show(f" x={x} pdf", pdf(x))


def boundedpareto(L, H, alpha, xs):
    L, H, alpha = mpf(L), mpf(H), mpf(alpha)
    c = 1 - (L / H) ** alpha
    pdf = lambda x: alpha * L**alpha * x ** (-alpha - 1) / c
    print("boundedpareto", L, H, alpha)
    show(" mean", quad(lambda x: x * pdf(x), [L, H]))
    for p in ["1e-9", "0.5"]:
        show(f" quantile({p})", L * (1 - mpf(p) * c) ** (-1 / alpha))
    show(" invsurvival(1e-9)", L * (1 - (1 - mpf("1e-9")) * c) ** (-1 / alpha))
    for x in xs:
        x = mpf(float(x))
        show(f" x={x} cdf", (1 - (L / x) ** alpha) / c)
        show(f" x={x} sf", ((L / x) ** alpha - (L / H) ** alpha) / c)
        show(f" x={x} pdf", pdf(x))


truncnormal(0, 1, 10, 12, [10.125, 10.001953125, 11.25])
truncnormal(0, 1, -12, -10, [-11.875, -11.998046875, -10.8125])
truncnormal(0, 1, 1000, 1002, [1000.125, 1000.001953125])
truncnormal(8, sqrt(2), 1, 20, [1.9375, 1.01953125, 12.375])
truncnormal(0, 1, 40, 41, [40.0625, 40.0009765625, 40.625])
truncnormal(0, 1, -0.5, 38, [1.4375, -0.4609375, 22.625])
boundedpareto(1, 20, "2.1", [1.5, 15, 19.99999998])
boundedpareto(1, 20, 1, [1.5, 15, 19.99999998])
boundedpareto(1, 20, "1.000000001", [1.5, 15, 19.99999998])
boundedpareto(3600, 72000, "0.5", [5400, 54000, 71999.999928])
for x in [0, 0.5, 3, 10, 24.5, 25, 26, 40, 100, 1e4]:
    show(f"mills({x})", Q(mpf(x)) / npdf(mpf(x)))
show("Q(8)-Q(9)", Q(8) - Q(9))
show("Q(40)-Q(41)", Q(40) - Q(41))
