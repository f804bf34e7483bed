"""rlmlib.distributed under a memory limit per worker below the data's size: the data fit
only spread over the workers, the client never holds them, and a partition that cannot
fit a worker ends the run with an error naming it, its size and the limit (no hang)."""
import os
import tempfile
import zipfile

import numpy as np
import pytest

distributed = pytest.importorskip("distributed")
psutil = pytest.importorskip("psutil")

from rlmlib.distributed import cocoa, load_npz_partitions  # noqa: E402
from rlmlib.distributed.driver import gather  # noqa: E402
from rlmlib.distributed.partitions import synthetic_shards  # noqa: E402

MB = 10 ** 6
#: each worker's memory limit (process memory, Dask's ``memory_limit``)
LIMIT = 1000 * MB
#: the synthetic data: K partitions of ROWS dense rows of N features, 12 bytes a value as
#: CSR with int32 indices plus 16 bytes a row: 4 x 277 MB = 1.11 GB, above LIMIT; a worker
#: (about 285 MB of its own with rlmlib's kernels loaded and a run's state) holds two,
#: about 840 MB, below the 95 % of LIMIT where its nanny would end it
K, ROWS, N = 4, 450_000, 50


@pytest.fixture(scope="module")
def client():
    """Two worker processes with LIMIT each; a spilled or paused worker would hide the
    limit, so Dask's spilling and pausing are off and only the nanny's termination (at
    95 % of LIMIT) is left."""
    import dask

    with dask.config.set({"distributed.worker.memory.target": False,
                          "distributed.worker.memory.spill": False,
                          "distributed.worker.memory.pause": False,
                          "distributed.scheduler.allowed-failures": 0}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1,
                                           processes=True, memory_limit=LIMIT,
                                           dashboard_address=None)
        cl = distributed.Client(cluster)
        yield cl
        cl.close()
        cluster.close()


@pytest.fixture
def shm_path():
    """A folder in memory (/dev/shm) when there is one: the shards are written and read
    at memory speed (on disk the test's gigabyte would take several seconds more)."""
    base = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(dir=base, prefix="rlmlib-test-") as d:
        yield d


def test_data_larger_than_a_worker_train_spread_out(client, shm_path):
    rss0 = psutil.Process().memory_info().rss
    paths, sizes = synthetic_shards(client, shm_path, K, ROWS, N)   # made on the workers
    total = sum(sizes)
    limits = [w["memory_limit"] for w in client.scheduler_info()["workers"].values()]
    assert len(limits) == 2
    # every worker's limit lies between one partition and the whole data
    assert all(max(sizes) < lim < total for lim in limits), (sizes, limits)
    parts = load_npz_partitions(client, paths)
    res = cocoa(parts, sigma=1e-3, rounds=3, loss="squared_hinge", client=client)
    # a real run: the dual rose and the gap fell
    assert np.all(np.diff(res.info["duals"]) > 0)
    assert res.info["gaps"][-1] < res.info["gaps"][0]
    # the data live spread out: each worker holds partitions, none holds the whole
    held = {}
    for p, s in zip(parts, sizes):
        for addr in client.who_has([p])[p.key]:
            held[addr] = held.get(addr, 0) + s
    assert len(held) == 2 and all(h < total for h in held.values()), held
    # and never on the client: its memory grew by less than one partition
    assert psutil.Process().memory_info().rss - rss0 < min(sizes), sizes


def _huge_npz(path, nbytes):
    """An .npz whose 'data' array has ``nbytes`` bytes of zeros, compressed on disk
    (written in chunks: nothing of that size is ever held in memory)."""
    n = nbytes // 8
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED, compresslevel=1) as z:
        for name, arr in (("indices", np.zeros(1, np.int32)),
                          ("indptr", np.array([0, 1])), ("shape", np.array([1, n])),
                          ("y", np.ones(1))):
            with z.open(name + ".npy", "w") as f:
                np.lib.format.write_array(f, arr)
        with z.open("data.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(
                f, {"descr": "<f8", "fortran_order": False, "shape": (n,)})
            chunk = np.zeros(2 ** 20).tobytes()
            for _ in range(n // 2 ** 20):
                f.write(chunk)
            f.write(np.zeros(n % 2 ** 20).tobytes())


def test_a_partition_that_cannot_fit_is_refused_by_name(client, tmp_path):
    paths, sizes = synthetic_shards(client, tmp_path, 1, 1000, N)
    huge = tmp_path / "huge.npz"
    _huge_npz(huge, LIMIT + 100 * MB)
    parts = load_npz_partitions(client, [paths[0], huge])
    with pytest.raises(MemoryError, match=r"partitions\[1\] \(.*huge\.npz\): its arrays "
                       r"take 1\.1 GB, but worker .* memory limit 1\.0 GB"):
        cocoa(parts, sigma=1e-3, rounds=1, client=client)


def _die():
    import os

    os._exit(1)


def test_a_worker_that_dies_is_reported_with_the_partition_and_limit(client):
    # a task whose worker dies (as the nanny kills a worker past its memory limit):
    # Dask gives up (allowed-failures 0) and the run names the partition and the limits
    fut = client.submit(_die, pure=False)
    with pytest.raises(MemoryError, match=r"partitions\[0\]: round 3: every worker that "
                       r"ran its task died .*memory limit 1\.0 GB.*its arrays take "
                       r"1\.2 kB"):
        gather(client, [fut], "round 3", [1234])
    client.wait_for_workers(2)
