"""The load-robust timing of the pages (rlmlib/book/bench/timing.py and its callers)."""
import time

import numpy as np
import pytest

from rlmlib.book.bench import calls, prefetch
from rlmlib.book.bench.fiol import step_seconds
from rlmlib.book.bench.timing import cpu_difference, cpu_seconds, fastest


def spin(seconds):
    """Busy for about ``seconds`` of CPU time of this thread."""
    t = time.thread_time()
    while time.thread_time() - t < seconds:
        pass


def test_cpu_seconds_counts_work_not_waiting():
    # the process's CPU time (all threads: a pool left by an earlier test may add a
    # little), so the bounds leave room for other threads' work
    sec, out = cpu_seconds(time.sleep, 0.5)              # waiting: no CPU time
    assert out is None and sec < 0.25
    sec, _ = cpu_seconds(spin, 0.1)                      # working: its CPU time
    assert 0.1 <= sec < 0.3


def test_cpu_difference_cancels_the_shared_set_up():
    def run(k):
        time.sleep(0.1)          # a set-up paid by both runs (waiting, not counted) ...
        spin(0.05)               # ... and one that is counted
        spin(0.02 * k)           # the work that grows with k
    d = cpu_difference(run, 1, 3)
    assert 0.035 < d < 0.085, d  # two units of 0.02 s, not the 0.05 s set-up


def test_fastest_keeps_the_minimum_after_an_untimed_warm_up():
    seq = iter([100.0, 5.0, 2.0, 7.0])                  # 100: the warm-up, discarded
    other = iter([1.0, 3.0, 4.0, 0.5])
    assert fastest({"a": lambda: next(seq), "b": lambda: next(other)}, reps=3) == \
        {"a": 2.0, "b": 0.5}
    with pytest.raises(ValueError, match="reps must be >= 1"):
        fastest({"a": lambda: 1.0}, reps=0)


def test_clock_is_checked():
    X = np.eye(3)
    with pytest.raises(ValueError, match="clock must be 'wall' or 'cpu', got 'cpus'"):
        calls.spmv_seconds(X, clock="cpus")
    with pytest.raises(ValueError, match="clock must be 'wall' or 'cpu'"):
        prefetch.measure(X, clock="thread")


def test_epoch_per_order_in_cpu_time_is_positive_and_complete():
    from rlmlib.datasets import synthetic

    d = synthetic.rcv1_like(m=3000, n=2000, nnz_per_row=20, seed=0)
    out = calls.epoch_per_order(d.X, d.y, reps=2, clock="cpu")
    assert set(out) == {f"sgd {o}" for o in ("reshuffle", "shuffle_once", "cyclic")} | \
        {f"pegasos {o}" for o in ("replacement", "reshuffle", "shuffle_once", "cyclic")}
    for k, (epoch, whole) in out.items():
        assert 0 < epoch and 0 < whole, (k, epoch, whole)   # multiples of one SpMV


def test_step_seconds_takes_the_clock():
    seen = []

    def clock():
        seen.append(1)
        return time.perf_counter()
    t = step_seconds(100, reps=2, inner=3, clock=clock)
    assert set(t) == {"sort", "partition", "ogd"} and min(t.values()) > 0
    assert len(seen) == 2 * 3 * 2            # start and stop of 2 reps x 3 step kinds


def test_the_cold_start_benchmark_has_a_call_for_every_registered_solver():
    """benchmarks/bench_cold_start.py refuses to run when a registered solver has no
    smallest call (a new solver must be added to CALLS)."""
    import rlmlib
    from rlmlib.book.bench.cold import CALLS

    assert set(rlmlib.SOLVERS) <= set(CALLS), sorted(set(rlmlib.SOLVERS) - set(CALLS))
