"""Out-of-bounds accesses in the kernels, caught with numba's bounds checking on (in a
subprocess with its own cache directory, so no bounds-checked kernel is shared).

- The kernels prefetch the rows of coming examples (rlmlib.core.prefetch). A prefetch hint never
  changes a value (the solvers' tests compare their results with the papers' loops); what can
  go wrong is the look-ahead reading order[pos + AHEAD] past the end of the batch: every
  kernel that looks ahead runs on batches shorter and longer than the look-ahead.
- pgs with k > 1 on dense data touches every column in one step: its branch-free list of
  touched columns writes one slot past the last column."""
import os
import subprocess
import sys

CODE = """
import numpy as np, scipy.sparse as sp, rlmlib
from rlmlib.solvers.pgs import pgs_iterates
rng = np.random.default_rng(0)
X = rng.standard_normal((30, 6)); y = np.where(X[:, 0] > 0, 1, -1)
Xs = sp.random(30, 50, density=0.2, format="csr", random_state=1)
for A in (X, Xs):
    for T in (1, 3, 9, 40):
        rlmlib.pegasos(A, y, sigma=0.1, T=T, n_checkpoints=1)
        rlmlib.pegasos(A, y, sigma=0.1, T=T, k=5, n_checkpoints=1)
        rlmlib.pgs(A, y, p=1.8, sigma=0.1, T=T, loss="logistic", n_checkpoints=1)
        rlmlib.pgs(A, y, p=2.0, sigma=0.1, T=T, k=7, loss="logistic", n_checkpoints=1)
        rlmlib.pgs(A, y, p=1.8, sigma=0.1, T=T, k=5, loss="logistic", n_checkpoints=1)
    pgs_iterates(A, y, p=1.8, sigma=0.1, at=[1, 2, 3, 12], loss="logistic")
    for epochs in (1, 2):
        rlmlib.sgd(A, y, sigma=0.1, epochs=epochs, n_checkpoints=7)
        rlmlib.asgd(A, y, sigma=0.1, epochs=epochs, n_checkpoints=7, average_start=5)
print("ok")
"""


def test_kernels_in_bounds(tmp_path):
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]
