"""Reference answers of the Convergence part's code exercises (ex-lazy-average,
ex-mb-variance, ex-lb-kl)."""
import math

import numpy as np


def lazy_average_step(u, v, alpha, beta, s, idx, val, c, mu):
    v[idx] += c * val
    u[idx] -= (beta * c / alpha) * val
    return u, v, (1 - mu) * alpha, (1 - mu) * beta + mu * s


def minibatch_variance(G, k, replace):
    m = G.shape[0]
    V = np.mean(np.sum((G - G.mean(axis=0)) ** 2, axis=1))
    if replace:
        return V / k
    return 0.0 if m == 1 else V / k * (m - k) / (m - 1)


def two_point_kl(delta, T):
    return T * delta * (math.log1p(delta) - math.log1p(-delta))
