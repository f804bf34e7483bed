"""Software prefetch of the rows a stochastic solver is about to visit.

A stochastic step reads one row at a random place in the data (for the full-size RCV1-like set,
59 million non-zeros, far larger than the caches), so most of an epoch is spent waiting for
memory: the same kernel runs about three times faster over the rows in storage order. The
order of the coming examples is known in advance (a permutation, or the drawn indices), so
the kernels ask the CPU to start loading them a few steps early. ``prefetch_ahead`` does it in
two stages: the row pointer of the example ``2 * AHEAD`` positions ahead (the row's address
is itself a random read), then the non-zeros of the example ``AHEAD`` positions ahead.

A prefetch is only a hint: it never faults, never changes a value, and the results are the
same bit for bit with or without it (tests compare against the papers' loops). In a
same-process A/B on the full-size RCV1-like data (781,265 x 47,236), with against without:
one epoch of pegasos 0.69x the time, of sgd 0.68-0.76x, of pgs (p = 2, k = 1) 0.84x; pgs at
k = 300 is dominated by its arithmetic and did not change. The Implementation part's
benchmark page measures the effect on every build.
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

#: how many examples ahead the non-zeros are fetched (the row pointer: twice as far)
AHEAD = 4


@intrinsic
def prefetch(typingctx, arr, idx):
    """Hint that arr[idx] will be read soon (LLVM's prefetch: read, high locality, data)."""
    sig = types.void(arr, idx)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]],
                                       wraparound=False, boundscheck=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
            "llvm.prefetch.p0")
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(0), i32(3), i32(1)])
        return context.get_dummy_value()

    return sig, codegen


@njit(cache=True)
def prefetch_ahead(data, indices, indptr, order, pos, end, with_indices):
    """Prefetch for the example at order[pos]: indptr of order[pos + 2 AHEAD], and the
    non-zeros (data, and indices if ``with_indices``) of order[pos + AHEAD]; positions at or
    beyond ``end`` are skipped. One hint per 64-byte cache line."""
    if pos + 2 * AHEAD < end:
        prefetch(indptr, order[pos + 2 * AHEAD])
    if pos + AHEAD < end:
        i = order[pos + AHEAD]
        a = indptr[i]
        b = indptr[i + 1]
        for j in range(a, b, 8):                 # 8 float64 per line
            prefetch(data, j)
        if with_indices:
            for j in range(a, b, 64 // indices.itemsize):
                prefetch(indices, j)
