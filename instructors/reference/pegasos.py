"""Reference answers of the Pegasos and PGS part (ex-pgs-mirror, ex-pgs-ball, ex-pgs-best-k)."""
import math

import numpy as np

from rlmlib.book.checkers.pegasos import pgs_time_model


def grad_conjugate(theta, p):
    q = p / (p - 1)
    M = np.max(np.abs(theta))
    if M == 0:
        return np.zeros_like(theta)
    nu = np.sum((np.abs(theta) / M) ** q) ** (1 / q)
    base = np.abs(theta) * M ** ((2 - q) / (q - 1))
    return nu ** (2 - q) * base ** (q - 1) * np.sign(theta) / (q - 1)


def r_conjugate_ball(theta, p, B):
    q = p / (p - 1)
    M = np.max(np.abs(theta))
    nq = 0.0 if M == 0 else M * np.sum((np.abs(theta) / M) ** q) ** (1 / q)
    if (p - 1) * nq <= B:
        return (p - 1) * nq ** 2 / 2
    return B * nq - B ** 2 / (2 * (p - 1))


def best_k(n, d, a, b):
    kc = math.sqrt(b * n / (a * d))
    cands = {max(1, math.floor(kc)), max(1, math.ceil(kc))}
    return min(cands, key=lambda k: pgs_time_model(k, n, d, a, b))
