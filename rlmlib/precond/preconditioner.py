"""Data preconditioning for regularized loss minimization (Yang, Jin, Zhu & Lin 2016).

The problem is  F(w) = (sigma/2)||w||^2 + (1/m) sum_i phi(<w, x_i>, y_i)  with a loss whose
curvature is at least beta > 0 (squared loss: beta <= 1; logistic loss: beta <= 1/4, valid
on a bounded range of margins, see :func:`logistic_beta`). With C = X^T X / m and
H = C + (sigma/beta) I, moving (beta/2) z^2 out of every loss gives

    F(w) = (1/m) sum_i phihat(<w, x_i>) + (beta/2) w^T H w,   phihat(z) = phi(z) - (beta/2) z^2,

and the change of variables u = H^(1/2) w, xhat_i = H^(-1/2) x_i turns it into a problem in u
with regularizer (beta/2)||u||^2: strong convexity beta instead of sigma.

The sampled preconditioner builds Chat = (1/s) sum_{i in S} x_i x_i^T from s rows S drawn
without replacement (keyword ``m`` of :func:`precondition`, the paper's letter; the book calls
it s because m counts the training examples). The exact equivalent problem then changes the
losses of the sampled rows only: phi_i(z) = phi(z) - (m/s)(beta/2) z^2 for i in S, phi
unchanged elsewhere, since (beta/2) w^T Chat w = (1/m) sum_{i in S} (m/s)(beta/2)(w^T x_i)^2.

Representation (nothing of size m x n is formed; sparse rows stay sparse). With the thin
eigendecomposition Chat = U diag(c) U^T (U is n x r, orthonormal columns),

    H^-1 = alpha2 I + U diag(e) U^T,   alpha2 = beta/sigma,  e_j = 1/(c_j + sigma/beta) - alpha2,

so H^(-1) x costs one sparse scaled copy of x plus a rank-r correction. For the exact
preconditioner U holds all n eigenvectors of C. The solvers work in the original coordinates:
a step u <- u - eta g xhat_i is w <- w - eta g H^(-1) x_i, and the margin u^T xhat_i is w^T x_i.
They store w = a + U b (a in R^n updated sparsely, b in R^r), and the margins need
Q = X U (m x r), computed here once.
"""
import math
import time

import numpy as np
from numba import njit

from ..core.rows import as_rows, max_row_norm, n_rows
from ..core.checks import check_int, check_positive, check_seed, check_sigma
from .chunks import build as build_chunked, is_dask_array
from ..core.losses import LOSSES, loss_code

#: Largest n for which the exact preconditioner (an n x n eigendecomposition) is built.
EXACT_MAX_FEATURES = 5000

#: Curvature (second derivative in z) of the losses that preconditioning supports:
#: beta must not exceed it.
CURVATURE = {"squared": 1.0, "logistic": 0.25}


def logistic_beta(R):
    """Smallest curvature of the logistic loss on margins |z| <= R.

    phi(z) = log(1 + e^-z) has phi''(z) = e^z / (1 + e^z)^2, even and decreasing in |z|, so
    on [-R, R] it is at least phi''(R) = 1/(2 + e^R + e^-R).

    Parameters
    ----------
    R : float >= 0
        Bound on the margins |<w, x_i>| met during the optimization.

    Returns
    -------
    float
        beta = 1 / (2 + e^R + e^-R), in (0, 1/4].

    Raises
    ------
    ValueError
        For R < 0, R not finite, or R so large that beta underflows to 0.

    Examples
    --------
    >>> from rlmlib.precond.preconditioner import logistic_beta
    >>> logistic_beta(0.0)
    0.25
    """
    R = float(R)
    if not (R >= 0.0 and math.isfinite(R)):
        raise ValueError(f"R must be a finite number >= 0, got {R!r}")
    if R > 40.0:  # 1/(2 + e^R + e^-R) = e^-R to double precision, and e^R may overflow
        beta = math.exp(-R)
        if beta == 0.0:
            raise ValueError(f"R = {R!r} is too large: the curvature bound e^-R underflows "
                             f"to 0 (R must be below about 745)")
        return beta
    return 1.0 / (2.0 + math.exp(R) + math.exp(-R))


#: beta/sigma above this loses the preconditioner's digits to cancellation (issue probe:
#: every digit gone near 1e12 in double precision, whose epsilon is 2.2e-16)
BETA_OVER_SIGMA_MAX = 1e12


