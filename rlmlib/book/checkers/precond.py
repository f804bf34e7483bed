"""Checkers for the data-preconditioning chapter's code exercises (DESIGN.md, "Exercise
checkers"): each runs the reader's function on chosen inputs, extreme ones included, and
raises ``AssertionError`` naming the input and the size of the error, or the likely cause."""
import math

import numpy as np

from .base import _checker_doc


def _ref_gamma(c, ratio):
    c = np.asarray(c, dtype=np.float64)
    pos = c > 0
    with np.errstate(over="ignore"):  # ratio/c = inf gives the term 0, as it should
        return float(np.sum(1.0 / (1.0 + ratio / c[pos])))


def _gamma_cases():
    rng = np.random.default_rng(0)
    return [
        ([1.0, 0.5, 0.25, 0.125], 0.25),                     # the hand computation: 2.3
        ([1.0, 1.0, 0.0], 1.0),                             # zero eigenvalue
        ([0.0, 0.0], 1e-300),                               # all zero: gamma = 0
        (list(np.arange(1, 1001.0) ** -2.0), 1e-6),          # polynomial decay
        ([1e300, 1e300, 1e-300], 1.0),
        ([1e308, 1.5e308], 1e308),                          # c + ratio overflows
        ([1e-300, 2e-300], 1e-300),                         # tiny eigenvalues and ratio
        ([1.0, 2.0], 1e300),                                # huge ratio: gamma ~ 3e-300
        (list(rng.random(50)), 0.1),
    ]


@_checker_doc("gamma", "(eigenvalues, ratio) -> float", "case")
def check_numerical_rank(gamma):
    """Check ``gamma(eigenvalues, ratio)`` = sum_j c_j / (c_j + ratio), to a relative 1e-10
    (absolute 1e-300 near zero), on eigenvalues from 0 to 1e300 and ratios from 1e-300
    to 1e300.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.precond import check_numerical_rank
    >>> def gamma(c, ratio):
    ...     c = np.asarray(c, dtype=float)
    ...     with np.errstate(over="ignore"):
    ...         return float(np.sum(1.0 / (1.0 + ratio / c[c > 0])))
    >>> check_numerical_rank(gamma)
    'check_numerical_rank: all 9 cases correct (hand example gives 2.3).'
    >>> naive = lambda c, r: float(np.nansum(np.asarray(c) / (np.asarray(c) + r)))
    >>> try:
    ...     check_numerical_rank(naive)
    ... except AssertionError as e:
    ...     print(str(e).split(": ")[-1])
    c_j + ratio overflowed to inf (write each term as 1/(1 + ratio/c_j))
    """
    for c, ratio in _gamma_cases():
        exp = _ref_gamma(c, ratio)
        try:
            with np.errstate(all="ignore"):
                got = float(gamma(list(c), ratio))
        except (ZeroDivisionError, FloatingPointError) as e:
            raise AssertionError(f"gamma(c={c[:4]}..., ratio={ratio:g}) raised {e!r}: "
                                 f"a zero eigenvalue contributes 0") from e
        case = f"gamma(c = {np.asarray(c)[:4]}{'...' if len(c) > 4 else ''}, ratio={ratio:g})"
        if not math.isfinite(got):
            raise AssertionError(f"{case} returned {got}: an intermediate overflowed or 0/0 "
                                 f"occurred (write each term as 1/(1 + ratio/c_j))")
        if exp > 0 and math.isclose(got, _ref_gamma(c, 1.0 / ratio) if ratio != 0 else -1,
                                    rel_tol=1e-9) and not math.isclose(got, exp, rel_tol=1e-9):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: ratio is used "
                                 f"inverted (the level is sigma/beta, not beta/sigma)")
        cm = np.asarray(c, dtype=float)
        with np.errstate(all="ignore"):
            swapped = float(np.sum(ratio / (cm + ratio))) if ratio < 1e300 else None
        if swapped is not None and exp > 0 and math.isclose(got, swapped, rel_tol=1e-9) \
                and not math.isclose(got, exp, rel_tol=1e-9):
            raise AssertionError(f"{case} = {got:.6g}, expected {exp:.6g}: this is "
                                 f"sum ratio/(c + ratio), the complement n - gamma")
        with np.errstate(all="ignore"):
            naive = float(np.nansum(cm / (cm + ratio)))
        if not (abs(got - exp) <= 1e-10 * abs(exp) + 1e-300) and got == naive:
            raise AssertionError(f"{case} = {got!r}, expected {exp!r}: c_j + ratio overflowed "
                                 f"to inf (write each term as 1/(1 + ratio/c_j))")
        if not (abs(got - exp) <= 1e-10 * abs(exp) + 1e-300):
            raise AssertionError(f"{case} = {got!r}, expected {exp!r} (relative error "
                                 f"{abs(got - exp) / max(abs(exp), 1e-300):.2e})")
    return "check_numerical_rank: all 9 cases correct (hand example gives 2.3)."


