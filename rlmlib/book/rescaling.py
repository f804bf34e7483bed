"""The finite-sum condition number of a diagonally rescaled problem (adaptive part).

A method that steps w <- w - eta B g with a fixed positive diagonal B is plain SGD in the
variables v = B^(-1/2) w on G(v) = F(B^(1/2) v), whose terms have rows B^(1/2) x_i and
regularizer (sigma/2) v^T B v. Its finite-sum condition number, the kappa = L_max/mu of
the variance-reduced rates, is bounded by

    kappa(B) = (L_loss max_i x_i^T B x_i + sigma max B) / (sigma min B),

the same quantity as ``rlmlib.condition_numbers``' ``kappa`` = (L_loss R^2 + sigma)/sigma
for B = 1 (mu = sigma min B: the loss's curvature can vanish, as the logistic loss's does
far from the data).
"""
import numpy as np
import scipy.sparse as sp

from ..core.losses import LOSSES


def finite_sum_condition(X, B, *, sigma, loss="logistic"):
    """kappa(B) of the module docstring.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    B : array-like, shape (n,), > 0
    sigma : float > 0
    loss : a smooth loss of ``rlmlib.core.losses.LOSSES``

    Returns
    -------
    float

    Raises
    ------
    ValueError
        B not positive or of the wrong length; sigma <= 0; a non-smooth loss.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[2.0, 0.0], [0.0, 1.0]])
    >>> finite_sum_condition(X, np.ones(2), sigma=0.5, loss="squared")
    9.0
    >>> finite_sum_condition(X, np.array([0.25, 1.0]), sigma=0.5, loss="squared")
    12.0
    """
    B = np.asarray(B, dtype=float)
    if B.ndim != 1 or B.shape[0] != X.shape[1] or not np.all(B > 0):
        raise ValueError(f"B must be a positive vector of length {X.shape[1]}, got "
                         f"shape {B.shape} with minimum {B.min() if B.size else None}")
    if not sigma > 0:
        raise ValueError(f"sigma must be > 0, got {sigma}")
    L = LOSSES[loss]["smoothness"]
    if not np.isfinite(L):
        raise ValueError(f"loss must be smooth, got {loss!r}")
    sq = X.multiply(X) if sp.issparse(X) else np.asarray(X) ** 2
    quad = np.asarray(sq @ B).ravel()
    return float((L * quad.max() + sigma * B.max()) / (sigma * B.min()))
