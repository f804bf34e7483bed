"""How many cores this process may use: the cores it may run on (its CPU affinity), at
most the CPU time its control group allows (``cpu.max``). A container (Binder, Docker,
Kubernetes, CI runners) usually shows every core of the host but caps the CPU time: on a
64-core host a Binder session limited to 1 CPU would otherwise start 64 Dask workers, or
run the validation pass on more threads than it has time for.

Used by the validation pass (:func:`rlmlib.core.rows.pass_threads`) and the embedded Dask
cluster (``rlmlib.book.parallel``).
"""
import math
import os

#: where the control-group files are read (cgroup v2 ``cpu.max``; v1 ``cpu/cpu.cfs_*``)
CGROUP_ROOT = "/sys/fs/cgroup"


def cgroup_cpus(root=None):
    """The CPUs' worth of time per period the control group allows (``quota / period``:
    1.5 means one and a half cores), or None when it sets no limit or there is no such
    file (not Linux, no cgroup CPU controller).

    Parameters
    ----------
    root : str or None
        The cgroup file system's directory; None: :data:`CGROUP_ROOT`.

    Returns
    -------
    float or None
        The quota in CPUs, or None without a limit.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = tempfile.mkdtemp()
    >>> _ = pathlib.Path(d, "cpu.max").write_text("150000 100000\\n")
    >>> cgroup_cpus(d)
    1.5
    >>> _ = pathlib.Path(d, "cpu.max").write_text("max 100000\\n")
    >>> cgroup_cpus(d) is None
    True
    """
    root = CGROUP_ROOT if root is None else root
    try:  # cgroup v2: "<quota> <period>" or "max <period>"
        with open(os.path.join(root, "cpu.max")) as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else _ratio(int(quota), int(period))
    except (OSError, ValueError):
        pass
    try:  # cgroup v1: quota -1 means no limit
        with open(os.path.join(root, "cpu", "cpu.cfs_quota_us")) as f:
            quota = int(f.read())
        with open(os.path.join(root, "cpu", "cpu.cfs_period_us")) as f:
            period = int(f.read())
        return _ratio(quota, period)
    except (OSError, ValueError):
        return None


def _ratio(quota, period):
    """quota / period, or None when either is not positive (no limit)."""
    return quota / period if quota > 0 and period > 0 else None


def usable_cores(root=None):
    """Cores this process may use: its CPU affinity (``os.cpu_count()`` where there is
    none), at most :func:`cgroup_cpus` rounded up; at least 1.

    Parameters
    ----------
    root : str or None
        As for :func:`cgroup_cpus`.

    Returns
    -------
    int
        The number of cores, >= 1.

    Examples
    --------
    >>> usable_cores() >= 1
    True
    """
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        cores = os.cpu_count() or 1
    limit = cgroup_cpus(root)
    if limit is not None:
        cores = min(cores, math.ceil(limit))
    return max(1, cores)
