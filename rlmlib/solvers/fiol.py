"""Fully implicit online learning (Song, Liu, Xiao, Chen and Ma 2018) with the l1 regularizer.

One step solves exactly

    w+ = argmin_w  l(<w, x>; y) + sigma ||w||_1 + ||w - v||^2 / (2 eta)        (v = w_t)

Optimality gives w+ = S_{eta sigma}(v - eta s x) for one scalar s in dl(<w+, x>) (S is soft
thresholding). With g(s) = <x, S_{eta sigma}(v - eta s x)>, the scalar solves s in dl(g(s)).
For each coordinate with x_j != 0,

    x_j S(v_j - eta s x_j) = om_j [ (lo_j - s)_+ - (s - hi_j)_+ ],   om_j = eta x_j^2,
    lo_j = (v_j - eta sigma sign x_j) / (eta x_j),   hi_j = (v_j + eta sigma sign x_j) / (eta x_j),

so g is continuous, piecewise linear and non-increasing with the 2 nnz(x) breakpoints lo_j,
hi_j; on a piece g(s) = A - C s with A the sum of om_j lo_j = x_j v_j - eta sigma |x_j| over the
lo_j right of the piece plus om_j hi_j over the hi_j left of it, C the sum of those om_j. The
predicate "min dl(g(beta)) <= beta" is false left of the root and true right of it, so the
root's piece is found by testing breakpoints:

- method 'sort' (the paper's Algorithm 1): sort the breakpoints, sweep the partial sums,
  stop at the first breakpoint where the predicate holds. O(k log k), k = nnz(x).
- method 'partition' (Algorithm 2): quickselect with a random pivot; the breakpoints that a
  pivot decides (left or right of the root) leave the window and their partial sums are added
  once. Expected O(k).

Breakpoints outside the range of dl (the domain of (l')^-1: [-1, 0] y for hinge and logistic,
[-1, 1] for absolute, ...) are decided before either search (the paper's Section 3.3). On the
final piece s solves s in dl(A - C s), i.e. A - C s = prox_{C l}(A) (``_l1.piece_root``: closed
form, or safeguarded Newton for logistic and exponential). Coordinates with x_j = 0 only
shrink: w_j = S_{eta sigma}(v_j); inside the solver they are shrunk lazily (``_l1.settle``).
"""
import math
import threading

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

from ..core.checks import check_choice, check_interval, check_positive, sigma_keyword
from .l1 import deriv_min, enter, leave, piece_root, s_range, soft, xorshift
from .l1run import run_l1
from ..core.losses import loss_code, loss_deriv, loss_task

SORT = 0
PARTITION = 1
METHODS = {"sort": SORT, "partition": PARTITION}
_NO_INDEX = np.zeros(0, dtype=np.int64)  # dense rows: coordinate p is column p
# The switch to _far_step: eta sigma beyond FAR max(|w_j|, 1/M, |y|/M), M = max|x_j|. Below
# it the ordinary step's rounding (eps eta sigma in u_j = S(w_j - eta s x_j)) is at most 16
# eps of that scale; above it _far_step's terms are of that scale (s is within FAR^-1
# sigma/M of its edge wherever u != 0), so neither path loses more than 4 bits.
FAR = 2.0 ** 4


@njit(cache=True)
def _holds(code, y, A, C, beta):
    """The predicate 'min dl(g(beta)) <= beta' with g(beta) = A - C beta: true iff the root
    s* of s in dl(g(s)) satisfies s* <= beta (false left of the root, true right of it)."""
    if beta == np.inf:
        return True
    if beta == -np.inf:
        return False
    return deriv_min(code, A - C * beta, y) <= beta


@njit(cache=True)
def sort_piece(code, y, val, sw, k, Adec, Cdec, sl, sh):
    """Algorithm 1: the root's piece by sorting the k candidate breakpoints and sweeping.
    ``sw`` holds +om_j for a lo-breakpoint, -om_j for a hi-breakpoint. Returns (A, C, sl,
    sh): g(s) = A - C s on [sl, sh]."""
    order = np.argsort(val[:k])
    sv = val[order]  # gathered once, so the sweep reads memory in order
    ss = sw[order]
    # suffix sums of the lo-breakpoints (those right of s contribute), so no running
    # subtraction loses accuracy; the hi-breakpoints left of s are summed as the sweep
    # goes
    sufA = np.zeros(k + 1)
    sufC = np.zeros(k + 1)
    for r in range(k - 1, -1, -1):
        sufA[r] = sufA[r + 1]
        sufC[r] = sufC[r + 1]
        if ss[r] > 0.0:
            sufA[r] += ss[r] * sv[r]
            sufC[r] += ss[r]
    Ahi = 0.0
    Chi = 0.0
    i = 0
    while i < k:
        beta = sv[i]
        j = i  # the group of breakpoints equal to beta (ties)
        gA = 0.0
        gC = 0.0
        while j < k and sv[j] == beta:
            if ss[j] < 0.0:
                gA -= ss[j] * sv[j]
                gC -= ss[j]
            j += 1
        # at s = beta the group contributes 0: lo's right of beta, hi's left of beta
        if _holds(code, y, Adec + sufA[j] + Ahi, Cdec + sufC[j] + Chi, beta):
            return Adec + sufA[i] + Ahi, Cdec + sufC[i] + Chi, sl, beta
        Ahi += gA
        Chi += gC
        sl = beta
        i = j
    return Adec + Ahi, Cdec + Chi, sl, sh


@njit(cache=True)
def partition_piece(code, y, val, sw, k, Adec, Cdec, sl, sh, rng):
    """Algorithm 2: the root's piece by randomized selection. The window [lo, hi) holds the
    undecided breakpoints; each round moves a random pivot beta to the window's end,
    partitions the rest into [lo, lt) < beta <= [lt, hi - 1), puts the pivot at lt,
    evaluates g(beta) from the decided sums plus the window's part, and keeps one side.
    The loop is branch-free (Lomuto's scheme with an unconditional swap and 0/1 masks in
    the sums): which side an element goes to is data, not a jump the processor guesses."""
    lo = 0
    hi = k
    while lo < hi:
        p = lo + int(xorshift(rng) % np.uint64(hi - lo))
        beta = val[p]
        bo = sw[p]
        last = hi - 1
        val[p] = val[last]
        sw[p] = sw[last]
        val[last] = beta
        sw[last] = bo
        lt = lo
        LA = 0.0  # hi-breakpoints left of beta (they contribute at beta)
        LC = 0.0
        RA = 0.0  # lo-breakpoints right of beta, strictly (they contribute at beta)
        RC = 0.0
        TA = 0.0  # lo-breakpoints equal to beta (ties; they contribute left of beta)
        TC = 0.0
        for i in range(lo, last):
            v = val[i]
            o = sw[i]
            val[i] = val[lt]
            sw[i] = sw[lt]
            val[lt] = v
            sw[lt] = o
            less = v < beta
            lt += 1 if less else 0
            c = abs(o)
            a = c * v
            is_lo = o > 0.0
            m_l = 1.0 if (less & (not is_lo)) else 0.0
            m_r = 1.0 if (is_lo & (v > beta)) else 0.0
            m_t = 1.0 if (is_lo & (v == beta)) else 0.0
            LA += m_l * a
            LC += m_l * c
            RA += m_r * a
            RC += m_r * c
            TA += m_t * a
            TC += m_t * c
        val[last] = val[lt]  # the pivot to its place
        sw[last] = sw[lt]
        val[lt] = beta
        sw[lt] = bo
        if _holds(code, y, Adec + LA + RA, Cdec + LC + RC, beta):
            # root <= beta: the pivot and everything right of it are decided 'right'
            Adec += RA + TA
            Cdec += RC + TC
            if bo > 0.0:
                Adec += bo * beta
                Cdec += bo
            sh = beta
            hi = lt
        else:
            # root > beta: the pivot and everything left of it are decided 'left'
            Adec += LA
            Cdec += LC
            if bo < 0.0:
                Adec -= bo * beta
                Cdec -= bo
            sl = beta
            lo = lt + 1
    return Adec, Cdec, sl, sh


