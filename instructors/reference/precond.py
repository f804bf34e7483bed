"""Reference answers of the data-preconditioning part (ex-pre-gamma, ex-pre-sampled,
ex-pre-beta)."""
import math

import numpy as np


def gamma(eigenvalues, ratio):
    c = np.asarray(eigenvalues, dtype=float)
    out = np.zeros_like(c)
    pos = c > 0
    out[pos] = 1.0 / (1.0 + ratio / c[pos])
    return float(out.sum())


def sampled_transform(X, sample, sigma, beta):
    XS = X[sample] / np.sqrt(len(sample))
    _, sv, Vt = np.linalg.svd(XS, full_matrices=False)
    keep = sv > sv.max() * 1e-10 if sv.size and sv.max() > 0 else sv > 0
    U, c = Vt[keep].T, sv[keep] ** 2
    coef = (c + sigma / beta) ** -0.5 - np.sqrt(beta / sigma)
    return np.sqrt(beta / sigma) * X + ((X @ U) * coef) @ U.T


def logistic_curvature_bound(R):
    if R > 40:
        return math.exp(-R)
    return 1.0 / (2.0 + math.exp(R) + math.exp(-R))
