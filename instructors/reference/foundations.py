"""Reference answer of the Foundations part's code exercise (ex-scaled-step)."""
import numpy as np

from rlmlib import loss_code, loss_deriv


def scaled_step(s, v, x, y, t, sigma, t0):
    eta = 1.0 / (sigma * (t + t0))
    d = loss_deriv(loss_code("logistic"), s * float(v @ x), y)   # loss' at z = <w, x>
    s = s * (1.0 - eta * sigma)                                  # O(1) shrink
    if abs(s) < 1e-9:                                            # fold s into v
        v = v * s
        s = 1.0
    nz = np.flatnonzero(x)                                       # O(nnz(x)) loss step
    v[nz] -= (eta * d / s) * x[nz]
    return s, v
