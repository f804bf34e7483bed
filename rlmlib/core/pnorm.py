"""The p-norm regularizer of the Primal Gradient Solver, its conjugate and the mirror map.

    r(w)   = ||w||_p^2 / (2 (p - 1)),       p in (1, 2],
    r*(th) = ||th||_q^2 / (2 (q - 1)),      q = p / (p - 1) in [2, inf),
    grad r*(th)_i = ||th||_q^(2-q) |th_i|^(q-1) sgn(th_i) / (q - 1)        (the mirror map)

Both r and r* are phi_s(x) = ||x||_s^2 / (2 (s - 1)) with s = p and s = q, so one kernel,
``_grad_phi``, computes grad r (s = p) and grad r* (s = q), and they are inverse maps.
On the ball S = {||w||_p <= B} the maximizer of <w, th> - r(w) is grad r*(th) rescaled to
p-norm B when its p-norm (p - 1) ||th||_q exceeds B (chapter "Pegasos and PGS").

Numerics. With M = max|x_i| and nu = ||x / M||_s (1 <= nu <= n^(1/s)), ||x||_s = M nu never
overflows. For s >= 2 (the conjugate side, s = q up to 101 at p = 1.01) the power
|x_i|^(s-1) overflows or underflows even when the result is an ordinary number, so we write

    ||x||_s^(2-s) |x_i|^(s-1) = nu^(2-s) * (|x_i| * M^((2-s)/(s-1)))^(s-1),

where the base |x_i| M^((2-s)/(s-1)) = (|x_i|/M) * M^(1/(s-1)) is at most M^(1/(s-1)), which
lies between M and 1 (1/(s-1) is in (0, 1]): it never overflows. (It is not bounded below by
|x_i|/M: for M < 1 it is smaller by the factor M^(1/(s-1)).) Since s - 1 >= 1 and
nu^(2-s)/(s-1) <= 1, the result is at most base^(s-1) <= base for a base below 1: the base
underflows only when the result itself is below the smallest normal number. For s <= 2 the
two powers M^(2-s) and |x_i|^(s-1) are each within the range of their argument. Relative error
is a few hundred ulps at worst (the power s - 1 <= 100 multiplies the rounding of its base).
"""
import math

import numpy as np
from numba import njit

from .checks import check_interval, check_positive

# M outside [2^-1000, 2^1000] (beyond 1e-301 .. 1e301): the power M^((2-s)/(s-1)) may leave
# the normal range, so the vector is first scaled by an exact power of two (grad phi_s is
# positively homogeneous of degree 1: grad phi(a x) = a grad phi(x)). Inside that range no
# scaling is done, because scaling down would flush tiny but representable results to zero.
_BIG = 2.0 ** 1000
_SMALL = 2.0 ** -1000


@njit(cache=True)
def _scaled_norm(x, s):
    """(M, nu) with M = max|x_i| and nu = ||x / M||_s, so ||x||_s = M * nu (0, 0 if x = 0)."""
    M = 0.0
    for i in range(x.shape[0]):
        a = abs(x[i])
        if a > M:
            M = a
    if M == 0.0:
        return 0.0, 0.0
    acc = 0.0
    if s == 2.0:
        for i in range(x.shape[0]):
            u = x[i] / M
            acc += u * u
        return M, math.sqrt(acc)
    for i in range(x.shape[0]):
        u = abs(x[i]) / M
        if u > 0.0:
            acc += u ** s
    return M, acc ** (1.0 / s)


@njit(cache=True)
def _phi(x, s):
    """phi_s(x) = ||x||_s^2 / (2 (s - 1)); overflows only if the value does."""
    M, nu = _scaled_norm(x, s)
    a = M * nu
    return a * (a / (2.0 * (s - 1.0)))     # not a*a/(...): a*a may overflow when phi does not


@njit(cache=True)
def _grad_phi_raw(x, s, out):
    """out = grad phi_s(x) for max|x| within [2^-1000, 2^1000] (see module docstring)."""
    M, nu = _scaled_norm(x, s)
    n = x.shape[0]
    if M == 0.0:
        for i in range(n):
            out[i] = 0.0
        return out
    if s == 2.0:  # phi_2 = ||x||^2 / 2: the gradient is x itself
        for i in range(n):
            out[i] = x[i]
        return out
    lead = nu ** (2.0 - s) / (s - 1.0)          # ||x/M||_s^(2-s) / (s-1)
    if s > 2.0:
        c = M ** ((2.0 - s) / (s - 1.0))        # M^((2-s)/(s-1)) in [1/M, 1] for M >= 1
        for i in range(n):
            a = abs(x[i])
            if a == 0.0:
                out[i] = 0.0
            else:
                v = lead * (a * c) ** (s - 1.0)
                out[i] = v if x[i] > 0.0 else -v
    else:
        Mp = M ** (2.0 - s)                     # exponent 2-s in (0, 1): stays in range
        for i in range(n):
            a = abs(x[i])
            if a == 0.0:
                out[i] = 0.0
            else:
                v = lead * Mp * a ** (s - 1.0)
                out[i] = v if x[i] > 0.0 else -v
    return out


