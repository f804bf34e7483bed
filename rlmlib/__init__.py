"""rlmlib: stochastic solvers for regularized loss minimization, in numba.

The library behind the book. Every solver is a function ``rlmlib.<name>(X, y, *, sigma, ...)``
returning a :class:`Result`, registered in :data:`SOLVERS`; see ``DESIGN.md`` for the contract
and the layout (``core`` < ``solvers``, ``precond``, ``datasets`` < ``book``).
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
    for path in sorted(here.rglob("*.py")):  # every module of every subpackage
        digest.update(str(path.relative_to(here)).encode())
        digest.update(path.read_bytes())
    return str(here.parent / ".numba_cache" / digest.hexdigest()[:12])


# numba reads NUMBA_CACHE_DIR when it is first imported: keep its disk cache inside the
# project, per version of the sources, so that environments and edits never share (possibly
# stale) compiled kernels.
if "NUMBA_CACHE_DIR" not in _os.environ:   # hash the sources only when it is needed
    _os.environ["NUMBA_CACHE_DIR"] = _numba_cache_dir()

__version__ = "0.1.0"

from .core.rows import Rows, as_rows, check_X_y  # noqa: E402
from .core.result import ConvergenceWarning, Result, Trace  # noqa: E402
from .core.losses import LOSSES, loss_code, loss_deriv, loss_value  # noqa: E402
from .core.objective import (accuracy, decision_function, mse, objective, regularizer,
                             test_error)
from .solvers.reference import lbfgs  # noqa: E402
from .solvers.sgd import sgd  # noqa: E402
from .solvers.pegasos import pegasos  # noqa: E402
from .solvers.pgs import pgs  # noqa: E402
# SGD, SVMSGD2 and SGD-QN
from .solvers.svmsgd2 import svmsgd2  # noqa: E402
from .solvers.sgdqn import sgdqn  # noqa: E402
from .solvers.olbfgs import olbfgs  # noqa: E402
# Fully implicit online learning
from .solvers.fiol import fiol, fiol_step  # noqa: E402
from .solvers.comid import comid  # noqa: E402
from .solvers.isgd import isgd  # noqa: E402
from .solvers.sgd_l1 import sgd_l1  # noqa: E402
from .solvers.l1run import l1_objective  # noqa: E402
from .solvers.limits import StepLimitWarning  # noqa: E402
# Data preconditioning
from .precond.preconditioner import condition_numbers, precondition  # noqa: E402
from .solvers.sag import sag  # noqa: E402
from .solvers.svrg import svrg  # noqa: E402
from .solvers.asgd import asgd  # noqa: E402  (Convergence part)
# Variance reduction
from .solvers.saga import saga  # noqa: E402
from .solvers.sdca import sdca  # noqa: E402
# Momentum and acceleration
from .solvers.sgd_momentum import sgd_momentum  # noqa: E402
from .solvers.catalyst import catalyst  # noqa: E402
from .solvers.katyusha import katyusha  # noqa: E402
# Adaptive steps
from .solvers.adagrad import adagrad  # noqa: E402
from .solvers.adam import adam  # noqa: E402
from .core import losses, pnorm  # noqa: E402  (modules the pages use by name)

#: The solver registry, name -> solver: what ``RLMClassifier``, ``book.parallel.sweep`` and the
#: shared tests (hardening, properties, bounds) iterate over. A new solver is one line here.
SOLVERS = {
    "sgd": sgd, "pegasos": pegasos, "pgs": pgs,
    "svmsgd2": svmsgd2, "sgdqn": sgdqn, "olbfgs": olbfgs,
    "fiol": fiol, "comid": comid, "isgd": isgd, "sgd_l1": sgd_l1,
    "sag": sag, "svrg": svrg,
    "saga": saga, "sdca": sdca,
    "lbfgs": lbfgs,
    "asgd": asgd,
    "sgd_momentum": sgd_momentum, "catalyst": catalyst, "katyusha": katyusha,
    "adagrad": adagrad, "adam": adam,
}

#: The registered solvers of kind "distributed" (``rlmlib.distributed``; DESIGN.md, "The
#: registry"), name -> solver taking in-memory rows ``(X, y, *, sigma, epochs, ...)`` with
#: the one driver's checks and messages, returning a Result: ``local_sgd`` and ``cocoa``
#: cut the rows into ``partitions`` blocks on the workers of the current Dask client,
#: ``hogwild`` runs lock-free threads in this process. Apart from SOLVERS, which the serial
#: suites (bounds sweep, fuzz, estimators, sweeps) call thousands of times each;
#: tests/test_distributed_registry.py runs the shared checks on these on a cluster.
from .distributed.adapters import registered as _registered  # noqa: E402

DISTRIBUTED = _registered()
#: Every registered solver's kind: "serial" (in SOLVERS) or "distributed" (in DISTRIBUTED).
SOLVER_KINDS = {**dict.fromkeys(SOLVERS, "serial"),
                **dict.fromkeys(DISTRIBUTED, "distributed")}

# Heavier pieces (scikit-learn, scipy.sparse) load on first use, so `import rlmlib` stays fast.
_LAZY = {
    "RLMClassifier": "estimators",
    "load_dataset": "datasets.shipped",
    "load_svmlight": "datasets.shipped",
    "load_svmlight_files": "datasets.shipped",
    "Dataset": "datasets.shipped",
}


def __getattr__(name):
    import importlib

    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    if not name.startswith("_"):
        try:  # rlmlib.datasets etc. without an explicit import
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
