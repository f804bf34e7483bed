"""Reference answers of the fully implicit online learning part (ex-fiol-logistic-inverse,
ex-fiol-breakpoints, ex-fiol-sort-step)."""
import math

import numpy as np


def logistic_inverse(s, y):
    t = s * y
    return y * (math.log1p(t) - math.log(-t))


def soft(u, a):
    return np.sign(u) * np.maximum(np.abs(u) - a, 0.0)


def bps(w, x, eta, sigma):
    nz = x != 0
    base, q = w[nz] / (eta * x[nz]), sigma / np.abs(x[nz])
    return base - q, base + q


def step(w, x, y, eta, sigma):
    def g(s):
        return x @ soft(w - eta * s * x, eta * sigma)

    lo, hi = bps(w, x, eta, sigma)
    b = np.sort(np.r_[lo, hi])
    i, j = 0, len(b)            # first index where the test g(b) - y <= b holds
    while i < j:
        mid = (i + j) // 2
        if g(b[mid]) - y <= b[mid]:
            j = mid
        else:
            i = mid + 1
    left = b[i - 1] if i > 0 else (b[0] - 1 if len(b) else -1.0)
    right = b[i] if i < len(b) else (b[-1] + 1 if len(b) else 1.0)
    mid_ = 0.5 * (left + right)
    C = eta * np.sum(x[x != 0][(lo > mid_) | (hi < mid_)] ** 2)
    A = g(mid_) + C * mid_
    s = (A - y) / (1 + C)
    return soft(w - eta * s * x, eta * sigma)
