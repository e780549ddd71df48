#!/usr/bin/env python3
"""Fits the 16-bit kernels' GELU (kernels/elementwise/gelu_logistic.h, elementwise v7).

GELU(x) = x Phi(x), with Phi(x) ~ 1 / (1 + exp(-x (c0 + c1 x^2 + c2 x^4))): Bowling et al.'s logistic
form of the normal CDF (2009: c0 = 1.5976, c1 = 0.07056) with one term more. The coefficients
minimise the largest absolute GELU error over x in [0, R] (the error is odd-symmetric, so [0, R]
covers [-R, R]) by Lawson's iteration on the weighted least-squares fit of the logit of Phi,
weighted by d GELU / d p = x Phi (1 - Phi) (the linearised GELU error). Pure Python (no numpy).

  scripts/gelu_logistic_fit.py [TERMS=3] [R=8]
prints c0.., the largest GELU error on the grid, and that error with x^2 clamped at 25 out to |x| = 40.
tests/elementwise_emulate_test.cpp measures the fp32 sequence the kernels run over every 7th float.
"""
import math
import sys


def phi(x):
    return 0.5 * math.erfc(-x / math.sqrt(2))


def logit_phi(x):  # log(Phi / (1 - Phi)) without cancellation
    return math.log(phi(x)) - math.log(0.5 * math.erfc(x / math.sqrt(2)))


def solve(a, b):  # Gauss-Jordan with partial pivoting
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for i in range(n):
        p = max(range(i, n), key=lambda r: abs(m[r][i]))
        m[i], m[p] = m[p], m[i]
        for r in range(n):
            if r != i:
                f = m[r][i] / m[i][i]
                for c in range(i, n + 1):
                    m[r][c] -= f * m[i][c]
    return [m[i][n] / m[i][i] for i in range(n)]


def gelu_error(c, x, clamp=None):
    u = x * x if clamp is None else min(x * x, clamp)
    p = x * sum(ck * u ** k for k, ck in enumerate(c))
    approx = x / (1 + math.exp(-p)) if p > -700 else 0.0
    return abs(approx - x * phi(x))


def fit(terms, r, n=3000, iterations=300):
    xs = [r * (i + 0.5) / n for i in range(n)]
    target = [logit_phi(x) for x in xs]
    slope = [x * phi(x) * (1 - phi(x)) for x in xs]
    lawson = [1.0] * n
    for _ in range(iterations):
        a = [[0.0] * terms for _ in range(terms)]
        b = [0.0] * terms
        for x, t, s, v in zip(xs, target, slope, lawson):
            basis = [x ** (2 * k + 1) for k in range(terms)]
            w = v * s * s
            for i in range(terms):
                b[i] += w * basis[i] * t
                for j in range(terms):
                    a[i][j] += w * basis[i] * basis[j]
        c = solve(a, b)
        errors = [gelu_error(c, x) for x in xs]
        total = sum(v * e for v, e in zip(lawson, errors))
        lawson = [v * e / total for v, e in zip(lawson, errors)]
    return c, max(errors)


def main():
    terms = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    r = float(sys.argv[2]) if len(sys.argv) > 2 else 8.0
    c, worst = fit(terms, r)
    print("c =", ", ".join(repr(v) for v in c))
    print("largest GELU error on [0, %g]: %.3g" % (r, worst))
    grid = [40.0 * (i + 0.5) / 40000 for i in range(40000)]
    print("with x^2 clamped at 25, out to 40: %.3g" % max(gelu_error(c, x, 25.0) for x in grid))


if __name__ == "__main__":
    main()
