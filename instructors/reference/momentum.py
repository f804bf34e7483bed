"""Reference answers of the momentum part (ex-mom-catch-up, ex-mom-polyak)."""
import math

import numpy as np


def momentum_catch_up(w, v, step, beta, sigma, nesterov, d):
    if nesterov:
        a11, a12 = 1.0 - step * sigma * (1.0 + beta), -step * beta * beta
    else:
        a11, a12 = 1.0 - step * sigma, -step * beta
    A = np.array([[a11, a12], [sigma, beta]])
    if d <= 0:
        return float(w), float(v)
    # repeated squaring of A (entries at most 1 + step sigma in size: no overflow), then
    # applied to the state scaled to size 1
    s = max(abs(w), abs(v))
    if s == 0.0:
        return 0.0, 0.0
    out = np.linalg.matrix_power(A, int(d)) @ np.array([w / s, v / s])
    return float(out[0] * s), float(out[1] * s)


def polyak_parameters(L, mu):
    sL, sm = math.sqrt(L), math.sqrt(mu)
    r = (sL - sm) / (sL + sm)
    return 4.0 / (sL + sm) ** 2, r * r
