"""rlmlib: stochastic solvers for regularized loss minimization, in numba.

The library behind the book. Every solver is a function ``rlmlib.<name>(X, y, *, ...)``
returning a :class:`Result`; see ``DESIGN.md`` for the contract.
"""
import hashlib as _hashlib
import os as _os
from pathlib import Path as _Path


def _numba_cache_dir():
    """<repo>/.numba_cache/<12 hex digits of a SHA-1 of rlmlib's sources>.

    numba's disk cache checks only the source file of the function it caches, so a kernel
    compiled with an ``@njit`` helper inlined from another module (``_l1.py``, ``losses.py``)
    would survive an edit of that helper. A directory per version of the sources makes every
    edit start from an empty cache (one compilation) and can never serve a stale kernel.
    Hashing the sources takes a few milliseconds."""
    here = _Path(__file__).resolve().parent
    digest = _hashlib.sha1()
    for path in sorted(here.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return str(here.parent / ".numba_cache" / digest.hexdigest()[:12])


# numba reads NUMBA_CACHE_DIR when it is first imported: keep its disk cache inside the
# project, per version of the sources, so that environments and edits never share (possibly
# stale) compiled kernels.
if "NUMBA_CACHE_DIR" not in _os.environ:   # hash the sources only when it is needed
    _os.environ["NUMBA_CACHE_DIR"] = _numba_cache_dir()

__version__ = "0.1.0"

from ._checks import Rows, as_rows, check_X_y  # noqa: E402
from ._result import Result, Trace  # noqa: E402
from .losses import LOSSES, loss_code, loss_deriv, loss_value  # noqa: E402
from .objective import (accuracy, decision_function, mse, objective, regularizer,  # noqa: E402
                        test_error)
from .reference import lbfgs  # noqa: E402
from .sgd import sgd  # noqa: E402
from .pegasos import pegasos  # noqa: E402
from .pgs import pgs  # noqa: E402
# SGD, SVMSGD2 and SGD-QN
from .svmsgd2 import svmsgd2  # noqa: E402
from .sgdqn import sgdqn  # noqa: E402
from .olbfgs import olbfgs  # noqa: E402
# Fully implicit online learning
from .fiol import fiol, fiol_step  # noqa: E402
from .comid import comid  # noqa: E402
from .isgd import isgd  # noqa: E402
from .sgd_l1 import sgd_l1  # noqa: E402
from ._l1run import l1_objective  # noqa: E402
# Data preconditioning
from .precond import condition_numbers, precondition  # noqa: E402
from .sag import sag  # noqa: E402
from .svrg import svrg  # noqa: E402

# Heavier pieces (scikit-learn, scipy.sparse) load on first use, so `import rlmlib` stays fast.
_LAZY = {
    "RLMClassifier": "estimators",
    "load_dataset": "datasets",
    "load_svmlight": "datasets",
    "Dataset": "datasets",
}


def __getattr__(name):
    import importlib

    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    if not name.startswith("_"):
        try:  # rlmlib.synthetic etc. without an explicit import
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