def _ref_sampled_transform(X, sample, sigma, beta):
    XS = X[sample]
    s = len(sample)
    n = X.shape[1]
    ev, V = np.linalg.eigh(XS.T @ XS / s + sigma / beta * np.eye(n))
    return X @ (V @ np.diag(ev ** -0.5) @ V.T)


def _sampled_cases():
    rng = np.random.default_rng(1)
    X1 = rng.standard_normal((40, 6)) * np.array([5, 2, 1, 0.5, 0.1, 0.01])
    X2 = rng.standard_normal((30, 12))
    X3 = X2.copy()
    X3[:, 5:] = 0.0                                     # zero columns: rank-deficient Chat
    X4 = np.zeros((10, 4))                              # all-zero data
    X4[3] = [1e3, -1e3, 0.0, 2.0]                       # one large row, outside the sample?
    return [
        (X1, np.array([0, 3, 7, 11, 20]), 1e-3, 1.0),
        (X2, np.arange(30), 1e-2, 0.25),                # s = m: the exact preconditioner
        (X2, np.array([4]), 1e-1, 0.5),                 # s = 1
        (X3, np.array([1, 2, 3, 10, 11, 12, 13, 14]), 1e-4, 1.0),
        (X4, np.array([0, 1, 2]), 1e-2, 1.0),           # sample of zero rows: sqrt(beta/sig) x
        (X4, np.array([3, 5]), 1e-6, 0.25),
    ]


@_checker_doc("sampled_transform", "(X, sample, sigma, beta) -> ndarray", "case")
def check_sampled_transform(sampled_transform):
    """Check ``sampled_transform(X, sample, sigma, beta)`` = the rows of X times
    Hhat^(-1/2), Hhat = X_S^T X_S / s + (sigma/beta) I, for dense X (relative 1e-8 of the
    largest entry).

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.book.checkers.precond import check_sampled_transform
    >>> def transform(X, sample, sigma, beta):
    ...     H = X[sample].T @ X[sample] / len(sample) + sigma / beta * np.eye(X.shape[1])
    ...     ev, V = np.linalg.eigh(H)
    ...     return X @ (V * ev ** -0.5) @ V.T
    >>> check_sampled_transform(transform)
    'check_sampled_transform: all 6 cases correct (including s = 1, s = m, zero rows).'
    """
    for X, sample, sigma, beta in _sampled_cases():
        exp = _ref_sampled_transform(X, sample, sigma, beta)
        case = (f"X of shape {X.shape}, sample of s = {len(sample)} rows, sigma={sigma:g}, "
                f"beta={beta:g}")
        with np.errstate(all="ignore"):
            got = np.asarray(sampled_transform(X.copy(), sample.copy(), sigma, beta),
                             dtype=float)
        if got.shape != exp.shape:
            raise AssertionError(f"{case}: expected shape {exp.shape}, got {got.shape}")
        if not np.isfinite(got).all():
            raise AssertionError(f"{case}: non-finite entries (a zero singular value divided "
                                 f"by? keep only the positive ones)")
        scale = max(np.abs(exp).max(), 1e-300)
        err = np.abs(got - exp).max() / scale
        if err <= 1e-8:
            continue
        # diagnose the typical mistakes
        m = X.shape[0]
        S = X[sample]
        n = X.shape[1]
        U_s, sv, Vt = np.linalg.svd(S / np.sqrt(len(sample)), full_matrices=False)
        keep = sv > (sv.max() * 1e-10 if sv.size and sv.max() > 0 else 0)
        U, c = Vt[keep].T, sv[keep] ** 2
        no_comp = (X @ U) * (c + sigma / beta) ** -0.5 @ U.T
        if np.abs(got - no_comp).max() <= 1e-8 * scale:
            raise AssertionError(f"{case}: the complement term sqrt(beta/sigma)(I - U U^T) x "
                                 f"is missing (error {err:.2e})")
        by_m = _ref_sampled_transform(X * np.sqrt(len(sample) / m), sample, sigma, beta) \
            / np.sqrt(len(sample) / m)
        Hm = np.linalg.eigh(S.T @ S / m + sigma / beta * np.eye(n))
        by_m = X @ (Hm[1] @ np.diag(Hm[0] ** -0.5) @ Hm[1].T)
        if np.abs(got - by_m).max() <= 1e-8 * scale:
            raise AssertionError(f"{case}: Chat is normalized by m = {m} instead of the "
                                 f"sample size s = {len(sample)} (error {err:.2e})")
        inv = _ref_sampled_transform(X, sample, beta, sigma)
        if np.abs(got - inv).max() <= 1e-8 * np.abs(inv).max():
            raise AssertionError(f"{case}: beta/sigma used where sigma/beta belongs "
                                 f"(error {err:.2e})")
        raise AssertionError(f"{case}: largest error {err:.2e} relative to the largest entry "
                             f"{scale:.3g}")
    return "check_sampled_transform: all 6 cases correct (including s = 1, s = m, zero rows)."


