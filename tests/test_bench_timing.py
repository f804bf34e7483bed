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


def test_input_forms_update_replaces_only_the_re_run_forms(tmp_path, monkeypatch):
    """``bench_inputs.py --record --update --forms ...``: the re-run forms replace their
    entries (the others are kept, in their order), the re-run is listed in 'updates' with
    its forms, commit and loads, describe() names it, the saved record is written back,
    and the options are refused without --record, with every form or unknown names.
    No timing is asserted: run() is replaced by a stub returning a fixed result."""
    import json

    from rlmlib.book import records
    from rlmlib.book.bench import inputs

    old = {"full": True, "started": {"date": "d0", "commit": "a" * 40,
                                     "rlmlib_modified": False},
           "setup": {"rows": 7, "dense_rows": 5, "reps": 2},
           "provenance": {"finished": "f0", "cpus": 2, "machine": "x86_64",
                          "python": "3", "numba": "0"}, "seconds_page": 60.0,
           "forms": {f: {"check_spmv": 1.0, "solvers": {}, "load": [1.0, 1.0]}
                     for f in inputs.FORMS}}
    path = tmp_path / "bench_inputs_full.json"
    path.write_text(json.dumps(old))
    monkeypatch.setattr(records, "load", lambda name: json.loads(path.read_text()))
    monkeypatch.setattr(records, "path_of", lambda name: path)
    seen = {}

    def fake_run(rows, dense_rows, reps, forms=None, solvers=inputs.PEERS):
        seen.update(rows=rows, dense_rows=dense_rows, reps=reps, forms=list(forms))
        return {"forms": {f: {"check_spmv": 0.25, "solvers": {}, "load": [2.0, 3.0]}
                          for f in forms}}

    monkeypatch.setattr(inputs, "run", fake_run)
    forms = ["CSR float32", "dense C-ordered"]
    inputs.main(["--record", "--update", "--forms", *forms])
    rec = json.loads(path.read_text())
    assert seen == {"rows": 7, "dense_rows": 5, "reps": 2, "forms": forms}
    assert list(rec["forms"]) == list(inputs.FORMS)            # order kept
    assert {f for f, r in rec["forms"].items() if r["check_spmv"] == 0.25} == set(forms)
    assert rec["started"] == old["started"] and rec["setup"] == old["setup"]
    (u,) = rec["updates"]
    assert u["forms"] == forms and len(u["commit"]) == 40 and len(u["load_start"]) == 3
    text = records.describe(rec)
    assert max(map(len, text.splitlines())) <= 88
    assert (f"CSR float32, dense C-ordered re-run {u['date']} at commit "
            f"{u['commit'][:10]}") in " ".join(text.split())
    inputs.main(["--record", "--update", "--forms", "COO"])      # a second update adds
    assert [u["forms"] for u in json.loads(path.read_text())["updates"]] == [forms, ["COO"]]
    for bad in (["--update", "--forms", "COO"], ["--record", "--update"],
                ["--record", "--update", "--forms", *inputs.FORMS],
                ["--record", "--update", "--forms", "COO", "--solvers", "sgd"],
                ["--forms", "CSR float64"]):
        with pytest.raises(SystemExit):
            inputs.main(bad)
