"""Reference answers of the variance-reduction part (ex-vr-lazy, ex-vr-sqhinge, ex-vr-gap)."""
import math

import numpy as np


def catch_up(u, c, eta, sigma, k):
    d, tau = eta * c, eta * sigma
    while k > 0:
        if u == 0.0 and abs(d) <= tau:
            return 0.0
        sgn = 1.0 if u > 0 else -1.0 if u < 0 else 0.0
        r = d + sgn * tau
        if sgn != 0 and sgn * r <= 0:
            return u - k * r
        n = 0
        if sgn != 0 and sgn * (u - d) >= tau:
            n = min(k, math.floor((sgn * (u - d) - tau) / (sgn * r)) + 1)
        u, k = u - n * r, k - n
        if k > 0:
            v = u - d
            u, k = math.copysign(max(abs(v) - tau, 0.0), v), k - 1
    return u


def sqhinge_step(beta, yz, q):
    return max(beta + (1.0 - yz - beta) / (1.0 + q), 0.0)


def gap(X, y, alpha, sigma):
    w = X.T @ alpha / (sigma * len(y))
    P = sigma / 2 * w @ w + np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))
    return P - (np.mean(alpha * y) - sigma / 2 * w @ w)