@njit(cache=True, fastmath={"reassoc"})
def _row_dot(w, data, indices, start, stop, dense):
    """<w, x> of the row (sums reassociated, so the loop vectorizes)."""
    z = 0.0
    if dense:
        for p in range(start, stop):
            z += w[p] * data[p]
    else:
        for p in range(start, stop):
            z += w[indices[p]] * data[p]
    return z


@njit(cache=True)
def _terms(x, v, eta, thr, sl, sh):
    """One coordinate's share of :func:`_pieces_at`: (Al, Cl, Ah, Ch, changed)."""
    ul = v - (eta * sl) * x
    uh = v - (eta * sh) * x
    st_l = (1.0 if ul > thr else 0.0) - (1.0 if ul < -thr else 0.0)
    st_h = (1.0 if uh > thr else 0.0) - (1.0 if uh < -thr else 0.0)
    changed = 1.0 if (st_h != st_l) & (x != 0.0) else 0.0
    return (abs(st_l) * x * (v - thr * st_l), abs(st_l) * x * x,
            abs(st_h) * x * (v - thr * st_h), abs(st_h) * x * x, changed)


@njit(cache=True, fastmath={"reassoc"})
def _pieces_at(w, data, indices, start, stop, dense, eta, thr, sl, sh):
    """One read-only pass over the row, branch-free (it vectorizes on dense rows). With
    u_j(s) = w_j - eta s x_j and state_j(s) = +1, 0, -1 as u_j > thr, |u_j| <= thr,
    u_j < -thr: returns (Al, Cl, Ah, Ch, changes), where A = sum of x_j (w_j - thr state_j)
    and C = eta sum of x_j^2 over the active coordinates (state != 0) at sl and at sh (g(s)
    = A - C s on the piece at that point), and ``changes`` counts the coordinates whose
    state differs between sl and sh: 0 means no breakpoint lies strictly inside (sl, sh).
    Only reassociation is allowed: the sums vectorize, comparisons keep IEEE meaning."""
    Al = 0.0
    Cl = 0.0
    Ah = 0.0
    Ch = 0.0
    changes = 0.0
    if dense:  # two loops, so that the dense one is a plain vectorizable loop
        for p in range(start, stop):
            a, b, c, d, e = _terms(data[p], w[p], eta, thr, sl, sh)
            Al += a
            Cl += b
            Ah += c
            Ch += d
            changes += e
    else:
        for p in range(start, stop):
            a, b, c, d, e = _terms(data[p], w[indices[p]], eta, thr, sl, sh)
            Al += a
            Cl += b
            Ah += c
            Ch += d
            changes += e
    return Al, eta * Cl, Ah, eta * Ch, changes


@njit(cache=True, fastmath={"reassoc"})
def _piece_at(w, data, indices, start, stop, dense, eta, thr, beta):
    """(A, C) of the piece of g at beta (:func:`_pieces_at` at one point, a third of its
    work): the sums of x_j (w_j - thr sign u_j) and eta x_j^2 over the coordinates with
    |u_j| > thr, u_j = w_j - eta beta x_j. One read-only, branch-free pass."""
    eb = eta * beta
    A = 0.0
    C = 0.0
    if dense:
        for p in range(start, stop):
            x = data[p]
            v = w[p]
            u = v - eb * x
            on = 1.0 if abs(u) > thr else 0.0
            A += on * (x * (v - math.copysign(thr, u)))
            C += on * (x * x)
    else:
        for p in range(start, stop):
            x = data[p]
            v = w[indices[p]]
            u = v - eb * x
            on = 1.0 if abs(u) > thr else 0.0
            A += on * (x * (v - math.copysign(thr, u)))
            C += on * (x * x)
    return A, eta * C


@njit(cache=True)
def _soft_out(w, data, start, stop, es, thr, out):
    """out[p] = S_thr(w[p] - es data[p]) over a dense row: contiguous and branch-free (it
    vectorizes); NaN stays NaN."""
    for p in range(start, stop):
        u = w[p] - es * data[p]
        t = abs(u) - thr
        out[p] = math.copysign(t * (1.0 if t > 0.0 else 0.0), u)


@njit(cache=True, fastmath={"reassoc"})
def _write_checked(w, data, start, stop, eta, thr, beta, s, out):
    """The dense step's last pass, speculative: writes out = S_thr(w - eta s x) (as
    :func:`_soft_out`) and counts the coordinates whose state (u > thr, |u| <= thr,
    u < -thr) differs between beta and s. 0 means s lies on beta's piece, so that out is
    the step; otherwise the caller computes out again. w is only read (out must differ)."""
    es = eta * s
    eb = eta * beta
    changes = 0
    for p in range(start, stop):
        x = data[p]
        v = w[p]
        u = v - es * x
        t = abs(u) - thr
        out[p] = math.copysign(t * (1.0 if t > 0.0 else 0.0), u)
        ub = v - eb * x  # x_j = 0: ub = u, no change
        changes += ((u > thr) != (ub > thr)) | ((u < -thr) != (ub < -thr))
    return changes


