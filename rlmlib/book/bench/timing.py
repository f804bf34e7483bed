"""Timing that a loaded machine disturbs little: CPU time, differences, fastest of alternated
runs. The pages that assert a comparison of times use these (the build must not fail because
another process held a core).

- :func:`cpu_seconds`: the CPU time of one call, all threads of this process
  (:data:`cpu_clock`; rlmlib's validation pass runs on several threads from 2,000,000
  stored values). It does
  not count the time the threads waited while other processes held the cores, which the
  wall clock does; it does count the cycles they stalled on memory, so memory-bound work
  is measured.
- :func:`cpu_difference`: CPU seconds of ``run(big)`` minus ``run(small)``: the set-up that
  both pay (input checks, allocation) cancels, what remains is the work of the extra steps.
- :func:`cpu_pass`: one pass of a solver, a two-epoch run minus a one-epoch run.
- :func:`fastest`: the fastest of alternated repetitions; other processes can only add time
  to a run, so the minimum is the steadiest estimate.
"""
import time

import numpy as np

from rlmlib.core.rows import fixed_pass_threads

#: the CPU clock of every timing in rlmlib.book.bench: all threads of this process (the
#: calling thread's time alone would miss the validation pass's helper threads)
cpu_clock = time.process_time


def cpu_seconds(f, *args, **kw):
    """CPU seconds of ``f(*args, **kw)``, all threads of this process (:data:`cpu_clock`);
    returns (seconds, result).

    Examples
    --------
    >>> sec, out = cpu_seconds(sum, range(10))
    >>> out, sec >= 0
    (45, True)
    """
    t = cpu_clock()
    out = f(*args, **kw)
    return cpu_clock() - t, out


def cpu_difference(run, small=1, big=2):
    """CPU seconds of ``run(big)`` minus those of ``run(small)`` (the set-up paid by both
    cancels). Both run with rlmlib's validation pass on one thread: it cancels either way,
    and on two threads its CPU time varies more from run to run (the threads share the
    memory bus), noise a difference of two timings cannot bear.

    Examples
    --------
    >>> cpu_difference(lambda k: sum(range(k * 10 ** 5))) > 0
    True
    """
    with fixed_pass_threads(1):
        return cpu_seconds(run, big)[0] - cpu_seconds(run, small)[0]


def cpu_pass(f, X, y, **kw):
    """CPU seconds of one pass of solver ``f``: the CPU time of a two-epoch run
    minus that of a one-epoch run (the set-up, paid by both, cancels). CPU time is not
    counted while other processes hold the core, so on a loaded machine it is steadier
    than the wall clock.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.random.default_rng(0).standard_normal((2000, 5))
    >>> cpu_pass(rlmlib.sgd, X, np.sign(X[:, 0]), sigma=0.1) > 0
    True
    """
    return cpu_difference(lambda epochs: f(X, y, epochs=epochs, **kw))


def fastest(fns, reps=3):
    """The fastest of ``reps`` alternated runs of each timing function.

    ``fns`` maps a name to a function of no argument that runs something once and returns
    its seconds. Each function runs once untimed (compilation, caches), then they run one
    after the other, ``reps`` times; on a shared machine other processes can only add time
    to a run, so the minimum is the steadiest estimate. Returns {name: seconds}.

    Examples
    --------
    >>> seq = iter([9.0, 3.0, 1.0, 2.0])
    >>> fastest({"a": lambda: next(seq)}, reps=3)
    {'a': 1.0}
    """
    if reps < 1:
        raise ValueError(f"reps must be >= 1, got {reps}")
    for f in fns.values():
        f()
    times = {k: [] for k in fns}
    for _ in range(reps):
        for k, f in fns.items():
            times[k].append(f())
    return {k: float(np.min(v)) for k, v in times.items()}
