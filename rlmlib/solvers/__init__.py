"""One module per algorithm (its public driver on top, its numba kernels below), and the
small modules they share: ``t0`` (step offsets and skip), ``l1`` and ``l1run`` (lazy l1
shrinking), ``vr`` (variance-reduction bookkeeping). The solvers are public as
``rlmlib.<name>`` and listed in ``rlmlib.SOLVERS``."""
