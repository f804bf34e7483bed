"""Loss functions, in one module (DESIGN.md, "Losses").

Each loss is a function of the prediction ``z = <w, x>`` and the label/target ``y``.
Classification losses depend on the margin ``s = y*z`` (y = +-1); regression losses on the
residual ``z - y``. Kernels choose a loss by an integer code, so no closure is built per call
(scikit-learn's ``_sgd_fast.pyx.tp`` does the same with small classes).

``loss_deriv`` is the derivative with respect to ``z`` (not the margin), so the gradient of
``loss(<w, x>, y)`` with respect to ``w`` is ``loss_deriv(code, z, y) * x``. At a kink it
returns one subgradient: hinge gives 0 at s = 1, absolute gives 0 at z = y.

| name            | value                   | d/dz                       | Lipschitz | smoothness |
|-----------------|-------------------------|----------------------------|-----------|------------|
| hinge           | max(0, 1 - s)           | -y if s < 1 else 0         | 1         | inf        |
| squared_hinge   | 1/2 max(0, 1 - s)^2     | -y max(0, 1 - s)           | inf       | 1          |
| logistic        | log(1 + exp(-s))        | -y / (1 + exp(s))          | 1         | 1/4        |
| squared         | 1/2 (z - y)^2           | z - y                      | inf       | 1          |
| absolute        | abs(z - y)              | sign(z - y)                | 1         | inf        |
| exponential     | exp(-s)  (*)            | -y exp(-s)                 | inf       | inf        |

(*) exp(-s) exceeds the largest double (1.8e308) for s < -709.78. So that every value and
derivative stays finite (also in sums over many examples), the exponential loss is continued
by its tangent below s = -EXP_CUT (EXP_CUT = 600): exp(EXP_CUT) * (1 + (-EXP_CUT - s)).
The continuation is convex and C^1, and equals exp(-s) wherever s >= -600; at s = -1e4 it is
about 3.5e264. Logistic is computed as log1p(exp(-|s|)) + max(-s, 0), exact to rounding for
every finite margin.
"""
import math

import numpy as np
from numba import njit

HINGE = 0
SQUARED_HINGE = 1
LOGISTIC = 2
SQUARED = 3
ABSOLUTE = 4
EXPONENTIAL = 5

EXP_CUT = 600.0

LOSSES = {
    "hinge": {"code": HINGE, "lipschitz": 1.0, "smoothness": math.inf, "task": "binary"},
    "squared_hinge": {
        "code": SQUARED_HINGE, "lipschitz": math.inf, "smoothness": 1.0, "task": "binary"},
    "logistic": {"code": LOGISTIC, "lipschitz": 1.0, "smoothness": 0.25, "task": "binary"},
    "squared": {"code": SQUARED, "lipschitz": math.inf, "smoothness": 1.0, "task": "regression"},
    "absolute": {"code": ABSOLUTE, "lipschitz": 1.0, "smoothness": math.inf, "task": "regression"},
    "exponential": {
        "code": EXPONENTIAL, "lipschitz": math.inf, "smoothness": math.inf, "task": "binary"},
}
"""name -> code, Lipschitz and smoothness constants (w.r.t. z, inf where not finite) and the
task it belongs to ('binary' for margin losses, 'regression' for residual losses)."""

NAMES = {v["code"]: k for k, v in LOSSES.items()}
SMOOTH = tuple(k for k, v in LOSSES.items() if math.isfinite(v["smoothness"])) + ("exponential",)
"""Differentiable losses (the exponential is smooth, only not globally Lipschitz-smooth)."""


def loss_code(name):
    """The integer code of a loss name, with a clear error for unknown names."""
    if not isinstance(name, str) or name not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(map(repr, LOSSES))}; got {name!r}")
    return LOSSES[name]["code"]


def loss_task(name):
    """'binary' or 'regression', for a known loss name."""
    loss_code(name)
    return LOSSES[name]["task"]


@njit(cache=True)
def loss_value(code, z, y):
    """Value of the loss with integer ``code`` at prediction z and label/target y."""
    if code == HINGE:
        s = y * z
        return 1.0 - s if s < 1.0 else 0.0
    elif code == SQUARED_HINGE:
        s = y * z
        return 0.5 * (1.0 - s) * (1.0 - s) if s < 1.0 else 0.0
    elif code == LOGISTIC:
        s = y * z
        # log(1 + e^-s) = log1p(e^-|s|) + max(-s, 0): no overflow, no cancellation
        if s > 0.0:
            return math.log1p(math.exp(-s))
        return -s + math.log1p(math.exp(s))
    elif code == SQUARED:
        r = z - y
        return 0.5 * r * r
    elif code == ABSOLUTE:
        return abs(z - y)
    else:  # EXPONENTIAL
        s = y * z
        if s >= -EXP_CUT:
            return math.exp(-s)
        # tangent continuation below s = -EXP_CUT (see module docstring)
        return math.exp(EXP_CUT) * (1.0 + (-EXP_CUT - s))


@njit(cache=True)
def loss_deriv(code, z, y):
    """A (sub)derivative of the loss with respect to the prediction z."""
    if code == HINGE:
        return -y if y * z < 1.0 else 0.0
    elif code == SQUARED_HINGE:
        s = y * z
        return -y * (1.0 - s) if s < 1.0 else 0.0
    elif code == LOGISTIC:
        s = y * z
        # d/dz log(1 + e^-s) = -y e^-s / (1 + e^-s) = -y / (1 + e^s)
        if s > 0.0:
            e = math.exp(-s)
            return -y * e / (1.0 + e)
        return -y / (1.0 + math.exp(s))
    elif code == SQUARED:
        return z - y
    elif code == ABSOLUTE:
        r = z - y
        if r > 0.0:
            return 1.0
        elif r < 0.0:
            return -1.0
        return 0.0
    else:  # EXPONENTIAL
        s = y * z
        if s >= -EXP_CUT:
            return -y * math.exp(-s)
        return -y * math.exp(EXP_CUT)


@njit(cache=True)
def loss_values(code, z, y, out):
    """Vectorized loss_value: out[i] = loss(z[i], y[i])."""
    for i in range(z.shape[0]):
        out[i] = loss_value(code, z[i], y[i])
    return out


@njit(cache=True)
def loss_derivs(code, z, y, out):
    """Vectorized loss_deriv: out[i] = loss'(z[i], y[i])."""
    for i in range(z.shape[0]):
        out[i] = loss_deriv(code, z[i], y[i])
    return out


def value(name, z, y):
    """Loss values for arrays (Python convenience for plots and tests)."""
    z, y = np.broadcast_arrays(np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64))
    zf, yf = np.ascontiguousarray(z).ravel(), np.ascontiguousarray(y).ravel()
    out = np.empty_like(zf)
    return loss_values(loss_code(name), zf, yf, out).reshape(z.shape)


def deriv(name, z, y):
    """Loss derivatives d/dz for arrays (Python convenience for plots and tests)."""
    z, y = np.broadcast_arrays(np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64))
    zf, yf = np.ascontiguousarray(z).ravel(), np.ascontiguousarray(y).ravel()
    out = np.empty_like(zf)
    return loss_derivs(loss_code(name), zf, yf, out).reshape(z.shape)