@njit(cache=True)
def _grad_phi(x, s, out):
    """out = grad phi_s(x) = ||x||_s^(2-s) |x_i|^(s-1) sgn(x_i) / (s-1), any finite x."""
    M = 0.0
    for i in range(x.shape[0]):
        a = abs(x[i])
        if a > M:
            M = a
    if M == 0.0 or (M <= _BIG and M >= _SMALL) or s == 2.0:
        return _grad_phi_raw(x, s, out)
    # exact rescaling by a power of two, then undo it (degree-1 homogeneity)
    e = 2.0 ** -64 if M > _BIG else 2.0 ** 512
    xs = x * e
    _grad_phi_raw(xs, s, out)
    for i in range(out.shape[0]):
        out[i] = out[i] / e
    return out


@njit(cache=True)
def _grad_conjugate_ball(theta, p, radius, out):
    """grad r*(theta) on S = {||w||_p <= radius} (radius <= 0 means S = R^n).

    Unconstrained value first; its p-norm is (p - 1) ||theta||_q, so if that exceeds the
    radius the value is rescaled to p-norm radius (exact, see the chapter).
    """
    q = p / (p - 1.0)
    if radius > 0.0:
        M, nu = _scaled_norm(theta, q)       # ||theta||_q = M nu, nu in [1, n^(1/q)]
        # ||grad r*(theta)||_p = (p-1) ||theta||_q, which may overflow for huge theta:
        # compare radius / M with (p-1) nu instead
        if M > 0.0 and radius / M < (p - 1.0) * nu:
            # on the sphere: grad r*(theta) radius / ||.||_p = grad r*(theta/M) c, by degree-1
            # homogeneity, with c = radius / ((p-1) nu) finite
            _grad_phi(theta / M, q, out)
            c = radius / ((p - 1.0) * nu)
            for i in range(out.shape[0]):
                out[i] *= c
            return out
    _grad_phi(theta, q, out)
    return out


# ------------------------------------------------------------------------------ Python API
P_MIN = 1.0001
"""Smallest p accepted (DESIGN.md, "Validated ranges"). The mirror map raises a base to the
power q - 1 = 1/(p - 1), which multiplies the base's relative rounding error (a few ulps) by
q - 1: at p = 1.0001 (q - 1 = 10^4) the measured worst relative error over |theta_i| in
[1e-300, 1e300] is 1.2e-12 against 60-digit arithmetic, at p = 1 + 1e-6 already 1.7e-10 and
at p = 1 + 1e-15 about 0.1. Below P_MIN the results would be inaccurate, so p is rejected."""


def check_p(p):
    """Validate the exponent of the p-norm regularizer.

    Parameters
    ----------
    p : float
        Must lie in [P_MIN, 2] = [1.0001, 2].

    Returns
    -------
    float
        ``p`` as a float.

    Raises
    ------
    ValueError
        If ``p`` is not a number in [1.0001, 2] (the message names ``p`` and its value).

    Examples
    --------
    >>> from rlmlib import pnorm
    >>> pnorm.check_p(1.8)
    1.8
    """
    x = check_interval("p", p, 1.0, 2.0, lo_closed=False, hi_closed=True)
    if x < P_MIN:
        raise ValueError(
            f"p must be in [{P_MIN}, 2], got {p!r}: below {P_MIN} the exponent "
            f"q - 1 = 1/(p - 1) = {1.0 / (x - 1.0):.3g} of the mirror map amplifies rounding "
            f"beyond 1e-12 relative (at p = 1 + 1e-15 the error is about 10%)")
    return x


