"""Training one model on data spread over a Dask cluster (DESIGN.md, "Distributed").

Above ``rlmlib.solvers`` (whose numba kernels the local steps run); nothing in
``rlmlib.solvers`` or ``rlmlib.core`` imports this package. Needs ``distributed``.
"""
from .cocoa import cocoa
from .hogwild import hogwild
from .local_sgd import local_sgd
from .local_svrg import local_svrg
from .partitions import (from_dask_array, load_npz_partitions, load_svmlight_partitions,
                         save_npz_partition)

__all__ = ["cocoa", "hogwild", "local_sgd", "local_svrg", "from_dask_array",
           "load_npz_partitions", "load_svmlight_partitions", "save_npz_partition"]
