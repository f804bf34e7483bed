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
    """The integer code of a loss name, by which the kernels choose the loss.

    Parameters
    ----------
    name : str
        One of ``rlmlib.LOSSES``: 'hinge', 'squared_hinge', 'logistic', 'squared',
        'absolute', 'exponential'.

    Returns
    -------
    int
        The code (``rlmlib.losses.HINGE``, ...).

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones).

    Examples
    --------
    >>> import rlmlib
    >>> rlmlib.loss_code("logistic") == rlmlib.losses.LOGISTIC
    True
    >>> rlmlib.loss_code("hinges")
    Traceback (most recent call last):
    ...
    ValueError: loss must be one of 'hinge', 'squared_hinge', ...; got 'hinges'
    """
    if not isinstance(name, str) or name not in LOSSES:
        raise ValueError(f"loss must be one of {', '.join(map(repr, LOSSES))}; got {name!r}")
    return LOSSES[name]["code"]


def loss_task(name):
    """The task a loss belongs to: 'binary' (margin losses) or 'regression' (residual).

    Parameters
    ----------
    name : str
        One of ``rlmlib.LOSSES``.

    Returns
    -------
    str
        'binary' or 'regression'.

    Raises
    ------
    ValueError
        For an unknown name.

    Examples
    --------
    >>> from rlmlib.core.losses import loss_task
    >>> loss_task("hinge"), loss_task("absolute")
    ('binary', 'regression')
    """
    loss_code(name)
    return LOSSES[name]["task"]


@njit(cache=True)
def loss_value(code, z, y):
    """Value of the loss with integer ``code`` at prediction z and label/target y.

    A numba function, callable from Python and from other kernels; no checks.

    Parameters
    ----------
    code : int
        From :func:`loss_code`.
    z : float
        Prediction ⟨w, x⟩.
    y : float
        Label -1/+1 (classification losses) or target (regression losses).

    Returns
    -------
    float
        ℓ(z, y), finite for every finite z (see the module docstring for the exponential
        loss).

    Examples
    --------
    >>> import rlmlib
    >>> rlmlib.loss_value(rlmlib.loss_code("hinge"), 0.25, 1.0)
    0.75
    >>> rlmlib.loss_value(rlmlib.loss_code("logistic"), -1000.0, 1.0)   # no overflow
    1000.0
    """
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
    """A (sub)derivative of the loss with respect to the prediction z.

    At a kink it returns one subgradient: hinge gives 0 at margin 1, absolute 0 at z = y.
    A numba function, callable from Python and from other kernels; no checks.

    Parameters
    ----------
    code : int
        From :func:`loss_code`.
    z : float
        Prediction ⟨w, x⟩.
    y : float
        Label -1/+1 or target.

    Returns
    -------
    float
        ∂ℓ(z, y)/∂z; the gradient of ℓ(⟨w, x⟩, y) in w is this times x.

    Examples
    --------
    >>> import rlmlib
    >>> rlmlib.loss_deriv(rlmlib.loss_code("hinge"), 0.25, -1.0)   # margin -0.25 < 1
    1.0
    >>> rlmlib.loss_deriv(rlmlib.loss_code("logistic"), 0.0, 1.0)
    -0.5
    """
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
    """Vectorized :func:`loss_value`: out[i] = ℓ(z[i], y[i]) (numba, no checks).

    Parameters
    ----------
    code : int
        From :func:`loss_code`.
    z, y, out : numpy.ndarray of float64, shape (m,)
        Predictions, labels or targets, and the output.

    Returns
    -------
    numpy.ndarray
        ``out``.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.core.losses import loss_values, SQUARED
    >>> z, y = np.array([1.0, 3.0]), np.array([0.0, 1.0])
    >>> loss_values(SQUARED, z, y, np.empty(2)).tolist()
    [0.5, 2.0]
    """
    for i in range(z.shape[0]):
        out[i] = loss_value(code, z[i], y[i])
    return out


@njit(cache=True)
def loss_derivs(code, z, y, out):
    """Vectorized :func:`loss_deriv`: out[i] = ℓ'(z[i], y[i]) (numba, no checks).

    Parameters
    ----------
    code, z, y, out
        As in :func:`loss_values`.

    Returns
    -------
    numpy.ndarray
        ``out``, now holding the derivatives.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.core.losses import loss_derivs, ABSOLUTE
    >>> z, y = np.array([1.0, 3.0, 2.0]), np.array([2.0, 1.0, 2.0])
    >>> loss_derivs(ABSOLUTE, z, y, np.empty(3)).tolist()
    [-1.0, 1.0, 0.0]
    """
    for i in range(z.shape[0]):
        out[i] = loss_deriv(code, z[i], y[i])
    return out


def value(name, z, y):
    """Loss values for arrays, by name (for plots and tests).

    Parameters
    ----------
    name : str
        One of ``rlmlib.LOSSES``.
    z, y : array-like
        Predictions and labels or targets, broadcast against each other.

    Returns
    -------
    numpy.ndarray
        ℓ(z, y), of the broadcast shape.

    Raises
    ------
    ValueError
        For an unknown name, or shapes that do not broadcast.

    Examples
    --------
    >>> from rlmlib import losses
    >>> losses.value("hinge", [-1.0, 0.0, 2.0], 1.0).tolist()
    [2.0, 1.0, 0.0]
    """
    z, y = np.broadcast_arrays(np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64))
    zf, yf = np.ascontiguousarray(z).ravel(), np.ascontiguousarray(y).ravel()
    out = np.empty_like(zf)
    return loss_values(loss_code(name), zf, yf, out).reshape(z.shape)


def deriv(name, z, y):
    """Loss derivatives ∂ℓ/∂z for arrays, by name (for plots and tests).

    Parameters
    ----------
    name, z, y
        As in :func:`value`.

    Returns
    -------
    numpy.ndarray
        ∂ℓ(z, y)/∂z, of the broadcast shape.

    Raises
    ------
    ValueError
        As :func:`value`.

    Examples
    --------
    >>> from rlmlib import losses
    >>> losses.deriv("squared_hinge", [-1.0, 0.0, 2.0], 1.0).tolist()
    [-2.0, -1.0, 0.0]
    """
    z, y = np.broadcast_arrays(np.asarray(z, dtype=np.float64), np.asarray(y, dtype=np.float64))
    zf, yf = np.ascontiguousarray(z).ravel(), np.ascontiguousarray(y).ravel()
    out = np.empty_like(zf)
    return loss_derivs(loss_code(name), zf, yf, out).reshape(z.shape)