def _ref_beta(R):
    if R > 40.0:
        return math.exp(-R)
    return 1.0 / (2.0 + math.exp(R) + math.exp(-R))


@_checker_doc("bound", "(R) -> float", "value of R")
def check_logistic_beta(bound):
    """Check ``bound(R)`` = min over |z| <= R of the logistic loss's second derivative, to a
    relative 1e-12, for R from 0 to 700.

    Examples
    --------
    >>> import math
    >>> from rlmlib.book.checkers.precond import check_logistic_beta
    >>> check_logistic_beta(lambda R: 1.0 / (2.0 + math.exp(R) + math.exp(-R)))
    'check_logistic_beta: all 12 values of R correct (0 to 700).'
    >>> sig = lambda z: 1.0 / (1.0 + math.exp(-z))
    >>> try:
    ...     check_logistic_beta(lambda R: sig(R) * (1.0 - sig(R)))   # cancels for large R
    ... except AssertionError as e:
    ...     print(str(e).split("): ")[-1])
    1 - sigma(R) loses its digits to cancellation when sigma(R) is near 1; ...
    """
    for R in [0.0, 1e-8, 0.5, 1.0, 3.0, 10.0, 36.0, 40.0, 41.0, 100.0, 500.0, 700.0]:
        exp = _ref_beta(R)
        try:
            with np.errstate(all="ignore"):
                got = float(bound(R))
        except OverflowError as e:
            raise AssertionError(f"bound(R={R:g}) raised {e!r}: e^R overflows beyond "
                                 f"R = 709; use e^-R once e^R dominates") from e
        if not math.isfinite(got):
            raise AssertionError(f"bound(R={R:g}) = {got}: e^R overflowed (use e^-R for "
                                 f"large R)")
        if got == 0.0 and exp > 0.0:
            raise AssertionError(f"bound(R={R:g}) = 0, expected {exp:.6g}: 1 - sigma(R) "
                                 f"cancels to 0 (catastrophic cancellation), the bound is "
                                 f"not zero; write it as 1/(2 + e^R + e^-R)")
        if math.isclose(got, 0.25) and R > 0.1:
            raise AssertionError(f"bound(R={R:g}) = 0.25: that is the curvature at z = 0, "
                                 f"the largest; the bound is the smallest, at |z| = R")
        if not math.isclose(got, exp, rel_tol=1e-12):
            hint = (": 1 - sigma(R) loses its digits to cancellation when sigma(R) is near 1; "
                    "write the bound as 1/(2 + e^R + e^-R)" if exp < 1e-8 else "")
            raise AssertionError(f"bound(R={R:g}) = {got!r}, expected {exp!r} (relative error "
                                 f"{abs(got - exp) / exp:.2e}){hint}")
    return "check_logistic_beta: all 12 values of R correct (0 to 700)."