@njit(cache=True)
def _bracket(code, y, w, data, indices, start, stop, dense, eta, thr, sl, sh, out, z):
    """The partition step's first phase: Newton steps on the pieces of g, each evaluated
    straight from the row in one read-only pass. From beta, the next point is the root of
    beta's piece; if no breakpoint lies between the two points, that root is s* and the
    piece is known: returns (lo, hi, A, C, True, written) with g = A - C s on [lo, hi] and
    nothing left to select. On a dense row the check that no breakpoint lies between the two
    points is made while the step at the new point is written to ``out``
    (:func:`_write_checked`): then written is True, lo = hi = s* and the step is done in
    three passes over the row (the margin, the piece at beta, the checked write). Otherwise
    each evaluation narrows the range [sl, sh] holding s* (the predicate of ``_holds``), and
    after five steps, or a non-finite value, returns (sl, sh, 0, 0, False, False): the
    selection then runs on the breakpoints inside, those outside being decided as they are
    built (as the paper's Section 3.3 does with the range of dl)."""
    if z != z:  # not given (NaN): <w, x>
        z = _row_dot(w, data, indices, start, stop, dense)
    beta = loss_deriv(code, z, y)  # the explicit step's s: where the search starts
    if not (sl < beta < sh and math.isfinite(beta)):
        return sl, sh, 0.0, 0.0, False, False
    A, C = _piece_at(w, data, indices, start, stop, dense, eta, thr, beta)
    for _ in range(5):
        if not (math.isfinite(A) and math.isfinite(C)):
            break
        if deriv_min(code, A - C * beta, y) <= beta:
            sh = beta
        else:
            sl = beta
        nb = piece_root(code, A, C, y) if C > 0.0 else loss_deriv(code, A, y)
        if nb == beta:
            return beta, beta, A, C, True, False
        if not (sl <= nb <= sh and math.isfinite(nb)):
            break
        if dense:  # write the step at nb and check in the same pass that nb is the root
            if _write_checked(w, data, start, stop, eta, thr, beta, nb, out) == 0:
                return nb, nb, A, C, True, True  # out holds S(w - eta nb x)
        lo, hi = min(nb, beta), max(nb, beta)
        Al, Cl, Ah, Ch, changes = _pieces_at(w, data, indices, start, stop, dense, eta, thr,
                                             lo, hi)
        A, C = (Al, Cl) if nb < beta else (Ah, Ch)
        if changes == 0 and math.isfinite(A) and math.isfinite(C):
            return lo, hi, A, C, True, False  # nb: the root of a piece that holds it
        beta = nb
        if not (sl < beta < sh):
            break
    return sl, sh, 0.0, 0.0, False, False


@njit(cache=True)
def step_row(w, data, indices, start, stop, y, eta, sigma, code, method, val, sw, rng):
    """One exact fully implicit step on the row data/indices[start:stop] (CSR, or a dense row
    with indices 0..n-1), updating w in place at those coordinates; returns the scalar s.
    Scratch arrays val and sw (float64) need 2 (stop - start) entries."""
    return _step(w, data, indices, start, stop, False, y, eta, sigma, code, method, val, sw,
                 rng, w, math.nan)


@njit(cache=True)
def _step(w, data, indices, start, stop, dense, y, eta, sigma, code, method, val, sw, rng,
          out, z0):
    """step_row's body; ``dense``: the row is all of w (coordinate p, indices unused), and
    the new iterate is written to ``out``, an array other than w (the partition method may
    write a candidate there before it knows s); sparse rows update w in place."""
    thr = eta * sigma
    smin, smax = s_range(code, y)
    done = False
    if method == 1:  # partition: narrow the range first (few read-only passes)
        smin, smax, A, C, done, written = _bracket(code, y, w, data, indices, start, stop,
                                                   dense, eta, thr, smin, smax, out, z0)
        if written:
            return smin  # the step at s = smin is in out (dense rows)
    if not done:
        A, C, smin, smax = _select(w, data, indices, start, stop, dense, y, eta, sigma, code,
                                   method, val, sw, rng, smin, smax)
    sl, sh = smin, smax
    if C > 0.0:
        s = piece_root(code, A, C, y)  # s in dl(A - C s)
    else:  # g is constant on the piece: w does not depend on s there
        s = loss_deriv(code, A, y)
    s = min(max(s, sl), sh)  # rounding only
    if dense:
        _soft_out(w, data, start, stop, eta * s, thr, out)
    else:
        for p in range(start, stop):
            j = indices[p]
            w[j] = soft(w[j] - eta * s * data[p], thr)
    return s


@njit(cache=True)
def _select(w, data, indices, start, stop, dense, y, eta, sigma, code, method, val, sw, rng,
            smin, smax):
    """Build the breakpoints inside (smin, smax) (those outside are decided at once) and
    select the root's piece among them by sorting or partitioning: (A, C, sl, sh)."""
    thr = eta * sigma
    Adec = 0.0  # partial sums of the breakpoints decided before the search
    Cdec = 0.0
    k = 0
    for p in range(start, stop):
        xj = data[p]
        if xj == 0.0:
            continue
        vj = w[p if dense else indices[p]]
        o = eta * xj * xj
        if o == 0.0:  # eta x_j^2 underflows: w_j = S(v_j) whatever s is
            Adec += xj * soft(vj, thr)
            continue
        ax = abs(xj)
        base = vj / (eta * xj)
        q = sigma / ax
        # lo_j = base - q (weight +om_j), hi_j = base + q (weight -om_j)
        b = base - q
        if b >= smax:  # right of every possible root: contributes om_j lo_j - om_j s
            Adec += xj * vj - thr * ax  # om_j lo_j, without the division
            Cdec += o
        elif b > smin:
            val[k] = b
            sw[k] = o
            k += 1
        b = base + q
        if b <= smin:  # left of every possible root: contributes om_j hi_j - om_j s
            Adec += xj * vj + thr * ax
            Cdec += o
        elif b < smax:
            val[k] = b
            sw[k] = -o
            k += 1
    return _piece(code, y, val, sw, k, Adec, Cdec, smin, smax, rng, method)


def _piece(code, y, val, sw, k, Adec, Cdec, sl, sh, rng, method):
    """The root's piece among the k breakpoints, by sorting (method 0) or partitioning
    (method 1): the search of :func:`_select`. Where ``method`` is a compile-time constant
    (:func:`fiol_steps_partition`, a default call) only that search is compiled
    (:func:`_piece_overload`): a default call (partition) never compiles the sort."""
    if method == SORT:
        return sort_piece(code, y, val, sw, k, Adec, Cdec, sl, sh)
    return partition_piece(code, y, val, sw, k, Adec, Cdec, sl, sh, rng)


@overload(_piece, prefer_literal=True)
def _piece_overload(code, y, val, sw, k, Adec, Cdec, sl, sh, rng, method):
    """:func:`_piece` in compiled code: one search for a constant ``method``, both (chosen
    at run time) otherwise."""
    if not isinstance(method, types.IntegerLiteral):
        return _piece
    if method.literal_value == SORT:
        def by_sort(code, y, val, sw, k, Adec, Cdec, sl, sh, rng, method):
            return sort_piece(code, y, val, sw, k, Adec, Cdec, sl, sh)
        return by_sort

    def by_partition(code, y, val, sw, k, Adec, Cdec, sl, sh, rng, method):
        return partition_piece(code, y, val, sw, k, Adec, Cdec, sl, sh, rng)
    return by_partition


