#!/usr/bin/env python3
"""The golden value of tests/protocols/correlated_noise/test_correlated_noise.cpp, computed without
the library: the largest eps_c with delta(eps = 1) <= 1e-6 for flooding NB(mean 1000, dispersion 0.03).

delta = (1 - a) sum_k (H(k) - e^eps a H(k-1))_+ with H(k) = P(F = k) + a^2 H(k-1), a = e^-eps_c
(docs/correlated-noise.md derives it; the C++ test checks the derivation against a brute-force
enumeration of the two-dimensional view). Plain doubles, math.lgamma, bisection to 1e-12.
Prints 0.9718 (rounded to 4 places)."""
import math


def delta(eps_c, eps, mean, theta):
    a, b = math.exp(-eps_c), 1 - theta
    shape = mean * theta / b
    top = int(mean + 60 * math.sqrt(mean / theta)) + 100
    h_prev, total = 0.0, 0.0
    for k in range(top):
        p = math.exp(math.lgamma(k + shape) - math.lgamma(shape) - math.lgamma(k + 1) + k * math.log(b) + shape * math.log(theta))
        h = p + a * a * h_prev
        total += max(0.0, h - math.exp(eps) * a * h_prev)
        h_prev = h
    return (1 - a) * total


lo, hi = 0.5, 1.0
while hi - lo > 1e-12:
    mid = (lo + hi) / 2
    lo, hi = (mid, hi) if delta(mid, 1.0, 1000, 0.03) <= 1e-6 else (lo, mid)
print(f"{lo:.4f}")
