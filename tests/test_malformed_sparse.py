"""Every public entry point that takes X goes through the one validation pass
(rlmlib.core.rows): a malformed CSR matrix (a column index outside [0, n), a negative one,
a broken indptr) is refused with a ValueError naming X before anything reads it, and a
legal non-canonical one (unsorted or duplicate column indices, which scipy sums) gives the
values of its canonical form. Before, RLMClassifier.decision_function and the explorables
read outside the arrays (numbers such as 8.2e42 or 4.7e-310)."""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st

import rlmlib
from rlmlib.book import explore

N = 6
rng = np.random.default_rng(0)
X_FIT = rng.standard_normal((40, N))
Y_FIT = np.where(X_FIT[:, 0] + 0.2 * X_FIT[:, 1] > 0, 1, -1)
CLF = rlmlib.RLMClassifier(solver="sgd", sigma=1e-2, epochs=2, loss="logistic").fit(
    X_FIT, Y_FIT)
RES = rlmlib.sgd(X_FIT, Y_FIT, sigma=1e-2, epochs=2, loss="logistic")
W = RES.w


def entry_points():
    """(name, f(M)) for every public function of X (M has N columns and 5 rows)."""
    y5 = np.array([1, -1, 1, -1, 1])
    return [
        ("RLMClassifier.decision_function", CLF.decision_function),
        ("RLMClassifier.predict", CLF.predict),
        ("RLMClassifier.predict_proba", CLF.predict_proba),
        ("RLMClassifier.score", lambda M: CLF.score(M, y5)),
        ("Result.decision_function", RES.decision_function),
        ("Result.predict", RES.predict),
        ("rlmlib.decision_function", lambda M: rlmlib.decision_function(M, W)),
        ("rlmlib.objective", lambda M: rlmlib.objective(M, y5, W, sigma=0.1,
                                                        loss="logistic")),
        ("rlmlib.accuracy", lambda M: rlmlib.accuracy(M, y5, W)),
        ("explore.kappa", lambda M: explore.kappa(M, sigma=0.1, loss="logistic")),
        ("explore.gram_condition", lambda M: explore.gram_condition(M, sigma=0.1)),
    ]


ENTRY = entry_points()


@st.composite
def malformed_csr(draw):
    """(M, kind): a 5 x N CSR matrix whose arrays were changed after construction (scipy's
    constructor checks only lengths), kind 'bad' (must be refused) or 'legal' (unsorted or
    duplicate indices: must equal its canonical form, returned as the third element)."""
    dens = draw(st.integers(1, 4))
    A = np.zeros((5, N))
    for i in range(5):
        cols = draw(st.lists(st.integers(0, N - 1), min_size=1, max_size=dens, unique=True))
        A[i, cols] = draw(st.floats(0.5, 2.0))
    M = sp.csr_matrix(A)
    M.sort_indices()
    nnz = M.nnz
    kind = draw(st.sampled_from(["above", "negative", "indptr_order", "indptr_end",
                                 "indptr_start", "unsorted", "duplicate"]))
    pos = draw(st.integers(0, nnz - 1))
    data, ind, ptr = M.data.copy(), M.indices.copy(), M.indptr.copy()
    if kind == "above":
        ind[pos] = N + draw(st.integers(0, 10 ** 6))
    elif kind == "negative":
        ind[pos] = -draw(st.integers(1, 10 ** 6))
    elif kind == "indptr_order":
        r = draw(st.integers(1, 4))
        ptr[r] = ptr[r + 1] + draw(st.integers(1, 5))
    elif kind == "indptr_end":
        ptr[-1] = nnz + draw(st.integers(1, 5))
    elif kind == "indptr_start":
        ptr[0] = draw(st.integers(1, 3))
    B = sp.csr_matrix((5, N))
    B.data, B.indices, B.indptr = data, ind, ptr
    if kind in ("unsorted", "duplicate"):
        i = int(np.argmax(np.diff(ptr)))  # the longest row
        a, b = ptr[i], ptr[i + 1]
        if kind == "unsorted":
            ind[a:b] = ind[a:b][::-1]
            data[a:b] = data[a:b][::-1]
        else:  # the row's first entry split into two halves at the same column
            data = np.insert(data, a, data[a] / 2)
            data[a + 1] /= 2
            ind = np.insert(ind, a, ind[a])
            ptr[i + 1:] += 1
        B = sp.csr_matrix((5, N))
        B.data, B.indices, B.indptr = data, ind, ptr
        B.has_sorted_indices = False
        B.has_canonical_format = False
        return B, "legal", A
    return B, "bad", None


@settings(max_examples=60, deadline=None, derandomize=True)
@given(malformed_csr())
def test_every_entry_point_validates_sparse_X(case):
    M, kind, A = case
    for name, f in ENTRY:
        if kind == "bad":
            with pytest.raises(ValueError, match=r"X is a malformed CSR|X must"):
                f(M)
        else:
            got, want = _numbers(f(M)), _numbers(f(A))
            assert np.allclose(got, want, rtol=1e-9, atol=0), name


def _numbers(v):
    """The numbers of a result (an array, a number, or a dict of them)."""
    if isinstance(v, dict):
        return np.array([float(x) for x in v.values()
                         if isinstance(x, (int, float, np.number))])
    return np.asarray(v, dtype=float)


def test_the_issue_case():
    M = sp.csr_matrix(np.ones((2, N)))
    M.indices[3] = N + 1000
    with pytest.raises(ValueError, match=rf"column index {N + 1000} at position 3"):
        CLF.decision_function(M)