def _check_beta(beta, loss=None):
    """beta > 0 and, for a given loss, at most its curvature (ValueError otherwise)."""
    beta = check_positive("beta", beta)
    if loss is not None:
        loss_code(loss)
        if loss not in CURVATURE:
            raise ValueError(f"loss must be one of {', '.join(map(repr, CURVATURE))} for "
                             f"data preconditioning, got {loss!r}")
        if beta > CURVATURE[loss]:
            raise ValueError(f"beta must be in (0, {CURVATURE[loss]:g}] for loss={loss!r} "
                             f"(its curvature is at most {CURVATURE[loss]:g}), got {beta!r}")
    return beta


def _fingerprint(rows, row2=None):
    """(rows, features, stored values, sum of the values, sum of their squares); the last
    from the squared row norms ``row2`` when they are at hand (no second pass)."""
    if row2 is None:
        row2 = np.empty(n_rows(rows))
        _row_norms2(rows.data, rows.indptr, row2)
    sq = float(np.sum(row2))
    return (n_rows(rows), rows.n_features, rows.data.shape[0], float(np.sum(rows.data)), sq,
            _order_sum(row2))


def _order_sum(row2):
    """sum_i (i + 1)/m ||x_i||^2: the fingerprint's part that a permutation of the rows
    changes (the preconditioner keeps per-row quantities: built on a row-permutation of X
    it passed the other checks and the run diverged)."""
    m = row2.shape[0]
    return float(np.dot(np.arange(1, m + 1, dtype=np.float64) / m, row2))


def _same_fingerprint(a, b):
    """Shapes equal, sums equal up to the rounding of adding them in another order (a
    preconditioner built chunk by chunk from a dask array sums its blocks separately)."""
    return a[:3] == b[:3] and all(math.isclose(u, v, rel_tol=1e-9, abs_tol=1e-300)
                                  for u, v in zip(a[3:], b[3:]))


@njit(cache=True)
def _row_norms2(data, indptr, out):
    for i in range(out.shape[0]):
        s = 0.0
        for k in range(indptr[i], indptr[i + 1]):
            s += data[k] * data[k]
        out[i] = s
    return out


@njit(cache=True, fastmath=True)
def compact_basis(indptr, rows, data, M, Uc):
    """Uc[t] = sum_k S[k, j_t] M[k] for the sample's t-th non-empty column j_t, from S in CSC
    form (indptr over columns, the row k of each entry): the rows of U = S^T M that are not
    zero, dense, (features, r). Column by column, so each row of Uc is written once."""
    r = M.shape[1]
    t = 0
    for j in range(indptr.shape[0] - 1):
        if indptr[j + 1] == indptr[j]:
            continue
        u = Uc[t]
        u[:] = 0.0
        for p in range(indptr[j], indptr[j + 1]):
            x = data[p]
            mk = M[rows[p]]
            for q in range(r):
                u[q] += x * mk[q]
        t += 1
    return Uc


@njit(cache=True, fastmath=True)
def row_coordinates(data, indices, indptr, pos, Uc, Q, row2):
    """Q[i] = U^T x_i = sum_p x_ip Uc[pos[j_p]] for every CSR row (features with pos < 0 are
    not in the span of U), and row2[i] = ||x_i||^2, in one pass over X. The row's entries in
    the span are gathered first, then added four at a time into a length-r accumulator (one
    load and store of it per four rows of Uc)."""
    m = indptr.shape[0] - 1
    r = Uc.shape[1]
    longest = 0
    for i in range(m):
        longest = max(longest, indptr[i + 1] - indptr[i])
    bt = np.empty(longest, np.int64)
    bx = np.empty(longest)
    acc = np.empty(r)
    for i in range(m):
        k = 0
        s2 = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            x = data[p]
            s2 += x * x
            t = pos[indices[p]]
            if t >= 0:
                bt[k] = t
                bx[k] = x
                k += 1
        row2[i] = s2
        acc[:] = 0.0
        k4 = k - k % 4
        for h in range(0, k4, 4):
            u0, u1, u2, u3 = Uc[bt[h]], Uc[bt[h + 1]], Uc[bt[h + 2]], Uc[bt[h + 3]]
            x0, x1, x2, x3 = bx[h], bx[h + 1], bx[h + 2], bx[h + 3]
            for q in range(r):
                acc[q] += x0 * u0[q] + x1 * u1[q] + x2 * u2[q] + x3 * u3[q]
        for h in range(k4, k):
            u0 = Uc[bt[h]]
            x0 = bx[h]
            for q in range(r):
                acc[q] += x0 * u0[q]
        Q[i, :] = acc
    return Q


@njit(cache=True)
def _norms2(Q, e, alpha2, row2, out):
    """||xhat_i||^2 = alpha2 ||x_i||^2 + sum_q e_q Q_iq^2 (clipped at 0 against rounding)."""
    for i in range(Q.shape[0]):
        v = alpha2 * row2[i]
        for q in range(Q.shape[1]):
            v += e[q] * Q[i, q] * Q[i, q]
        out[i] = max(v, 0.0)
    return out


