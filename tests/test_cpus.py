"""Cores this process may use (rlmlib.core.cpus): the affinity and the cgroup CPU quota,
which the validation pass's threads and the embedded Dask cluster's workers follow."""
import math
import os

import pytest

from rlmlib.core import cpus


def _write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.mark.parametrize("v2,v1,want", [
    ("max 100000\n", None, None),               # v2, no limit
    ("150000 100000\n", None, 1.5),             # v2, one and a half cores
    ("50000 100000\n", None, 0.5),
    (None, ("-1", "100000"), None),             # v1, no limit
    (None, ("200000", "100000"), 2.0),          # v1, two cores
    ("garbage\n", ("300000", "100000"), 3.0),   # unreadable v2 file: v1 is read
    (None, None, None),                         # neither: no limit known
])
def test_cgroup_cpus_reads_v2_and_v1(tmp_path, v2, v1, want):
    if v2 is not None:
        _write(tmp_path / "cpu.max", v2)
    if v1 is not None:
        _write(tmp_path / "cpu" / "cpu.cfs_quota_us", v1[0])
        _write(tmp_path / "cpu" / "cpu.cfs_period_us", v1[1])
    assert cpus.cgroup_cpus(str(tmp_path), proc=str(tmp_path / "none")) == want


def test_cgroup_cpus_takes_the_smallest_quota_from_the_own_group_up(tmp_path):
    """Without a cgroup namespace the process sits in a subgroup: its own quota and its
    ancestors' count, the smallest wins (v2: the "0::" line; v1: the cpu controller's)."""
    proc = tmp_path / "cgroup"
    root = tmp_path / "fs"
    proc.write_text("1:name=systemd:/\n0::/a/b\n")
    _write(root / "a" / "b" / "cpu.max", "max 100000\n")
    _write(root / "a" / "cpu.max", "200000 100000\n")
    assert cpus.cgroup_cpus(str(root), str(proc)) == 2.0
    _write(root / "cpu.max", "150000 100000\n")
    assert cpus.cgroup_cpus(str(root), str(proc)) == 1.5
    _write(root / "a" / "b" / "cpu.max", "50000 100000\n")
    assert cpus.cgroup_cpus(str(root), str(proc)) == 0.5
    assert cpus.usable_cores(str(root), str(proc)) == 1
    v1 = tmp_path / "v1"
    proc.write_text("4:memory:/m\n3:cpu,cpuacct:/x/y\n0::/\n")
    _write(v1 / "cpu" / "x" / "cpu.cfs_quota_us", "300000")
    _write(v1 / "cpu" / "x" / "cpu.cfs_period_us", "100000")
    _write(v1 / "cpu" / "cpu.cfs_quota_us", "-1")
    _write(v1 / "cpu" / "cpu.cfs_period_us", "100000")
    assert cpus.cgroup_cpus(str(v1), str(proc)) == 3.0


def test_usable_cores_is_the_affinity_capped_by_the_quota_rounded_up(tmp_path):
    affinity = len(os.sched_getaffinity(0))
    none = str(tmp_path / "none")  # no /proc/self/cgroup: the root's files
    assert cpus.usable_cores(str(tmp_path), none) == affinity  # no cgroup file: no limit
    for quota, want in [(50000, 1), (100000, 1), (150000, 2), (10**9, 10**4)]:
        _write(tmp_path / "cpu.max", f"{quota} 100000\n")
        assert want == math.ceil(quota / 100000)
        assert cpus.usable_cores(str(tmp_path), none) == min(affinity, want)


def test_pass_threads_and_dask_workers_follow_the_quota(tmp_path, monkeypatch):
    """A container limited to one CPU (a Binder session on a many-core host): the
    validation pass runs serially and the embedded cluster would start one worker."""
    from rlmlib.book import parallel
    from rlmlib.core import rows

    _write(tmp_path / "cpu.max", "100000 100000\n")
    monkeypatch.setattr(cpus, "CGROUP_ROOT", str(tmp_path))
    monkeypatch.setattr(cpus, "PROC_CGROUP", str(tmp_path / "none"))
    assert rows.pass_threads() == 1 and parallel._n_cores() == 1
    assert rows._parallel_threads(10**9, 10**6) == 1


def test_the_own_quota_is_read_again_after_its_time_to_live(tmp_path, monkeypatch):
    """usable_cores() without arguments reuses what it read of this process's control
    groups for CGROUP_TTL seconds (the validation pass asks at every call), then reads
    the files again; other files (a changed CGROUP_ROOT) are read at once."""
    _write(tmp_path / "cpu.max", "100000 100000\n")
    monkeypatch.setattr(cpus, "CGROUP_ROOT", str(tmp_path))
    monkeypatch.setattr(cpus, "PROC_CGROUP", str(tmp_path / "none"))
    assert cpus.usable_cores() == 1
    _write(tmp_path / "cpu.max", "max 100000\n")
    assert cpus.usable_cores() == 1  # within the time to live: the quota read before
    monkeypatch.setattr(cpus, "CGROUP_TTL", 0.0)
    assert cpus.usable_cores() == len(os.sched_getaffinity(0))  # read again: no limit
