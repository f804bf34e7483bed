"""Reference answer of the adaptive part's code exercise (ex-ada-catch-up)."""
import numpy as np


def adagrad_catch_up(w, gamma, c, eta, sigma, delta):
    h = delta + np.sqrt(gamma)                       # H_j, unchanged while j is untouched
    with np.errstate(divide="ignore"):
        # rho^c = exp(-c log1p(eta sigma / H)): no rounded rho raised to a huge power
        return w * np.exp(-c * np.log1p(eta * sigma / h))
