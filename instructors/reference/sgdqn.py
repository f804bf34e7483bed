"""Reference answers of the SGD-QN part (ex-qn-schedule, ex-qn-skip, ex-qn-ratio,
ex-qn-corrected, ex-qn-rate)."""
import math

import numpy as np


def scheduled_step(w, x, y, t, t0, sigma, skip, count):
    z = x @ w                                    # margin before either update
    count -= 1
    if count <= 0:
        w = w * (1 - skip / (t + t0))
        count = skip
    dl = -y * max(0.0, 1 - y * z)                # squared hinge derivative in z
    return w - dl * x / (sigma * (t + t0)), count


def skip_from_cost(n, d, c):
    q = c * n / d
    k = round(q)
    return max(1, int(k) if abs(q - k) <= 1e-12 * q else math.ceil(q))


def secant_ratio(dw, dd, x, sigma):
    out = np.full(dw.shape, 1 / sigma)
    nz = dw != 0
    out[nz] = 1 / (sigma + dd * (x[nz] / dw[nz]))
    return out


def corrected_update(B, w1, w, x, dd, dt, sigma):
    r = np.full(B.shape, sigma)
    diffw = w1 - w
    on = x != 0
    ok = on & (diffw != 0)
    r[on & (diffw == 0)] = 100 * sigma
    r[ok] = np.clip(sigma + dd * x[ok] / diffw[ok], sigma, 100 * sigma)
    return 1 / (1 / B + dt * r)


def rate_exponent(c):
    return min(1.0, 2.0 * c)
