"""The order in which a solver visits its examples (DESIGN.md, "Example order").

Every solver that visits examples one (or k) at a time takes ``order=``:

- ``"reshuffle"``     a new permutation of the m examples each epoch (random reshuffling);
- ``"shuffle_once"``  one permutation, drawn once and reused every epoch;
- ``"cyclic"``        storage order 0, 1, ..., m-1 every epoch (for data already shuffled,
                      as Bottou's programs assume); no random numbers at all;
- ``"replacement"``   independent uniform draws with replacement (the sampling that the
                      analyses of Pegasos and PGS assume; their default).

:class:`ExampleStream` hands out the example index of global steps t, t+1, ... in blocks
whose content does not depend on how the run is split into segments (checkpoints), so a run's
result does not depend on ``n_checkpoints``: permutations are drawn one per epoch, uniform
draws in blocks of fixed size, both from ``numpy.random.default_rng(seed)``.
"""
import numpy as np
from numba import njit

from .checks import check_choice

ORDERS = ("reshuffle", "shuffle_once", "cyclic", "replacement")
_BLOCK = 1 << 16  # uniform draws come in blocks of this size, whatever the checkpoints


def check_order(order, allowed=ORDERS[:3]):
    """``order`` validated against ``allowed`` (ValueError naming ``order`` otherwise)."""
    return check_choice("order", order, allowed)


_STORAGE = np.arange(0, dtype=np.uint64)


def storage_order(m):
    """0, 1, ..., m-1 as uint64: a view of one array kept for the largest m asked so far
    (8 bytes per example), so that a cyclic run does not fill a fresh one each call. Only
    read (the kernels never write their ``order``)."""
    global _STORAGE
    if _STORAGE.shape[0] < m:
        _STORAGE = np.arange(m, dtype=np.uint64)
    return _STORAGE[:m]


class ExampleStream:
    """Example indices for consecutive steps, drawn from ``default_rng(seed)``.

    ``take(count)`` returns the next ``count`` indices as a uint64 array (unsigned, so a numba
    kernel drops its negative-index wraparound check; see ``_checks.unsigned_index``).
    """

    def __init__(self, m, order, seed):
        self.m = int(m)
        self.order = order
        self.rng = np.random.default_rng(seed)
        self.buf = np.empty(0, dtype=np.uint64)
        self.pos = 0
        self._once = None

    def _refill(self):
        m = self.m
        if self.order == "replacement":
            self.buf = self.rng.integers(0, m, _BLOCK, dtype=np.int64).view(np.uint64)
        elif self.order == "reshuffle":
            self.buf = self.rng.permutation(m).view(np.uint64)
        elif self.order == "shuffle_once":
            if self._once is None:
                self._once = self.rng.permutation(m).view(np.uint64)
            self.buf = self._once
        else:  # cyclic
            if self._once is None:
                self._once = storage_order(m)
            self.buf = self._once
        self.pos = 0

    def take(self, count):
        """The indices of the next ``count`` steps (a view when they lie in one block)."""
        if self.pos == self.buf.shape[0]:
            self._refill()
        if count <= self.buf.shape[0] - self.pos:  # common case: no copy
            out = self.buf[self.pos:self.pos + count]
            self.pos += count
            return out
        out = np.empty(count, dtype=np.uint64)
        filled = 0
        while filled < count:
            if self.pos == self.buf.shape[0]:
                self._refill()
            c = min(count - filled, self.buf.shape[0] - self.pos)
            out[filled:filled + c] = self.buf[self.pos:self.pos + c]
            filled += c
            self.pos += c
        return out

    def segments(self, count):
        """The next ``count`` steps as ``(indices, start, stop)`` pieces that never cross an
        epoch's block: a kernel walks ``indices[start:stop]`` without any copy."""
        while count > 0:
            if self.pos == self.buf.shape[0]:
                self._refill()
            c = min(count, self.buf.shape[0] - self.pos)
            yield self.buf, self.pos, self.pos + c
            self.pos += c
            count -= c


#: ``order="shuffle_once"`` copies the rows into the permuted order when the run has at
#: least this many epochs, then streams them in storage order. Measured on 200,000 RCV1-like
#: rows (benchmarks/bench_calls.py): the copy costs about 2.9 SpMV, an epoch in storage order
#: about 1.35 SpMV and an epoch through the permutation (with prefetch) about 2.4-2.8 SpMV, so
#: the copy pays off from the third epoch (same weights to the bit: the same rows are visited
#: in the same order with the same arithmetic).
COPY_FROM_EPOCHS = 3


@njit(cache=True)
def _gather_rows(data, indices, indptr, perm, out_data, out_indices, out_indptr):
    pos = 0
    out_indptr[0] = 0
    for r in range(perm.shape[0]):
        i = perm[r]
        for j in range(indptr[i], indptr[i + 1]):
            out_data[pos] = data[j]
            out_indices[pos] = indices[j]
            pos += 1
        out_indptr[r + 1] = pos


def permute_rows(rows, y, perm):
    """``rows`` and ``y`` with row r equal to row ``perm[r]`` of the input (a copy, O(nnz))."""
    if rows.indices.shape[0] != rows.data.shape[0]:  # compact dense rows: a row gather
        n = rows.n_features
        data = rows.data.reshape(-1, n)[perm].ravel()
        return rows._replace(data=data), y[perm]
    out_data = np.empty_like(rows.data)
    out_indices = np.empty_like(rows.indices)
    out_indptr = np.empty_like(rows.indptr)
    _gather_rows(rows.data, rows.indices, rows.indptr, perm, out_data, out_indices, out_indptr)
    return rows._replace(data=out_data, indices=out_indices, indptr=out_indptr), y[perm]