def _check_vector(name, x):
    a = np.asarray(x)
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got an array of dtype {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array, got an array of shape {a.shape}")
    a = np.ascontiguousarray(a, dtype=np.float64)
    if not np.isfinite(a).all():
        raise ValueError(f"{name} must not contain NaN or inf, found {a[~np.isfinite(a)][0]}")
    return a


def _check_radius(radius):
    if radius is None:
        return -1.0
    return check_positive("radius", radius)


def conjugate_exponent(p):
    """The dual exponent q = p / (p - 1), so that 1/p + 1/q = 1.

    Parameters
    ----------
    p : float in (1, 2]

    Returns
    -------
    float
        q in [2, inf).

    Raises
    ------
    ValueError
        If ``p`` is not in (1, 2].

    Examples
    --------
    >>> from rlmlib import pnorm
    >>> pnorm.conjugate_exponent(1.5)
    3.0
    """
    p = check_p(p)
    return p / (p - 1.0)


def r(w, p):
    """The p-norm regularizer r(w) = ||w||_p^2 / (2 (p - 1)).

    It is 1-strongly convex with respect to ||.||_p for p in (1, 2].

    Parameters
    ----------
    w : array-like, shape (n,)
    p : float in (1, 2]

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``p`` is not in (1, 2], the vector is not 1-D or holds NaN or inf, or
        ``radius`` is not a positive number.
    TypeError
        If the vector does not hold real numbers.

    Examples
    --------
    >>> from rlmlib import pnorm
    >>> pnorm.r([3.0, 4.0], 2.0)
    12.5
    """
    p = check_p(p)
    return float(_phi(_check_vector("w", w), p))


def grad_r(w, p):
    """The gradient of r, grad r(w)_i = ||w||_p^(2-p) |w_i|^(p-1) sgn(w_i) / (p - 1).

    It is the inverse of the mirror map ``grad_conjugate``.

    Parameters
    ----------
    w : array-like, shape (n,)
    p : float in (1, 2]

    Returns
    -------
    ndarray, shape (n,)

    Raises
    ------
    ValueError
        If ``p`` is not in (1, 2], the vector is not 1-D or holds NaN or inf, or
        ``radius`` is not a positive number.
    TypeError
        If the vector does not hold real numbers.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib import pnorm
    >>> w = np.array([1.0, -2.0])
    >>> bool(np.allclose(pnorm.grad_conjugate(pnorm.grad_r(w, 1.5), 1.5), w))
    True
    """
    p = check_p(p)
    w = _check_vector("w", w)
    return _grad_phi(w, p, np.empty_like(w))


def r_conjugate(theta, p, radius=None):
    """The Fenchel conjugate r*(theta) = sup over w in S of <w, theta> - r(w).

    S = R^n (radius None): ||theta||_q^2 / (2 (q - 1)) = (p - 1) ||theta||_q^2 / 2.
    S = {||w||_p <= B}: the same while (p - 1) ||theta||_q <= B, else
    B ||theta||_q - B^2 / (2 (p - 1)).

    Parameters
    ----------
    theta : array-like, shape (n,)
    p : float in (1, 2]
    radius : float > 0 or None
        B of the ball S, or None for S = R^n.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If ``p`` is not in (1, 2], the vector is not 1-D or holds NaN or inf, or
        ``radius`` is not a positive number.
    TypeError
        If the vector does not hold real numbers.

    Examples
    --------
    >>> from rlmlib import pnorm
    >>> pnorm.r_conjugate([3.0, 4.0], 2.0), pnorm.r_conjugate([3.0, 4.0], 2.0, radius=1.0)
    (12.5, 4.5)
    """
    p = check_p(p)
    B = _check_radius(radius)
    theta = _check_vector("theta", theta)
    q = p / (p - 1.0)
    M, nu = _scaled_norm(theta, q)
    nq = M * nu
    if B > 0.0 and (p - 1.0) * nq > B:
        # B (nq - B / (2(p-1))): no inf - inf (NaN) when B nq and B^2 both overflow
        return float(B * (nq - B / (2.0 * (p - 1.0))))
    return float(_phi(theta, q))


def grad_conjugate(theta, p, radius=None):
    """The mirror map grad r*(theta), the maximizer over w in S of <w, theta> - r(w).

    grad r*(theta)_i = ||theta||_q^(2-q) |theta_i|^(q-1) sgn(theta_i) / (q - 1), q = p/(p-1),
    and grad r*(0) = 0; on the ball ||w||_p <= radius this value is rescaled onto the sphere
    when it lies outside. Finite and accurate to ~1e-13 relative for every p in [1.01, 2]
    and |theta_i| in [1e-300, 1e300] (see the module docstring); p = 2 gives theta itself.

    Parameters
    ----------
    theta : array-like, shape (n,)
    p : float in (1, 2]
    radius : float > 0 or None
        B of the ball S, or None for S = R^n.

    Returns
    -------
    ndarray, shape (n,)

    Raises
    ------
    ValueError
        If ``p`` is not in (1, 2], the vector is not 1-D or holds NaN or inf, or
        ``radius`` is not a positive number.
    TypeError
        If the vector does not hold real numbers.

    Examples
    --------
    >>> from rlmlib import pnorm
    >>> pnorm.grad_conjugate([3.0, -4.0], 2.0).tolist()
    [3.0, -4.0]
    >>> pnorm.grad_conjugate([3.0, -4.0], 2.0, radius=1.0).round(12).tolist()
    [0.6, -0.8]
    """
    p = check_p(p)
    B = _check_radius(radius)
    theta = _check_vector("theta", theta)
    return _grad_conjugate_ball(theta, p, B, np.empty_like(theta))
