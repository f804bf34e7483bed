"""Marking schemes of the written parts (proofs, derivations) of exercises: points per
step, for the instructor who marks the manually graded cells of the nbgrader assignments
(tools/assignments.py puts an exercise's scheme in the source notebook's written cell) and
the proofs of the problem sets.

``MARKING[label]`` lists ``(points, step)``; the points add up to the written part's points:
half the exercise's points when it also has code (``assignments.proof_and_code_points``),
all of them for a proof alone (course.yml's points by difficulty). tests/test_course.py
checks the sums, that every exercise with a written part and code has a scheme, and lists
the proof exercises that have none yet.
"""

MARKING = {
    # ------------------------------------------------ written parts of code exercises
    "ex-vr-sqhinge": [
        (1, "the conjugate term beta - beta^2/2 on beta >= 0 (alpha = y beta)"),
        (1, "the one-dimensional concave problem in b, its stationary point "
            "beta + (1 - yz - beta)/(1 + q), and the projection on b >= 0"),
    ],
    "ex-vr-gap": [
        (2, "weak duality: D(alpha) <= P* for every feasible alpha, so P(w(alpha)) - "
            "D(alpha) >= P(w(alpha)) - P* >= 0"),
        (2, "at the optimum: strong duality and w(alpha*) = w* give a zero gap"),
        (1, "conversely a zero gap forces P(w(alpha)) = P* = D(alpha): both optimal"),
    ],
    "ex-pgs-ball": [
        (2, "the two cases meet at (p-1)|theta|_q = B with the same value B^2/(2(p-1)) "
            "and the same derivative B in |theta|_q"),
        (2, "B-Lipschitz: each <w, theta> - r(w) with |w|_p <= B is B-Lipschitz by "
            "Hölder, and so is their supremum"),
        (1, "r* = (p-1)/2 |theta|_q^2 has unbounded slope along a ray: not Lipschitz"),
    ],
    "ex-pgs-best-k": [
        (2, "the modelled time (a + b/k)(dk + n) as a function of a real k: convex, "
            "minimized at k* = sqrt(bn/(ad))"),
        (2, "the best integer is floor(k*) or ceil(k*), compared by the model (rounding "
            "k* is not enough)"),
        (1, "the paper's k = 300 for RCV1 from its constants, and the model's prediction"),
    ],
    "ex-qn-skip": [
        (1, "the regularization's share b n / skip against the loss's a d per step"),
        (1, "skip >= c n/d, the smallest integer >= 1, and RCV1's 9,965"),
    ],
    "ex-qn-ratio": [
        (3, "part (i) of prop-qn-limit: the ratio's limit where dw_i -> 0, with the "
            "cases of x_i"),
        (2, "the accurate form of the ratio (no cancellation, no subnormal underflow)"),
    ],
    "ex-qn-rate": [
        (2, "the recursion a_{t+1} = (1 - 2c/t) a_t + C/t^2 from Theorem 1"),
        (2, "its two regimes: C/((2c - 1)t) for 2c > 1, K t^(-2c) for 2c < 1, so "
            "a = min(1, 2c)"),
        (1, "the prediction for breast cancer (lambda_min < 0.25) and the run"),
    ],
    "ex-fiol-logistic-inverse": [
        (1, "the domain of l' (the open interval between 0 and -y) and the inverse in "
            "closed form"),
        (1, "a form accurate near both ends (log1p, no cancellation)"),
    ],
    "ex-pre-gamma": [
        (1, "gamma by hand for c = (1, 1/2, 1/4, 1/8) at ratio 1/4"),
        (1, "the form c/(c + ratio) = 1/(1 + ratio/c), accurate over the whole range"),
    ],
    # ------------------------------------------------ proofs
    "ex-mb-without": [
        (4, "the conditional law of i_k given the past (uniform on the m - k + 1 others) "
            "and the conditional mean of the gradient"),
        (4, "the mean squared bias (k-1)V/((m-1)(m-k+1)) from lem-order-variance with "
            "k - 1 draws; 0 at k = 1, V at k = m"),
        (2, "why the rate proofs of the theory part, which use E[g_t | w_t] = grad F(w_t), "
            "do not apply step by step"),
    ],
    "ex-pre-equivalence": [
        (3, "G as a quadratic: hat phi for the squared loss, the Hessian "
            "beta I + (1 - beta) C_hat"),
        (4, "the eigenvalues of C_hat, c_j/(c_j + sigma/beta) in [0, 1), so the Hessian's "
            "in [beta, 1) and the condition number below 1/beta for every sigma"),
        (3, "beta H + (1 - beta) C = C + sigma I: H^(-1/2) u* is the ridge solution"),
    ],
}