@njit(cache=True)
def _edge_u(xj, wj, tau, xi, d, thr2):
    """u_j = S_thr(w_j - eta s x_j) at s = e sigma/M + tau/eta, written without the huge
    terms (see :func:`_far_step`): xi = e sign(x_j), d = thr (M - |x_j|)/M, thr2 = 2 thr."""
    if d == math.inf:
        return 0.0  # |x_j| so far below M that no tau of interest makes u_j active
    v = wj - tau * xj
    if xi > 0.0:
        a = v + d
        return min(a, 0.0) + max(a - thr2, 0.0)
    a = v - d
    return max(a, 0.0) + min(a + thr2, 0.0)


@njit(cache=True)
def _edge_z(w, x, indices, start, stop, dense, tau, e, M, eta, sigma, thr2):
    """(z, A, C) at tau: z = <x, u(tau)>, and g = A - C tau on the piece holding tau, A
    and C summed from the active coordinates' own terms (so that A - C tau near the root
    cancels nothing that z itself does not)."""
    z = 0.0
    A = 0.0
    C = 0.0
    for p in range(start, stop):
        xj = x[p]
        j = p if dense else indices[p]
        if xj == 0.0:
            continue
        xi = e if xj > 0.0 else -e
        d = eta * (sigma * ((M - abs(xj)) / M))
        u = _edge_u(xj, w[j], tau, xi, d, thr2)
        z += xj * u
        if u != 0.0:
            a = w[j] + xi * d  # u_j = a - tau x_j on the inner branch
            if xi * u > 0.0:  # the outer branch, beyond 2 thr
                a -= xi * thr2
            A += xj * a
            C += xj * xj
    return z, A, C


