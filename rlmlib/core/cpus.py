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
import time

#: where the control-group files are read (cgroup v2 ``cpu.max``; v1 ``cpu/cpu.cfs_*``)
CGROUP_ROOT = "/sys/fs/cgroup"
#: the process's control groups, one line per hierarchy ("0::/path" for cgroup v2)
PROC_CGROUP = "/proc/self/cgroup"
#: seconds for which :func:`usable_cores` reuses what it read of the control groups (the
#: validation pass asks at every call: reading the files took ~50 us, a tenth of the pass
#: over a 20,000 x 300 array)
CGROUP_TTL = 5.0
_read = {}  # (CGROUP_ROOT, PROC_CGROUP) -> (time read, quota)


def cgroup_cpus(root=None, proc=None):
    """The CPUs' worth of time per period the control groups allow (``quota / period``:
    1.5 means one and a half cores), or None when they set no limit or there is no such
    file (not Linux, no cgroup CPU controller). The smallest quota on the path from the
    process's own group (``proc``) up to the root counts, for cgroup v2 and v1 alike.

    Parameters
    ----------
    root : str or None
        The cgroup file system's directory; None: :data:`CGROUP_ROOT`.
    proc : str or None
        The file naming the process's groups; None: :data:`PROC_CGROUP`.

    Returns
    -------
    float or None
        The quota in CPUs, or None without a limit.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = tempfile.mkdtemp()
    >>> _ = pathlib.Path(d, "cpu.max").write_text("150000 100000\\n")
    >>> cgroup_cpus(d, proc="/nonexistent")
    1.5
    >>> _ = pathlib.Path(d, "cpu.max").write_text("max 100000\\n")
    >>> cgroup_cpus(d, proc="/nonexistent") is None
    True
    """
    root = CGROUP_ROOT if root is None else root
    v2, v1 = _own_groups(PROC_CGROUP if proc is None else proc)
    limits = [_v2_limit(os.path.join(root, d)) for d in _up(v2)]
    if all(q is None for q in limits):  # no v2 limit: the v1 cpu controller
        limits = [_v1_limit(os.path.join(root, "cpu", d)) for d in _up(v1)]
    limits = [q for q in limits if q is not None]
    return min(limits) if limits else None


def _own_groups(proc):
    """(v2 path, v1 cpu-controller path) of this process's groups, relative; "" (the
    root) when the file or the line is missing."""
    v2 = v1 = ""
    try:
        with open(proc) as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                if controllers == "":
                    v2 = path.strip("/")
                elif "cpu" in controllers.split(","):
                    v1 = path.strip("/")
    except (OSError, ValueError):
        pass
    return v2, v1


def _up(path):
    """path, its parent, ..., "" (the root)."""
    parts = [p for p in path.split("/") if p]
    return ["/".join(parts[:k]) for k in range(len(parts), -1, -1)]


def _v2_limit(directory):
    """cpu.max of one cgroup v2 directory: "<quota> <period>" or "max <period>"."""
    try:
        with open(os.path.join(directory, "cpu.max")) as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else _ratio(int(quota), int(period))
    except (OSError, ValueError):
        return None


def _v1_limit(directory):
    """cpu.cfs_quota_us / cpu.cfs_period_us of one cgroup v1 directory (-1: no limit)."""
    try:
        with open(os.path.join(directory, "cpu.cfs_quota_us")) as f:
            quota = int(f.read())
        with open(os.path.join(directory, "cpu.cfs_period_us")) as f:
            period = int(f.read())
        return _ratio(quota, period)
    except (OSError, ValueError):
        return None


def _ratio(quota, period):
    """quota / period, or None when either is not positive (no limit)."""
    return quota / period if quota > 0 and period > 0 else None


def usable_cores(root=None, proc=None):
    """Cores this process may use: its CPU affinity (``os.cpu_count()`` where there is
    none), at most :func:`cgroup_cpus` rounded up; at least 1. Without ``root`` and
    ``proc`` the quota read from :data:`CGROUP_ROOT` and :data:`PROC_CGROUP` is reused for
    :data:`CGROUP_TTL` seconds (the affinity is asked every time).

    Parameters
    ----------
    root, proc : str or None
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
    if root is None and proc is None:  # this process's own files: read at most every TTL
        key = (CGROUP_ROOT, PROC_CGROUP)
        now = time.monotonic()
        hit = _read.get(key)
        if hit is None or now - hit[0] > CGROUP_TTL:
            hit = _read[key] = (now, cgroup_cpus(*key))
        limit = hit[1]
    else:
        limit = cgroup_cpus(root, proc)
    if limit is not None:
        cores = min(cores, math.ceil(limit))
    return max(1, cores)