_BLAS = []


def _one_blas_thread():
    """A context limiting BLAS to one thread. threadpoolctl's ``threadpool_limits`` scans the
    loaded libraries on every call (1-30 ms measured here, several SVRG steps' worth on
    `spam`); the controller is built once and reused."""
    from threadpoolctl import ThreadpoolController

    if not _BLAS:
        import scipy.linalg  # noqa: F401  (load every BLAS the build may call first)
        _BLAS.append(ThreadpoolController())
    return _BLAS[0].limit(limits=1)


def _to_scipy(rows):
    import scipy.sparse as sp

    m = n_rows(rows)
    return sp.csr_matrix((rows.data, rows.indices, rows.indptr), shape=(m, rows.n_features))


def _matrix(X):
    """X itself when dense (2-D float array) or a CSR matrix, for BLAS products."""
    rows = as_rows(X)
    if rows.sparse:
        return rows, _to_scipy(rows)
    return rows, rows.data.reshape(n_rows(rows), rows.n_features)


class Preconditioner:
    """H^(-1/2) for one data matrix, built by :func:`rlmlib.precondition` (do not call directly).

    Attributes
    ----------
    sigma, beta : float
        The weights it was built for; H = Chat + (sigma/beta) I.
    sample_size : int or None
        Rows s used for Chat (None: exact, Chat = C).
    sample : ndarray of int or None
        The sampled rows (sorted).
    exact : bool
        Whether Chat = C (all rows).
    U : ndarray (n, r)
        Orthonormal eigenvectors of Chat with non-zero eigenvalues (all n when exact); a
        property that forms it densely. The solvers use ``U_apply``/``Ut_apply``, which
        for a sampled preconditioner go through the s sampled rows: U = S^T M.
    rank : int
        r, the number of columns of U.
    eigenvalues : ndarray (r,)
        The eigenvalues c_j of Chat matching ``U`` (decreasing).
    alpha2 : float
        beta/sigma, the eigenvalue of H^-1 off the span of U.
    e : ndarray (r,)
        1/(c_j + sigma/beta) - alpha2, so H^-1 = alpha2 I + U diag(e) U^T.
    Q : ndarray (m, r)
        X U, the rows' coordinates in the span of U.
    norms2 : ndarray (m,)
        ||xhat_i||^2 = x_i^T H^-1 x_i for every row.
    shift : ndarray (m,)
        How much curvature is moved out of each row's loss, in units of beta: 1 for every
        row (exact), m/s for the sampled rows and 0 for the others (sampled).
    numerical_rank : float
        gamma = tr(Chat (Chat + (sigma/beta) I)^-1) = sum_j c_j / (c_j + sigma/beta).
    mean_norm2 : float
        Mean of ||xhat_i||^2 over all rows (equals ``numerical_rank`` when exact).
    coherence : float
        max_i ||xhat_i||^2 / numerical_rank (>= 1 when exact). For the exact
        preconditioner this is the generalized incoherence mu(sigma/beta) of the data's
        left singular vectors (the book's definition, after the paper's Definition 4
        whose formula could not be checked; Lemma 2 holds with equality), which
        :func:`~rlmlib.precond.incoherence` computes independently from an SVD.
    factor_seconds, transform_seconds, build_seconds : float
        Time of the eigendecomposition (with the sampling), of Q = X U and the norms, and
        their sum.

    Notes
    -----
    The build computes only what the solvers use: the factor (``eigenvalues``, ``e``, the
    basis), ``Q`` and ``norms2`` (the step 1/L_max needs max_i ||xhat_i||^2). The
    diagnostics ``numerical_rank``, ``mean_norm2`` and ``coherence`` are computed on first
    access (O(r) and O(m) from those arrays) and cached; they are not part of
    ``build_seconds``.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.random.default_rng(0).standard_normal((50, 4))
    >>> P = rlmlib.precondition(X, sigma=0.1, beta=1.0)
    >>> P.exact, P.rank
    (True, 4)
    >>> w = np.ones(4)
    >>> bool(np.allclose(P.to_original(P.to_transformed(w)), w))
    True
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def numerical_rank(self):
        """gamma = sum_j c_j / (c_j + sigma/beta) (computed on first access)."""
        if "_gamma" not in self.__dict__:
            self._gamma = _gamma(np.asarray(self.eigenvalues, dtype=np.float64),
                                 self.sigma / self.beta)
        return self._gamma

    @property
    def mean_norm2(self):
        """Mean of ||xhat_i||^2 over all rows (computed on first access)."""
        if "_mean_norm2" not in self.__dict__:
            self._mean_norm2 = float(self.norms2.mean())
        return self._mean_norm2

    @property
    def coherence(self):
        """max_i ||xhat_i||^2 / numerical_rank (computed on first access)."""
        if "_coherence" not in self.__dict__:
            g = self.numerical_rank
            self._coherence = float(self.norms2.max() / g) if g > 0 else math.inf
        return self._coherence

    def __repr__(self):
        kind = "exact" if self.exact else f"sampled from s={self.sample_size} rows"
        return (f"Preconditioner({kind}, sigma={self.sigma:g}, beta={self.beta:g}, "
                f"rank {self.rank}, numerical_rank={self.numerical_rank:.4g}, "
                f"coherence={self.coherence:.4g}, build {self.build_seconds:.3g} s)")

    @property
    def n_features(self):
        return self.basis.shape[0]

    @property
    def U(self):
        """The orthonormal basis U (n x r) as a dense array (small problems only: the
        sampled preconditioner keeps it as S^T M and never forms it)."""
        return self.U_apply(np.eye(self.rank))

    def U_apply(self, b):
        """U b for a vector or matrix b (r rows), through S^T (M b) when sampled."""
        b = np.asarray(b, dtype=np.float64)
        if self.M is not None:
            b = self.M @ b
        out = self.basis @ b
        return np.asarray(out.toarray() if hasattr(out, "toarray") else out)

    def Ut_apply(self, v):
        """U^T v for a vector or matrix v (n rows)."""
        v = np.asarray(v, dtype=np.float64)
        out = self.basis.T @ v
        out = np.asarray(out.toarray() if hasattr(out, "toarray") else out)
        return out if self.M is None else self.M.T @ out

    def H_inv_apply(self, v):
        """H^-1 v for a vector (or the columns of a matrix) v, without forming H."""
        v = np.asarray(v, dtype=np.float64)
        c = self.Ut_apply(v)
        return self.alpha2 * v + self.U_apply(self.e[:, None] * c if v.ndim == 2
                                              else self.e * c)

    def _power(self, v, p):
        """H^p v for p = +-1/2: eigenvalues (c + sigma/beta)^p on U, (sigma/beta)^p off it."""
        v = np.asarray(v, dtype=np.float64)
        off = (self.sigma / self.beta) ** p
        on = (self.eigenvalues + self.sigma / self.beta) ** p - off
        c = self.Ut_apply(v)
        return off * v + self.U_apply(on[:, None] * c if v.ndim == 2 else on * c)

    def to_original(self, u):
        """w = H^(-1/2) u: a solution of the transformed problem in the original coordinates."""
        return self._power(u, -0.5)

    def to_transformed(self, w):
        """u = H^(1/2) w."""
        return self._power(w, 0.5)

    def transform(self, X):
        """The preconditioned rows xhat_i = H^(-1/2) x_i as a DENSE array (m, n).

        For small data (tests, figures) only: the solvers never form it.
        """
        _, A = _matrix(X)
        if not isinstance(A, np.ndarray):
            A = A.toarray()
        return self._power(A.T, -0.5).T

    def matrix(self):
        """H^(-1/2) as a dense n x n array (small n only)."""
        return self._power(np.eye(self.n_features), -0.5)

    def check_data(self, rows):
        """Raise ValueError unless ``rows`` are the rows this preconditioner was built on."""
        if not _same_fingerprint(_fingerprint(rows), self.fingerprint):
            raise ValueError(
                f"precondition was built for another X (shape ({self.fingerprint[0]}, "
                f"{self.fingerprint[1]}), {self.fingerprint[2]} stored values); build it with "
                f"rlmlib.precondition on this X")


def precondition(X, *, sigma, beta, m=None, seed=0, loss=None):
    """Build the data preconditioner H^(-1/2), H = Chat + (sigma/beta) I, for the rows of X.

    ``m=None`` uses all rows (Chat = C = X^T X / m_rows, an n x n eigendecomposition, for
    n <= ``EXACT_MAX_FEATURES``). An integer ``m`` (the book's sample size m-hat; the keyword
    keeps the paper's letter) draws that many rows without replacement and uses the thin
    eigendecomposition of their second-moment matrix: H^-1 is then a scaled identity plus a
    rank-m correction, applied implicitly, so sparse X is never densified.

    Parameters
    ----------
    X : array-like, sparse matrix or dask.array, shape (m_rows, n)
        The training rows the solvers will be given. A ``dask.array`` is read block by
        block (out of core: only n x n numbers, or the s sampled rows and the m x r
        coordinates Q, are held in memory); the result is the same preconditioner.
    sigma : float > 0
        The regularization weight σ of (σ/2)‖w‖².
    beta : float > 0
        The curvature β moved out of the loss (at most 1 for the squared loss, 1/4 for the
        logistic loss; see ``rlmlib.precond.logistic_beta``).
    m : int or None
        Sample size s (1 <= s <= m_rows), or None for the exact preconditioner.
    seed : int >= 0
        Seed of ``numpy.random.default_rng`` for the sample.
    loss : str or None
        If given, beta is also checked against the loss's curvature.

    Returns
    -------
    Preconditioner
        With ``numerical_rank``, ``coherence``, ``norms2``, ``build_seconds`` and the arrays
        the solvers ``rlmlib.sag``/``rlmlib.svrg`` use when passed ``precondition=P``. The
        build computes only what the solvers need (the factor, Q = X U and ||xhat_i||^2);
        ``numerical_rank``, ``coherence`` and ``mean_norm2`` are computed on first access.

    Raises
    ------
    ValueError
        For σ <= 0, β <= 0 (or above the loss's curvature), m < 1 or m > m_rows, or an exact
        preconditioner asked for more than ``EXACT_MAX_FEATURES`` features.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.random.default_rng(0).standard_normal((100, 5))
    >>> P = rlmlib.precondition(X, sigma=0.1, beta=1.0)
    >>> bool(np.isclose(P.numerical_rank, P.norms2.mean()))
    True
    """
    # One thread: on a shared 2-core machine, OpenBLAS threads made the small products
    # and eigendecompositions here up to 10x slower, and kept spinning into the
    # single-threaded solver kernels that follow (DESIGN.md, "Data representation").
    if is_dask_array(X):  # out of core: built block by block (rlmlib/_precond_chunks.py)
        sigma = check_sigma(sigma)
        beta = _check_beta(beta, loss)
        if m is None and X.ndim == 2 and X.shape[1] > EXACT_MAX_FEATURES:
            raise ValueError(
                f"the exact preconditioner (m=None) needs an n x n eigendecomposition; n = "
                f"{X.shape[1]} features is above {EXACT_MAX_FEATURES}: pass m=<sample size>")
        with _one_blas_thread():
            return build_chunked(X, sigma=sigma, beta=beta, m=m, seed=seed,
                                 thin_factor=_thin_factor, assemble=_assemble)
    with _one_blas_thread():
        return _precondition(X, sigma=sigma, beta=beta, m=m, seed=seed, loss=loss)


def _check_gram_scale(rows, caller="precondition"):
    """ValueError when X^T X / m (entries up to max ||x_i||^2) would overflow, before the
    eigendecomposition (which would fail with numpy's LinAlgError on its inf entries);
    ``caller`` is the public function the user called."""
    R = max_row_norm(rows)
    if not R * R * max(1, rows.n_features) < 2.0 ** 1000:
        raise ValueError(f"X is too large for {caller}: max ||x_i|| = {R:.3g}, so the "
                         f"entries of X^T X (up to max ||x_i||^2 = {R * R:.3g}) and its "
                         f"eigenvalues overflow; expected max ||x_i||^2 * n below 2**1000 "
                         f"(~1e301): scale X down")


def _precondition(X, *, sigma, beta, m=None, seed=0, loss=None):
    """The work of :func:`precondition` (BLAS limited to one thread by the caller)."""
    sigma = check_sigma(sigma)
    beta = _check_beta(beta, loss)
    if beta / sigma > BETA_OVER_SIGMA_MAX:
        raise ValueError(
            f"beta/sigma = {beta / sigma:.3g} (beta={beta!r}, sigma={sigma!r}) is above "
            f"{BETA_OVER_SIGMA_MAX:g}: the inverse alpha_2 I + U diag(e) U^T then subtracts "
            f"numbers that agree in every digit (its norms, coherence and H_inv_apply lose "
            f"all accuracy); expected beta <= {BETA_OVER_SIGMA_MAX:g} sigma")
    seed = check_seed(seed)
    rows, A = _matrix(X)
    mr, n = n_rows(rows), rows.n_features
    _check_gram_scale(rows)
    if m is not None:
        m = check_int("m", m, 1, mr)
    elif n > EXACT_MAX_FEATURES:
        raise ValueError(
            f"the exact preconditioner (m=None) needs an n x n eigendecomposition; n = {n} "
            f"features is above {EXACT_MAX_FEATURES}: pass m=<sample size>, e.g. m=200")
    t0 = time.perf_counter()
    if m is None:
        C = (A.T @ A) / mr
        C = C.toarray() if not isinstance(C, np.ndarray) else C
        c, U = np.linalg.eigh(C)
        c, basis = np.maximum(c[::-1], 0.0), np.ascontiguousarray(U[:, ::-1])
        M = None  # U = basis
        sample = None
        shift = np.ones(mr)
    else:
        rng = np.random.default_rng(seed)
        sample = np.sort(rng.choice(mr, size=m, replace=False))
        S = A[sample]
        # thin SVD of S / sqrt(s) through its s x s Gram matrix: S S^T / s = W diag(c) W^T,
        # then U = S^T W diag(1/sqrt(s c)) has orthonormal columns and Chat = U diag(c) U^T.
        # U is kept as S^T M (M = W diag(1/sqrt(s c)), s x r): never an n x s dense array.
        # Directions with c_j below 1e-12 c_max are dropped; the loss of orthogonality of
        # the kept ones, about 1e-16 c_max / c_j, enters H^-1 only through e_j, which is
        # of order c_j (beta/sigma)^2 for small c_j: an error of ~1e-16 c_max beta/sigma.
        G = S @ S.T
        c, M = _thin_factor(G.toarray() if not isinstance(G, np.ndarray) else G, m)
        basis = S.T.tocsr() if not isinstance(S, np.ndarray) else np.ascontiguousarray(S.T)
        shift = np.zeros(mr)
        shift[sample] = mr / m
    t1 = time.perf_counter()
    Q = np.empty((mr, c.shape[0]))
    row2 = np.empty(mr)
    if rows.sparse:
        # Q = X U through the rows of U = S^T M that are not zero: the features met in the
        # sample (exact: all n), gathered into a dense (features x r) array Uc. One pass
        # over X, nnz(x_i in the sample's features) * r multiply-adds per row, never the
        # m x s product X S^T (scipy's sparse product took 5x longer on spam).
        pos = np.full(n, -1, np.int64)
        if M is None:
            pos[:] = np.arange(n)
            Uc = basis
        else:
            Sc = S.tocsc()
            feats = np.flatnonzero(np.diff(Sc.indptr))
            pos[feats] = np.arange(feats.size)
            Uc = compact_basis(Sc.indptr, Sc.indices, Sc.data, M,
                               np.empty((feats.size, M.shape[1])))
        row_coordinates(rows.data, rows.indices, rows.indptr, pos, Uc, Q, row2)
    else:
        np.matmul(A, basis if M is None else basis @ M, out=Q)   # U = S^T M first: r <= s
        _row_norms2(rows.data, rows.indptr, row2)
    return _assemble(sigma=sigma, beta=beta, m=m, seed=seed, sample=sample, basis=basis, M=M,
                    c=c, Q=Q, row2=row2, shift=shift, fingerprint=_fingerprint(rows, row2),
                    times=(t0, t1))


def _thin_factor(G, s):
    """Eigenvalues c (decreasing) of S S^T / s from its Gram matrix G = S S^T (s x s, dense),
    and M = W diag(1/sqrt(s c)) so that U = S^T M has orthonormal columns and
    Chat = S^T S / s = U diag(c) U^T. Directions with c_j below 1e-12 c_max are dropped."""
    G = G / s
    c, W = np.linalg.eigh((G + G.T) / 2)
    c, W = c[::-1], W[:, ::-1]
    keep = c > c[0] * 1e-12 if c[0] > 0 else np.zeros(c.size, bool)
    c, W = c[keep], W[:, keep]
    return c, np.ascontiguousarray(W / np.sqrt(s * c))


def _assemble(*, sigma, beta, m, seed, sample, basis, M, c, Q, row2, shift, fingerprint,
             times, **more):
    """The Preconditioner from its factor (c, basis, M), the rows' coordinates Q = X U and
    squared norms row2: e, ||xhat_i||^2, the numerical rank and the coherence. ``times`` =
    (start, end of the factor); the end of the transform is now. Shared by the in-memory
    build and the out-of-core one (rlmlib/_precond_chunks.py)."""
    lam = sigma / beta
    alpha2 = beta / sigma
    e = 1.0 / (c + lam) - alpha2
    norms2 = _norms2(Q, e, alpha2, np.ascontiguousarray(row2, dtype=np.float64),
                     np.empty(Q.shape[0]))
    t0, t1 = times
    t2 = time.perf_counter()
    return Preconditioner(
        sigma=sigma, beta=beta, sample_size=m, sample=sample, exact=m is None,
        basis=basis, M=M, rank=c.shape[0],
        eigenvalues=c, alpha2=alpha2, e=e, Q=Q, norms2=norms2, shift=shift,
        factor_seconds=t1 - t0, transform_seconds=t2 - t1, build_seconds=t2 - t0,
        fingerprint=fingerprint, seed=seed, **more)


def numerical_rank(eigenvalues, ratio):
    """gamma(C, ratio) = sum_j c_j / (c_j + ratio) for eigenvalues c_j >= 0 of C.

    With ratio = sigma/beta this is the numerical rank of the data (the paper's
    effective degrees of freedom), the mean of ||H^(-1/2) x_i||^2.

    Parameters
    ----------
    eigenvalues : array-like of float >= 0
        The eigenvalues c_j of the second-moment matrix C.
    ratio : float > 0
        sigma/beta.

    Returns
    -------
    float
        gamma, between 0 and the number of non-zero eigenvalues.

    Raises
    ------
    ValueError
        For ratio <= 0, or an eigenvalue that is negative or not finite.

    Examples
    --------
    >>> from rlmlib.precond.preconditioner import numerical_rank
    >>> numerical_rank([1.0, 1.0, 0.0], 1.0)
    1.0
    """
    c = np.asarray(eigenvalues, dtype=np.float64)
    ratio = check_positive("ratio", ratio)
    if c.ndim != 1:
        raise ValueError(f"eigenvalues must be a 1-D array, got shape {c.shape}")
    bad = np.flatnonzero(~(np.isfinite(c) & (c >= 0)))
    if bad.size:
        more = f" ({bad.size} such values)" if bad.size > 1 else ""
        raise ValueError(f"eigenvalues must be finite and >= 0, got eigenvalues[{bad[0]}] = "
                         f"{float(c[bad[0]])!r}{more}")
    return _gamma(c, ratio)


def _gamma(c, ratio):
    """sum_j c_j / (c_j + ratio), formed as 1 / (1 + ratio / c_j): c_j + ratio may overflow
    (c_j = 1e308) where the quotient does not."""
    pos = c > 0
    with np.errstate(over="ignore"):
        return float(np.sum(1.0 / (1.0 + ratio / c[pos])))


def incoherence(X, *, sigma, beta):
    """The generalized incoherence (the book's, after the paper's Definition 4) and the
    classical coherence.

    With the thin SVD X / sqrt(m) = A diag(sqrt(c)) V^T (A is m x r with orthonormal
    columns and rows a_i, c_j the non-zero eigenvalues of C = X^T X / m) and rho =
    sigma/beta, the generalized incoherence of A w.r.t. c and rho is

        mu(rho) = max_i (m / gamma) sum_j c_j / (c_j + rho) a_ij^2,
        gamma = sum_j c_j / (c_j + rho)  (the numerical rank),

    and its Lemma 2 reads max_i ||H^(-1/2) x_i||^2 <= mu(rho) gamma (the bound is attained:
    m sum_j c_j/(c_j + rho) a_ij^2 is ||H^(-1/2) x_i||^2). The classical coherence of A
    (Candes and Romberg) is mu0 = (m/r) max_i ||a_i||^2, in [1, m/r]. Computed from an SVD
    of the dense data, independently of :func:`~rlmlib.precondition`.

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
        The training rows (densified: n <= ``EXACT_MAX_FEATURES``).
    sigma, beta : float > 0
        Regularization weight and curvature moved out of the loss; rho = sigma/beta.

    Returns
    -------
    dict
        ``mu`` (the generalized incoherence), ``mu0`` (the classical coherence of A),
        ``numerical_rank`` (gamma), ``rank`` (r), ``norms2`` (m sum_j c_j/(c_j + rho)
        a_ij^2 for every row, i.e. ||H^(-1/2) x_i||^2) and ``row_leverage`` (||a_i||^2).

    Raises
    ------
    ValueError
        For sigma or beta <= 0, more than ``EXACT_MAX_FEATURES`` features, or X = 0.

    Examples
    --------
    >>> import numpy as np
    >>> from rlmlib.precond import incoherence
    >>> X = np.random.default_rng(0).standard_normal((400, 8))
    >>> r = incoherence(X, sigma=1e-3, beta=0.5)
    >>> bool(1 <= r["mu"] <= 400 / r["numerical_rank"]), bool(r["mu0"] >= 1)
    (True, True)
    """
    sigma = check_sigma(sigma)
    beta = _check_beta(beta)
    rows, M = _matrix(X)
    if rows.n_features > EXACT_MAX_FEATURES:
        raise ValueError(f"incoherence needs an SVD of the dense data; n = "
                         f"{rows.n_features} features is above {EXACT_MAX_FEATURES}")
    _check_gram_scale(rows, "incoherence")
    m = n_rows(rows)
    D = M.toarray() if rows.sparse else np.asarray(M, dtype=np.float64)
    with _one_blas_thread():
        A, sv, _ = np.linalg.svd(D / math.sqrt(m), full_matrices=False)
    keep = sv > (sv[0] * 1e-12 if sv.size else 0.0)
    if not keep.any():
        raise ValueError("incoherence is undefined for X = 0 (no non-zero singular value)")
    A, c = A[:, keep], sv[keep] ** 2
    weights = 1.0 / (1.0 + (sigma / beta) / c)          # c_j / (c_j + rho), no overflow
    gamma = float(weights.sum())
    norms2 = m * (A * A) @ weights
    lev = np.einsum("ij,ij->i", A, A)
    return {"mu": float(norms2.max() / gamma), "mu0": float(m / c.size * lev.max()),
            "numerical_rank": gamma, "rank": int(c.size), "norms2": norms2,
            "row_leverage": lev}


def condition_numbers(X, *, sigma, beta, loss, m=None, seed=0, precondition=None):
    """The condition numbers that govern SAG and SVRG, before and after preconditioning.

    Before: kappa = (L R^2 + sigma) / sigma with R^2 = max_i ||x_i||^2 and L the loss's
    smoothness (1 squared, 1/4 logistic): the largest smoothness of one term over the
    strong convexity. After: kappa_hat = ((L - beta) Rhat^2 + beta) / beta with
    Rhat^2 = max_i ||H^(-1/2) x_i||^2. Both are exact (row norms and an eigendecomposition)
    when the exact preconditioner is used (n <= ``EXACT_MAX_FEATURES`` and m=None); with a
    sampled preconditioner ``kappa_hat`` is the exact value for the problem it builds, and an
    *estimate* of the exact preconditioner's (``method`` says which).

    Parameters
    ----------
    X : array-like or sparse matrix
        The training rows.
    sigma, beta : float > 0
        Regularization weight and the curvature moved out of the loss.
    loss : {'squared', 'logistic'}
        Loss of the problem (its smoothness L and curvature bound on beta).
    m : int or None
        Sample size for the preconditioner (None: exact when n is small enough, else
        a sample of min(m_rows, 500) rows).
    seed : int
    precondition : Preconditioner or None
        Reuse an already built preconditioner of X (then sigma and beta must match it).

    Returns
    -------
    dict
        ``kappa``, ``kappa_hat``, ``R2``, ``R2_hat``, ``numerical_rank``, ``coherence``
        (R2_hat / numerical_rank: with the exact preconditioner, the paper's generalized
        incoherence mu, see :func:`~rlmlib.precond.incoherence`), ``method`` ('exact' or 'estimated from
        s sampled rows').

    Raises
    ------
    ValueError
        For sigma or beta <= 0, beta above the loss's curvature, an unknown loss, or a
        ``precondition`` built for another sigma, beta or X.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.random.default_rng(0).standard_normal((200, 10))
    >>> k = rlmlib.condition_numbers(X, sigma=1e-3, beta=1.0, loss="squared")
    >>> k["method"], bool(k["kappa_hat"] < k["kappa"])
    ('exact', True)
    """
    sigma = check_sigma(sigma)
    if loss not in CURVATURE:  # None too: kappa needs the loss's smoothness
        raise ValueError(f"loss must be one of {', '.join(map(repr, CURVATURE))} for "
                         f"condition_numbers (kappa needs its smoothness), got {loss!r}")
    beta = _check_beta(beta, loss)
    L = LOSSES[loss]["smoothness"]
    rows = as_rows(X)
    if precondition is None:
        _check_gram_scale(rows, "condition_numbers")   # named here, not as precondition's
        if m is None and rows.n_features > EXACT_MAX_FEATURES:
            m = min(n_rows(rows), 500)
        precondition = globals()["precondition"](X, sigma=sigma, beta=beta, m=m, seed=seed)
    P = precondition
    if not (math.isclose(P.sigma, sigma) and math.isclose(P.beta, beta)):
        raise ValueError(f"precondition was built for sigma={P.sigma}, beta={P.beta}, not "
                         f"sigma={sigma}, beta={beta}")
    P.check_data(rows)
    R2 = float(_row_norms2(rows.data, rows.indptr, np.empty(n_rows(rows))).max())
    R2h = float(P.norms2.max())
    return {"kappa": (L * R2 + sigma) / sigma, "kappa_hat": ((L - beta) * R2h + beta) / beta,
            "R2": R2, "R2_hat": R2h, "numerical_rank": P.numerical_rank,
            "coherence": P.coherence,
            "method": "exact" if P.exact else f"estimated from s={P.sample_size} sampled rows"}


# ------------------------------------------------------------------ shared by sag and svrg