@njit(cache=True)
def _two_prod(a, b):
    """(p, err) with p = fl(a b) and p + err = a b exactly (Dekker's product; |a|, |b| well
    inside the double range)."""
    p = a * b
    f = 134217729.0  # 2^27 + 1: Veltkamp's split
    ca = f * a
    ah = ca - (ca - a)
    al = a - ah
    cb = f * b
    bh = cb - (cb - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


@njit(cache=True)
def _edge_holds(code, y, z, e, sigma, M, tau, eta):
    """The predicate of ``_holds`` at s = e sigma/M + tau/eta, as
    (deriv_min(z) M - e sigma)/M <= tau/eta: the difference from the edge is formed with
    an exact product (e sigma/M itself is never rounded, nor added to tau/eta, which at a
    huge eta it would swallow); where the loss's derivative is flat, tau/eta is that
    difference and needs every bit."""
    p, err = _two_prod(deriv_min(code, z, y), M)
    r = (p - e * sigma) + err
    if not math.isfinite(r):
        r = p - e * sigma
    return r / M <= tau / eta


@njit(cache=True)
def _far_step(w, x, indices, start, stop, dense, y, eta, sigma, code, M, out):
    """The exact step at an eta so large that eta sigma dwarfs w and 1/max|x_j| (module
    docstring of the step; used beyond eta sigma = FAR max(|w_j|, 1/M, |y|/M), FAR = 2^4).

    Then s lies within O(1/eta) of an edge e sigma/M of the interval where u = 0 (M =
    max|x_j|, e = +-1), and u_j = S_thr(w_j - eta s x_j) is the difference of numbers near
    thr = eta sigma: computed as it stands it loses log2(thr / scale) bits (every one at
    eta = 1e300, where it rounded to 0). With s = e sigma/M + tau/eta
    (exact change of variable), w_j - eta s x_j = v_j - xi_j thr + xi_j d_j with
    v_j = w_j - tau x_j, xi_j = e sign(x_j) and d_j = thr (M - |x_j|)/M (M - |x_j| is exact),
    so u_j = min(v_j + d_j, 0) + max(v_j + d_j - 2 thr, 0) for xi_j = +1 (mirrored for -1):
    no term near thr is ever subtracted. z(tau) = <x, u(tau)> is piecewise linear and
    non-increasing in tau; the root of 'deriv_min(z) - e sigma/M <= tau/eta' is found by a
    binary search over the sorted breakpoints of tau and a bisection to adjacent doubles on
    the last piece. The row is x[start:stop] at coordinates indices[start:stop] (``dense``:
    coordinate p); writes u to ``out`` at those coordinates (out may be w: each w_j is read
    before its u_j is written). Returns (e sigma/M, tau): s = e sigma/M + tau/eta."""
    n = stop - start
    thr = eta * sigma
    thr2 = 2.0 * thr
    # which edge: s* <= 0 iff the predicate holds at s = 0, where u = S_thr(w)
    z0 = 0.0
    for p in range(start, stop):
        z0 += x[p] * soft(w[p if dense else indices[p]], thr)
    e = -1.0 if deriv_min(code, z0, y) <= 0.0 else 1.0
    s0 = e * sigma / M
    bps = np.empty(2 * n)
    k = 0
    for p in range(start, stop):
        xj = x[p]
        j = p if dense else indices[p]
        if xj == 0.0:
            continue
        d = eta * (sigma * ((M - abs(xj)) / M))
        if d == math.inf:
            continue
        xi = e if xj > 0.0 else -e  # u_j is active where xi (v_j + xi d_j) < 0 or > 2 thr
        for b in ((w[j] + xi * d) / xj, (w[j] + xi * (d - thr2)) / xj):
            if math.isfinite(b):
                bps[k] = b
                k += 1
    bps = np.sort(bps[:k])
    # the first breakpoint where the predicate holds (k: none)
    lo_i = 0
    hi_i = k
    while lo_i < hi_i:
        mid = (lo_i + hi_i) // 2
        z, _a, _c = _edge_z(w, x, indices, start, stop, dense, bps[mid], e, M, eta, sigma, thr2)
        if _edge_holds(code, y, z, e, sigma, M, bps[mid], eta):
            hi_i = mid
        else:
            lo_i = mid + 1
    tl = bps[lo_i - 1] if lo_i > 0 else -math.inf
    th = bps[lo_i] if lo_i < k else math.inf
    # z is linear on [tl, th]: z(tau) = A - C tau, read at a point inside
    if math.isfinite(tl) and math.isfinite(th):
        tm = 0.5 * (tl + th)
    elif math.isfinite(tl):
        tm = tl + max(1.0, abs(tl))
    elif math.isfinite(th):
        tm = th - max(1.0, abs(th))
    else:
        tm = 0.0
    _z, A, C = _edge_z(w, x, indices, start, stop, dense, tm, e, M, eta, sigma, thr2)
    lo = tl if math.isfinite(tl) else tm
    step = max(1.0, abs(tm))
    while not math.isfinite(tl) and _edge_holds(code, y, A - C * lo, e, sigma, M, lo, eta):
        lo -= step
        step *= 2.0
        if not math.isfinite(lo):
            break
    hi = th if math.isfinite(th) else tm
    step = max(1.0, abs(tm))
    while not math.isfinite(th) and not _edge_holds(code, y, A - C * hi, e, sigma, M, hi,
                                                    eta):
        hi += step
        step *= 2.0
        if not math.isfinite(hi):
            break
    for _ in range(4200):  # bisection to adjacent doubles
        mid = 0.5 * (lo + hi)
        if not (lo < mid < hi):
            break
        if _edge_holds(code, y, A - C * mid, e, sigma, M, mid, eta):
            hi = mid
        else:
            lo = mid
    tau = hi
    for p in range(start, stop):
        xj = x[p]
        j = p if dense else indices[p]
        if xj == 0.0:
            out[j] = soft(w[j], thr)
            continue
        d = eta * (sigma * ((M - abs(xj)) / M))
        out[j] = _edge_u(xj, w[j], tau, e if xj > 0.0 else -e, d, thr2)
    return s0, tau


_SCRATCH = threading.local()


def _scratch(k):
    """Two scratch arrays of at least 2k entries, reused between calls (per thread): fresh
    ones cost page faults comparable to the step itself at large k."""
    have = getattr(_SCRATCH, "pair", None)
    if have is None or have[0].shape[0] < 2 * k:
        have = (np.empty(2 * k), np.empty(2 * k))
        _SCRATCH.pair = have
    return have


@njit(cache=True)
def _row_far(w, data, indices, start, stop, y, thr):
    """(far, M) for a CSR row: M = max|x_j| and whether thr = eta sigma is beyond
    FAR max(|w_j|, 1/M, |y|/M) over the row's coordinates (``_far`` of ``fiol_step``)."""
    Mw = 0.0
    M = 0.0
    for p in range(start, stop):
        Mw = max(Mw, abs(w[indices[p]]))
        M = max(M, abs(data[p]))
    if M == 0.0:
        return False, M
    return thr > FAR * max(Mw, 1.0 / M, abs(y) / M), M


def _run_steps(data, indices, indptr, y, w, last, state, order, start, stop, t_first, eta0,
               sched, sigma, code, look_ahead, method, val, sw, rng, far):
    """The loop kernel of fiol for ``run_l1``: :func:`fiol_steps_far` when ``far`` (eta
    sigma may be so large that a row needs :func:`_far_step`; each row is then checked,
    one pass over it), else :func:`fiol_steps`. Two kernels: the far path (``_far_step``,
    its own sort and bisection) is about a quarter of fiol's compile time, and a run
    whose steps cannot reach it (every default call) never compiles it."""
    if not far and method == PARTITION:  # every default call
        fiol_steps_partition(data, indices, indptr, y, w, last, state, order, start, stop,
                             t_first, eta0, sched, sigma, code, look_ahead, val, sw, rng)
        return
    kernel = fiol_steps_far if far else fiol_steps
    kernel(data, indices, indptr, y, w, last, state, order, start, stop, t_first, eta0,
           sched, sigma, code, look_ahead, method, val, sw, rng)


@njit(cache=True)
def fiol_steps_partition(data, indices, indptr, y, w, last, state, order, start, stop,
                         t_first, eta0, sched, sigma, code, look_ahead, val, sw, rng):
    """:func:`fiol_steps` with the partition method (the default) as a compile-time
    constant: numba types the constant as a literal down to :func:`_piece`, which then
    compiles the partition's search alone, not the sort's (about a fifth of fiol's
    compile time). The same steps to the bit."""
    fiol_steps(data, indices, indptr, y, w, last, state, order, start, stop, t_first, eta0,
               sched, sigma, code, look_ahead, PARTITION, val, sw, rng)


@njit(cache=True)
def fiol_steps(data, indices, indptr, y, w, last, state, order, start, stop, t_first, eta0,
               sched, sigma, code, look_ahead, method, val, sw, rng):
    """Fully implicit steps on examples order[start:stop] from step t_first; state[0]
    is U (the loop of every l1 method, ``l1.py``), when no row can reach the far regime
    (else :func:`fiol_steps_far`)."""
    U = state[0]
    for k in range(start, stop):
        i, a, b, eta = enter(data, indices, indptr, order, k, stop, w, last, U,
                             t_first + k - start, eta0, sched, look_ahead)
        step_row(w, data, indices, a, b, y[i], eta, sigma, code, method, val, sw, rng)
        U = leave(indices, a, b, last, U, eta * sigma)
    state[0] = U


@njit(cache=True)
def fiol_steps_far(data, indices, indptr, y, w, last, state, order, start, stop, t_first,
                   eta0, sched, sigma, code, look_ahead, method, val, sw, rng):
    """:func:`fiol_steps` when a row may reach the far regime: each row is checked."""
    U = state[0]
    for k in range(start, stop):
        i, a, b, eta = enter(data, indices, indptr, order, k, stop, w, last, U,
                             t_first + k - start, eta0, sched, look_ahead)
        here, M = _row_far(w, data, indices, a, b, y[i], eta * sigma)
        if here:
            _far_step(w, data, indices, a, b, False, y[i], eta, sigma, code, M, w)
        else:
            step_row(w, data, indices, a, b, y[i], eta, sigma, code, method, val, sw, rng)
        U = leave(indices, a, b, last, U, eta * sigma)
    state[0] = U


def pivot_state(seed):
    """The partition algorithm's generator state for a seed.

    Parameters
    ----------
    seed : int >= 0
        The solver's seed.

    Returns
    -------
    numpy.ndarray of uint64, shape (1,)
        The state of the xorshift generator that draws the pivots, never zero.

    Examples
    --------
    >>> from rlmlib.solvers.fiol import pivot_state
    >>> pivot_state(0).tolist(), bool(pivot_state(1)[0] != pivot_state(2)[0])
    ([1], True)
    """
    return np.array([(int(seed) * 0x9E3779B97F4A7C15 + 1) % (1 << 64) or 1], dtype=np.uint64)


@njit(cache=True, fastmath={"reassoc"})
def _scan_wx(w, x, bw, bx):
    """(max bits of |w_i|, max bits of |x_i|, <w, x>) in one pass over both arrays (bw =
    w.view(uint64), bx likewise, all of equal length): for doubles without their sign the
    integer order is the numeric order, and NaN and inf lie above every finite value;
    integer reductions and a reassociated sum, so the loop vectorizes."""
    mw = np.uint64(0)
    mx = np.uint64(0)
    mask = np.uint64(0x7FFFFFFFFFFFFFFF)
    z = 0.0
    for i in range(bw.shape[0]):
        mw = max(mw, bw[i] & mask)
        mx = max(mx, bx[i] & mask)
        z += w[i] * x[i]
    return mw, mx, z


def _max_abs(w, x):
    """(max |w_i|, max |x_i|, <w, x>) of two contiguous float64 arrays of equal length in
    one pass; a maximum is inf for an array holding NaN or inf (0 for empty arrays), and
    the product is then meaningless."""
    mw, mx, z = _scan_wx(w, x, w.view(np.uint64), x.view(np.uint64))
    bits = np.array([mw, mx], dtype=np.uint64)
    vals = bits.view(np.float64)
    return tuple(math.inf if b >= 0x7FF0000000000000 else float(v)
                 for b, v in zip(bits.tolist(), vals)) + (float(z),)


def check_step_args(w, x, y, eta, sigma, loss, method, copy=True):
    """The arguments of one :func:`fiol_step`, validated (shared with the exercise checkers).

    Parameters
    ----------
    w, x : array-like, shape (n,)
        Weights and example, finite.
    y : float
        Label -1/+1 (classification loss) or target.
    eta : float > 0
        Step size.
    sigma : float >= 0
        Weight of the l1 regularizer.
    loss : str
        One of ``rlmlib.LOSSES``.
    method : {'sort', 'partition'}
        Algorithm of the step (see :func:`fiol_step`).
    copy : bool
        Return w as a new array (default); False: as given when it is already a contiguous
        float64 array (for a caller that only reads it).

    Returns
    -------
    tuple
        (w as a new float64 array (as given with ``copy=False``), x, y as float, eta,
        sigma, loss code, method code).

    Raises
    ------
    ValueError
        For a bad argument (named in the message; a non-finite entry by index and value).
    TypeError
        For w or x that do not hold real numbers (complex values are refused, not cast).

    Examples
    --------
    >>> from rlmlib.solvers.fiol import check_step_args
    >>> w, x, y, eta, sigma, code, method = check_step_args([0, 1], [1, 2], 1, 0.5, 0.1,
    ...                                                     "hinge", "sort")
    >>> w.tolist(), y, eta
    ([0.0, 1.0], 1.0, 0.5)
    >>> check_step_args([0, 1], [1, 2], 0.5, 0.5, 0.1, "hinge", "sort")
    Traceback (most recent call last):
    ...
    ValueError: y must be -1 or +1 for the 'hinge' loss; got 0.5
    """
    return _checked(w, x, y, eta, sigma, loss, method, copy)[:7]


def _checked(w, x, y, eta, sigma, loss, method, copy):
    """:func:`check_step_args`'s checks; returns its tuple and (max|w_j|, max|x_j|,
    <w, x>), measured in the same pass."""
    code = loss_code(loss)
    method_code = METHODS[check_choice("method", method, tuple(METHODS))]
    eta = check_positive("eta", eta)
    sigma = check_interval("sigma", sigma, 0.0, math.inf, True, False)
    for arg, v in (("w", w), ("x", x)):  # before float64 drops an imaginary part in silence
        kind = v.dtype.kind if isinstance(v, np.ndarray) else np.asarray(v).dtype.kind
        if kind not in "biuf":
            raise TypeError(f"{arg} must hold real numbers, got an array of dtype "
                            f"{np.asarray(v).dtype}" + ("; complex values are refused: pass "
                            "the real part or the modulus explicitly" if kind == "c" else ""))
    w = np.array(w, dtype=np.float64) if copy else np.ascontiguousarray(w, dtype=np.float64)
    x = np.ascontiguousarray(x, dtype=np.float64)
    if not w.flags.writeable:  # a read-only view (numba types it apart): read from a copy
        w = w.copy()
    if not x.flags.writeable:
        x = x.copy()
    if w.ndim != 1 or x.ndim != 1:
        raise ValueError(f"w and x must be 1-D arrays; got shapes {w.shape} and {x.shape}")
    if x.shape != w.shape:
        raise ValueError(f"x must have the length of w ({w.shape[0]}); got length {x.shape[0]}")
    Mw, Mx, z = _max_abs(w, x)  # one pass over both; NaN and inf come out as inf
    if not (Mw < math.inf and Mx < math.inf):
        arg, v = ("w", w) if not Mw < math.inf else ("x", x)
        j = int(np.flatnonzero(~np.isfinite(v))[0])
        raise ValueError(f"{arg} must be finite (no NaN or inf); got {arg}[{j}] = "
                         f"{float(v[j])!r}")
    if not (isinstance(y, (int, float, np.integer, np.floating)) and math.isfinite(y)):
        raise ValueError(f"y must be a finite real number; got {y!r}")
    y = float(y)
    if loss_task(loss) == "binary" and y not in (-1.0, 1.0):
        raise ValueError(f"y must be -1 or +1 for the {loss!r} loss; got {y!r}")
    if x.size:  # the implicit step's range: its slopes eta x_j^2 and margins stay finite
        M = Mx
        with np.errstate(over="ignore"):
            slope = eta * M * M * x.shape[0]
            margin = Mw * M * x.shape[0]
        if not (slope <= 2.0 ** 1020 and margin <= 2.0 ** 1020):
            raise ValueError(
                f"x is too large for the implicit step with eta={eta!r}: eta * max x_j^2 * n "
                f"= {slope:.3g} and max|w_j| max|x_j| n = {margin:.3g} must stay below "
                f"2**1020 (the slope of g and the margins the step sums); scale x or w down "
                f"or lower eta")
    return w, x, y, eta, sigma, code, method_code, Mw, Mx, z


def _far(eta, sigma, Mw, M, y):
    """Whether eta sigma is beyond FAR max(|w_j|, 1/M, |y|/M) = 16 scale, M = max|x_j|:
    there S_thr(w_j - eta s x_j) subtracts numbers near thr = eta sigma whose difference is
    of the order of w or z / x, and computed as it stands rounding (eps thr) would lose
    log2(thr / scale) bits (30 at 2^30 scale; at eta = 1e300 all: the step came out 0);
    :func:`_far_step` computes it without those subtractions."""
    scale = max(Mw, 1.0 / M, abs(y) / M) if M > 0.0 else math.inf
    return eta * sigma > FAR * scale


def fiol_step(w, x, y, *, eta, sigma, loss, method="sort", seed=0, return_s=False):
    """One exact fully implicit step with the l1 regularizer.

    Returns argmin_u l(<u, x>; y) + sigma ||u||_1 + ||u - w||^2 / (2 eta).

    Parameters
    ----------
    w : array-like, shape (n,)
        The current iterate (not modified).
    x : array-like, shape (n,)
        The example, a dense 1-D array (zeros allowed).
    y : float
        Label (-1 or +1 for classification losses) or target (regression losses).
    eta : float > 0
        Learning rate.
    sigma : float >= 0
        Weight of the l1 term (0 gives the implicit SGD step).
    loss : str
        One of ``rlmlib.LOSSES``.
    method : {'sort', 'partition'}
        Algorithm 1 (sort the breakpoints, O(n log n)) or Algorithm 2 (randomized selection,
        expected O(n)).
    seed : int
        Seed of the partition algorithm's pivots (the result does not depend on it beyond
        rounding).
    return_s : bool
        Also return the scalar s in dl(<u, x>) with u = S_{eta sigma}(w - eta s x).

    Returns
    -------
    ndarray, shape (n,)
        The new iterate (and s when ``return_s``).

    Raises
    ------
    ValueError
        For eta <= 0, sigma < 0, an unknown loss or method, x of the wrong length, non-finite
        entries, a label other than +-1 for a classification loss, or x beyond the step's
        range (eta max x_j^2 n or max|w_j| max|x_j| n above 2**1020).
    TypeError
        For w or x that do not hold real numbers (complex values are refused, not cast).

    Notes
    -----
    Beyond eta sigma = 16 max(|w_j|, 1/max|x_j|, |y|/max|x_j|) the soft threshold
    S_{eta sigma}(w_j - eta s x_j) would subtract numbers near eta sigma whose difference is
    of the order of w (losing log2 of their ratio in bits): there the step is computed in
    the variable tau = eta (s - e sigma/M), M = max|x_j|, e = +-1, where nothing near
    eta sigma is subtracted (``_far_step``; both methods), and it tends to
    argmin l(<u, x>) + sigma ||u||_1 as eta grows. The returned s is then
    e sigma/M + tau/eta rounded (into the range of the loss's derivative). An x whose
    largest entry lies outside [2^-32, 2^32] is first rescaled by a power of two (exact).
    Either way the step agrees with a high-precision reference to about
    1e-14 max(|w_j|, |u_j|) at any eta (tests/test_fiol.py).

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> rlmlib.fiol_step(np.zeros(2), np.array([1.0, 0.0]), 3.0, eta=1.0, sigma=0.5,
    ...                  loss="squared")
    array([1.25, 0.  ])
    >>> rlmlib.fiol_step(np.ones(2), np.array([2.0, 1.0]), 1.0, eta=1e300, sigma=0.1,
    ...                  loss="hinge")   # the limit: margin 1 on the largest |x_j|
    array([0.5, 0. ])
    """
    w, x, y, eta, sigma, code, mc, Mw, Mx, z = _checked(w, x, y, eta, sigma, loss, method,
                                                        False)
    n = x.shape[0]
    try:
        p = _binade(Mx, eta, sigma)
    except OverflowError:
        p = None
    if p is None:
        raise ValueError(
            f"x is out of the step's range: its largest entry {Mx:.3g} (with eta={eta:.3g}, "
            f"sigma={sigma:.3g}) needs a rescaling by a power of two that overflows; scale "
            f"x (and eta, sigma with it)")
    if p:  # x far from 1: the same step on x 2^-p, w 2^p, eta 4^p, sigma 2^-p (exact)
        try:
            w, x, Mw, Mx = (np.ldexp(w, p), np.ldexp(x, -p), math.ldexp(Mw, p),
                            math.ldexp(Mx, -p))
            eta, sigma = math.ldexp(eta, 2 * p), math.ldexp(sigma, -p)
        except OverflowError:
            raise ValueError(
                f"x is out of the step's range: its largest entry {Mx:.3g} (with "
                f"eta={eta:.3g}, sigma={sigma:.3g}, max|w_j| = {Mw:.3g}) needs a rescaling "
                f"by 2^{-p} that overflows; scale x (and eta, sigma with it)") from None
        if not (math.isfinite(eta) and np.isfinite(w).all()):
            raise ValueError(
                f"x is out of the step's range: its largest entry {Mx:.3g} (with "
                f"eta={eta:.3g}) needs a rescaling by 2^{-p} that overflows eta or w; "
                f"scale x (and eta, sigma with it)")
    out = np.empty(n)  # the new iterate; w (possibly the caller's array) is only read
    if _far(eta, sigma, Mw, Mx, y):
        s0, tau = _far_step(w, x, _NO_INDEX, 0, n, True, y, eta, sigma, code, Mx, out)
        smin, smax = s_range(code, y)
        s = min(max(s0 + tau / eta, smin), smax)  # rounded into the range of dl
    else:
        s = _step(w, x, _NO_INDEX, 0, n, True, y, eta, sigma, code, mc, *_scratch(n),
                  pivot_state(seed), out, z)
    if p:
        out = np.ldexp(out, -p, out=out)
    return (out, s) if return_s else out


def _binade(M, eta, sigma):
    """The power p of two by which :func:`fiol_step` rescales an x whose largest entry M
    lies outside [2^-32, 2^32] (0: none). The step is invariant under x -> x 2^-p,
    w -> w 2^p, eta -> eta 4^p, sigma -> sigma 2^-p, u -> u 2^p (with the same s, <u, x>
    and eta sigma / scale): every term of the objective keeps its value. At x near 1e200 and
    eta near 1e-200 the products eta s x_j of the unscaled step formed eta s first, which
    underflowed (s is of the order of 1/(eta M^2)): the step came out wrong by orders of
    magnitude. p = 0 where eta 4^p or a positive sigma 2^-p would fall below 2^-1000 (then
    eta x_j^2 or sigma is negligible and the unscaled step is accurate) or overflow."""
    if 2.0 ** -32 <= M <= 2.0 ** 32 or M == 0.0:
        return 0
    p = math.frexp(M)[1]  # M 2^-p in [1/2, 1)
    e2 = math.ldexp(eta, 2 * p)
    s2 = math.ldexp(sigma, -p)
    if not (2.0 ** -1000 < e2 < math.inf and (sigma == 0.0 or 2.0 ** -1000 < s2 < math.inf)):
        return 0
    return p


def breakpoints(w, x, *, eta, sigma):
    """The breakpoints of g(s) = <x, S_{eta sigma}(w - eta s x)>.

    Parameters
    ----------
    w, x : array-like, shape (n,)
        Current iterate and example.
    eta : float > 0
    sigma : float >= 0

    Returns
    -------
    lo, hi, weight : ndarray, each of length nnz(x)
        For the coordinates with x_j != 0 in order: lo_j = (w_j - eta sigma sign x_j) /
        (eta x_j), hi_j = lo_j + 2 sigma / |x_j|, and om_j = eta x_j^2 (g's slope changes
        by om_j at each of lo_j and hi_j).

    Examples
    --------
    >>> from rlmlib.solvers.fiol import breakpoints
    >>> breakpoints([1.0, 5.0], [2.0, 0.0], eta=0.5, sigma=1.0)
    (array([0.5]), array([1.5]), array([2.]))
    """
    w = np.asarray(w, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    nz = x != 0
    base = w[nz] / (eta * x[nz])
    q = sigma / np.abs(x[nz])
    return base - q, base + q, eta * x[nz] ** 2


def g_function(s, w, x, *, eta, sigma):
    """g(s) = <x, S_{eta sigma}(w - eta s x)>, evaluated directly (O(n) per value of s).

    Parameters
    ----------
    s : array-like
        Values of the scalar s.
    w, x : array-like, shape (n,)
    eta : float > 0
    sigma : float >= 0

    Returns
    -------
    ndarray
        g at each s (same shape as s).

    Examples
    --------
    >>> from rlmlib.solvers.fiol import g_function
    >>> g_function([0.0, 1.0], [1.0, 5.0], [2.0, 0.0], eta=0.5, sigma=1.0)
    array([1., 0.])
    """
    s = np.asarray(s, dtype=np.float64)
    u = np.asarray(w)[None, :] - eta * s.reshape(-1, 1) * np.asarray(x)[None, :]
    st = np.sign(u) * np.maximum(np.abs(u) - eta * sigma, 0.0)
    return (st @ np.asarray(x)).reshape(s.shape)


@sigma_keyword
def fiol(X, y, *, sigma, eta=None, epochs, loss, method="partition", schedule=None, seed=0,
         order="reshuffle", n_checkpoints=None, X_test=None, y_test=None, progress=False):
    """Fully implicit online learning on F(w) = sigma ||w||_1 + (1/m) sum_i l(<w, x_i>; y_i).

    Each step is the exact fully implicit step (``rlmlib.fiol_step``) on one example; on sparse
    rows the untouched coordinates are shrunk lazily, so a step costs O(nnz log nnz) (sort)
    or expected O(nnz) (partition). At an eta so large that eta sigma dwarfs the row's w and
    1/max|x_j| the step is computed as ``fiol_step`` computes it there (see its Notes).

    Parameters
    ----------
    X : array-like or sparse matrix, shape (m, n)
    y : array-like, shape (m,)
        Labels (any two values, mapped to -1/+1) or real targets for 'squared'/'absolute'.
    sigma : float >= 0
        Weight of the l1 regularizer (0: implicit SGD).
    eta : float > 0 or None
        Learning rate eta (the first one for a decreasing schedule). None (the default):
        eta = 1/L, L = smoothness · max‖x‖² + σ (1 for a kinked loss), with ``schedule``
        'slow_invsqrt'; see "Accuracy" in ``rlmlib.comid`` (the budget: 500 epochs).
    epochs : int >= 1
    loss : str
        One of ``rlmlib.LOSSES``.
    method : {'partition', 'sort'}
        Algorithm 2 (default) or Algorithm 1 for the step.
    schedule : {'constant', 'invsqrt', 'slow_invsqrt'} or None
        eta_t = eta, eta / sqrt(t + 1), or eta / sqrt(1 + t / (10 m)) at step t = 0, 1, ...
        None: 'constant' for a given eta, 'slow_invsqrt' when eta is None.
    seed : int >= 0
        Seed of the example order and of the partition's pivots.
    order : {'reshuffle', 'shuffle_once', 'cyclic'}
    n_checkpoints : int or None
        None: no intermediate evaluation (the end objective is computed on first access).
    X_test, y_test : optional held-out set (accuracy or MSE in the trace)
    progress : bool

    Returns
    -------
    Result
        ``res.w`` (every lazy shrink applied), ``res.objective``, ``res.trace``;
        ``res.params['eta']`` the eta used, ``res.params['default']`` whether the default
        rule chose it.

    Raises
    ------
    ValueError
        For a bad argument (named), before any step.
    FloatingPointError
        If the weights overflow.

    Examples
    --------
    >>> import numpy as np, rlmlib
    >>> X = np.eye(3); y = np.array([1.0, -2.0, 0.1])
    >>> res = rlmlib.fiol(X, y, sigma=0.1, eta=0.5, epochs=50, loss="squared")
    >>> f0 = rlmlib.l1_objective(X, y, np.zeros(3), sigma=0.1, loss="squared")
    >>> bool(res.objective < f0)
    True
    """
    mc = METHODS[check_choice("method", method, tuple(METHODS))]

    def own(p):  # the step's scratch (2 entries per non-zero of the longest row), pivots,
        # and whether a step can reach the far regime of fiol_step (eta sigma beyond
        # FAR / max|x_j| needs eta sigma beyond FAR / R: checked per row only then)
        width = int(np.max(np.diff(p.rows.indptr))) if p.m else 0
        far = p.R > 0.0 and p.sigma * float(p.eta) > FAR / p.R
        return (mc, np.empty(2 * width + 1), np.empty(2 * width + 1), pivot_state(p.seed),
                far)

    return run_l1("fiol", _run_steps, X, y, sigma=sigma, eta=eta, epochs=epochs, loss=loss,
                  schedule=schedule, seed=seed, order=order, n_checkpoints=n_checkpoints,
                  X_test=X_test, y_test=y_test, progress=progress, own=own,
                  own_params={"method": method})


def soft_threshold(u, a):
    """Soft thresholding S_a(u) = sign(u) max(|u| - a, 0), elementwise.

    Parameters
    ----------
    u : array-like
    a : float or array-like, >= 0

    Returns
    -------
    ndarray

    Examples
    --------
    >>> from rlmlib.solvers.fiol import soft_threshold
    >>> soft_threshold([3.0, -0.5, -2.0], 1.0)
    array([ 2., -0., -1.])
    """
    u = np.asarray(u, dtype=np.float64)
    return np.sign(u) * np.maximum(np.abs(u) - a, 0.0)


def loss_inverse(loss, s, y):
    """(l')^-1(s): the predictions z with s in dl(z; y), as an interval.

    Parameters
    ----------
    loss : str
    s : float
        A value of the derivative with respect to the prediction z.
    y : float
        Label (+-1) or target.

    Returns
    -------
    (zlo, zhi) : tuple of float
        zlo == zhi where the inverse is single-valued; a half-line or a kink where it is
        not (hinge, absolute); (nan, nan) outside the range of l'.

    Examples
    --------
    >>> from rlmlib.solvers.fiol import loss_inverse
    >>> loss_inverse("squared", 0.5, 2.0)
    (2.5, 2.5)
    >>> loss_inverse("hinge", -0.5, 1.0)
    (1.0, 1.0)
    """
    from .l1 import inverse

    return inverse(loss_code(loss), float(s), float(y))


def piece_solution(loss, a, c, y):
    """The s with s in dl(a - c s; y): where (l')^-1 meets the line a - c s.

    This is the last piece of the fully implicit step (and the whole implicit SGD step); z =
    a - c s is prox_{c l}(a). Closed form for squared, absolute, hinge and squared hinge,
    safeguarded Newton for logistic and exponential (Lambert W).

    Parameters
    ----------
    loss : str
    a : float
    c : float > 0
    y : float

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If c <= 0 or the loss is unknown.

    Examples
    --------
    >>> from rlmlib.solvers.fiol import piece_solution
    >>> piece_solution("squared", 3.0, 1.0, 1.0)   # s + 1 = 3 - s
    1.0
    """
    from .l1 import piece_root

    return piece_root(loss_code(loss), float(a), check_positive("c", c), float(y))


def loss_conjugate(loss, s, y):
    """The convex conjugate l*(s) = sup_z s z - l(z; y).

    Parameters
    ----------
    loss : str
    s, y : float

    Returns
    -------
    float
        inf outside the conjugate's domain (the closure of the range of l').

    Examples
    --------
    >>> from rlmlib.solvers.fiol import loss_conjugate
    >>> loss_conjugate("squared", 1.0, 2.0)   # s^2/2 + s y
    2.5
    """
    from .l1 import conjugate

    return conjugate(loss_code(loss), float(s), float(y))
