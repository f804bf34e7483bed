"""Marking schemes of the written parts (proofs, derivations) of exercises: points per
step, for the instructor who marks the manually graded cells of the nbgrader assignments
(tools/assignments.py puts an exercise's scheme in the source notebook's written cell) and
the proofs of the problem sets.

``MARKING[label]`` lists ``(points, step)``; the points add up to the written part's points:
half the exercise's points when it also has code (``assignments.proof_and_code_points``),
all of them for a proof alone (course.yml's points by difficulty). tests/test_course.py
checks the sums, that every proof or derivation exercise of the book has a scheme, and that
the student edition (tree and HTML) holds none of them.

``DEDUCTIONS[label]`` lists ``(points, wrong step)``: common wrong steps and what each costs
(taken off the steps' points, never below zero for the exercise).

    python -m instructors.marking [PART]   # the schemes as Markdown, for the marker
"""
import re

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
        (1, "the sign: dd x_i/dw_i >= 0 (the proof of part (ii)), so sigma + dd q has "
            "no cancellation"),
        (1, "the rounding model: relative u for normal results, absolute 2^-1075 for "
            "subnormal ones, negligible next to a normal sigma"),
        (2, "the chain: q, p = dd q, sigma + p, 1/(sigma + p): relative error about 4u"),
        (1, "the direct form: subnormal sigma dw_i and dd x_i carry relative errors up "
            "to 1, and 0/0 when both round to 0"),
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
    # ------------------------------------------------ Foundations: assumptions
    "ex-as-lmax-smooth": [
        (3, "the triangle inequality on the mean of the gradients: L <= (1/m) sum L_i, "
            "and the mean is at most L_max"),
        (2, "an example reaching L_max = m L: x_i = e_i (n = m), L_i = 1, C = I/m"),
    ],
    "ex-as-logistic-constants": [
        (2, "l'' = sgm(yz) sgm(-yz) <= 1/4, with equality at z = 0"),
        (2, "the Hessian at w = 0 has the eigenvalue |x_i|^2/4 + sigma along x_i, so no "
            "smaller constant works (the difference quotient along eps x_i)"),
        (1, "where it is attained: at w with <w, x_i> = 0 (w = 0), direction x_i"),
    ],
    "ex-as-pl-not-strong": [
        (2, "F* = 0 and grad F(w) = <a, w> a"),
        (3, "the PL identity: 1/2 |grad F|^2 = |a|^2 F(w), so mu = |a|^2"),
        (3, "not strongly convex: F is constant along every v orthogonal to a (n >= 2 "
            "gives such a v), so no quadratic lower bound with mu > 0"),
        (2, "the minimizers: the hyperplane <a, w> = 0, not a single point"),
    ],
    "ex-as-es-quadratic": [
        (3, "grad f_i(w) - grad f_i(w*) = A_i e and F(w) - F* = 1/2 e^T H e with "
            "e = w - w*"),
        (3, "the condition e^T (mean A_i^2) e <= L e^T H e for all e, and the "
            "substitution e = H^(-1/2) u: the smallest L is the largest eigenvalue"),
        (4, "A_i^2 <= L_i A_i <= L_max A_i (eigenvalues of A_i in (0, L_i]), averaged: "
            "mean A_i^2 <= L_max H, so the eigenvalue is at most L_max"),
    ],
    "ex-as-interp-ls": [
        (2, "grad f_i(w) = (<w, x_i> - y_i) x_i vanishes iff <w, x_i> = y_i (x_i != 0)"),
        (2, "both directions: a solution of the system makes F = 0, so it is a "
            "minimizer and interpolates; an interpolating minimizer solves the system"),
        (1, "sigma > 0: the term sigma w* forces w* = 0 once two rows differ in "
            "direction, and then grad f_i(0) = -y_i x_i = 0 forces y = 0"),
    ],
    "ex-as-variance-squared": [
        (3, "grad f_i(w) - grad F(w) = D_i w - d_i with D_i = x_i x_i^T - C (the "
            "regularizer cancels) and d_i = y_i x_i - b"),
        (3, "the expansion: M = mean D_i^2, c = mean D_i d_i, v = mean |d_i|^2"),
        (2, "M is a mean of positive semidefinite D_i^2, zero iff every D_i = 0, i.e. "
            "all x_i x_i^T equal"),
        (2, "no uniform bound: with Mu != 0, the variance at w = t u grows like "
            "t^2 u^T M u"),
    ],
    # ------------------------------------------------ Foundations: SGD, order
    "ex-sc-distance": [
        (3, "strong convexity at w* with 0 in the subdifferential: "
            "F(w) - F* >= mu/2 |w - w*|^2"),
        (2, "with lem-gap-bound, |w - w*| <= |grad F(w)|_* / mu"),
    ],
    "ex-squared-stable": [
        (3, "the new residual e (1 - eta |x_i|^2) from w+ = w - eta e x_i"),
        (3, "|e| shrinks iff |1 - eta |x_i|^2| < 1, i.e. 0 < eta |x_i|^2 < 2 (both "
            "ends)"),
        (2, "eta_0 = 1/max |x_i|^2: every early step stable, with a factor 2 margin"),
        (2, "its price: t_0 = max |x_i|^2 / sigma is large, the step hardly decays and "
            "the scale s_T of lem-scaled-vector stays near 1"),
    ],
    "ex-ogd-regret": [
        (3, "the expansion of |w_{t+1} - u|^2 solved for <g_t, w_t - u>"),
        (3, "strong convexity: c_t(w_t) - c_t(u) <= <g_t, w_t - u> - sigma/2 "
            "|w_t - u|^2"),
        (5, "the telescoping sum: the coefficient 1/(2 eta_t) - 1/(2 eta_{t-1}) - "
            "sigma/2 of |w_t - u|^2 is 0 for t >= 2 and for t = 1, the last term <= 0"),
        (4, "what remains, sum eta_t G^2 / 2 = (G^2 / (2 sigma)) sum 1/t <= "
            "G^2 (1 + ln T) / (2 sigma)"),
    ],
    "ex-online-to-batch": [
        (4, "(a) m = 2 with a permutation: i_2 is determined by i_1, so "
            "E[c_2(w_2) | i_1] is one example's loss, with a concrete pair where the "
            "two losses differ at w_2"),
        (3, "(b) a permutation visits every i once: the epoch's losses at a fixed w sum "
            "to m (F(w) - sigma/2 |w|^2)"),
        (3, "why it does not rescue the argument: the regret is about c_t(w_t) with a "
            "different w_t each step, and w_t depends on the examples already used"),
    ],
    "ex-order-fpc": [
        (3, "the ratio (m - k)/(m - 1) <= 1 for k >= 1, equality only at k = 1"),
        (2, "half at k = (m + 1)/2 (m odd; half way through an epoch)"),
    ],
    # ------------------------------------------------ Theory
    "ex-rate-fixed-horizon": [
        (2, "the summation by parts with a constant step: D^2/(2 eta) + eta G^2 T/2"),
        (2, "the minimizing step eta = D/(G sqrt T) and the bound D G sqrt T"),
        (1, "two thirds of 3/2 D G sqrt T: the price of not knowing T"),
    ],
    "ex-rate-uniform-proof": [
        (3, "each c_t is sigma-strongly convex with steps 1/(sigma t): the regret bound "
            "of ex-ogd-regret at u = w*, G^2 (1 + ln T)/(2 sigma), surely"),
        (4, "independence of i_t and w_t: E c_t(w_t) = E F(w_t) and E c_t(w*) = F*"),
        (2, "divide by T and apply Jensen to the uniform average"),
        (1, "with a permutation per epoch the first equality fails"),
    ],
    "ex-rate-nonconvex-decreasing": [
        (4, "the one-step descent inequality with eta_t <= 1/L: eta_t/2 E|grad F(w_t)|^2 "
            "<= E F(w_t) - E F(w_{t+1}) + L eta_t^2 V/2"),
        (4, "the sum: telescoping to 2(F(w_1) - F_inf) and eta_0^2 sum 1/t <= "
            "eta_0^2 (1 + ln T)"),
        (4, "the minimum is at most the eta-weighted mean, and sum eta_t >= "
            "eta_0 sqrt T"),
        (3, "the bound (2(F(w_1) - F_inf) + L V eta_0^2 (1 + ln T))/(eta_0 sqrt T) = "
            "O(log T / sqrt T)"),
    ],
    "ex-avg-radius": [
        (2, "the recursion a_{t+1} = (1 - eta mu)^2 a_t + eta^2 nu^2, with equality "
            "(the cross term has mean 0)"),
        (2, "its limit eta nu^2 / (mu (2 - eta mu)), stable for eta < 2/mu, and "
            "E F = mu/2 of it"),
        (1, "the comparison: the variance term of the noise ball attained; the floor "
            "up to the factor 2/(2 - eta mu) = 1 + O(eta)"),
    ],
    "ex-avg-pr-1d": [
        (3, "w_t written as the bias plus a weighted sum of the noise"),
        (3, "the coefficient of xi_q in the average: -eta sum (1 - eta H)^j -> -1/H, "
            "so Var(bar w_T) ~ C/(H^2 T)"),
        (2, "E F(bar w_T) ~ C/(2 H T), the bias being O(1/T^2)"),
        (2, "the role of gamma < 1: for a quadratic a constant step is already optimal; "
            "gamma > 1/2 is what non-quadratic F needs"),
    ],
    "ex-mb-critical": [
        (3, "smoothness and grad F(w*) = 0: F - F* <= L/2 |w - w*|^2, so the distance "
            "target 2 eps_F/L suffices (tight for a quadratic)"),
        (3, "T(k) with eps = 2 eps_F/L: 1/2 max(L/mu, V L/(2 k mu^2 eps_F)) "
            "ln(L a_0/eps_F), and k*_F = V/(2 mu eps_F)"),
        (2, "why L cancels: both step limits scale like 1/L; the ratio of V to "
            "2 mu eps_F, the smallest squared gradient at gap eps_F"),
        (2, "the numbers: k* about 1.5e5, k*_F = 2e4, both above m"),
    ],
    "ex-lb-constant": [
        (3, "the bound written as (D/4) delta (1 - c delta) with c = sqrt(3T/2)"),
        (4, "the maximizer delta = 1/(2c) = 1/sqrt(6T) (within delta <= 1/2)"),
        (3, "the value (D/16) sqrt(2/(3T)): the same constant 1/(8 sqrt 6), the page's "
            "delta is the optimum"),
    ],
    "ex-lb-dimension": [
        (3, "the oracle: a random coordinate j, g = -G xi_j e_j, so E g is the gradient "
            "of F_b(w) = -(G delta/n) <b, w>, minimized at rho b"),
        (3, "the gap is at least (G delta rho/n) times the number of wrong signs"),
        (4, "per coordinate about T/n observations: delta^2 = n/(6T) keeps the KL at "
            "1/2 (needs delta <= 1/2, n <= 3T/2), each sign wrong with probability "
            ">= 1/4"),
        (3, "Assouad: n/4 wrong signs in expectation for some b, so the gap is >= "
            "D G/(8 sqrt(6T))"),
        (2, "why n cancels: more unknown signs, fewer observations each, smaller cost "
            "per wrong sign"),
    ],
    # ------------------------------------------------ Variance reduction
    "ex-vr-floor": [
        (2, "the recursion E w_{t+1}^2 = (1 - eta)^2 E w_t^2 + eta^2 nu^2 and its fixed "
            "point eta nu^2/(2 - eta)"),
        (2, "against thm-vr-floor: a factor 8/eta >= 16 above eta^2 nu^2/16, of order "
            "eta where the theorem's is eta^2"),
        (1, "the bound 2 eta nu^2/mu has the right order (a quarter to a third of it)"),
    ],
    "ex-vr-svrg-inner": [
        (3, "rho at eta = 1/(10 L_max): 12.5 kappa/m_in + 0.25"),
        (3, "rho <= 1/2 iff m_in >= 50 kappa"),
        (2, "a stage costs 1 + 50 kappa/m passes and halves the error"),
        (2, "51 log2(1/eps) passes at kappa = m, 1.5 log2(1/eps) at kappa = m/100"),
    ],
    "ex-vr-saga-constant": [
        (4, "the J and F - F* terms: (2 + b) eta^2 2 L_max <= 2 eta, i.e. b <= a - 2"),
        (4, "the H coefficient c (1 - (b - 2)/(b m)): needs b > 2"),
        (3, "the rate 1 - min(1/(a kappa), (b - 2)/(b m)), best at b = a - 2, "
            "needing a > 4"),
        (4, "kappa >> m: a down towards 4, the rate tends to 1/(4 kappa); the theorem's "
            "a = 5, b = 3 and where its two terms meet"),
    ],
    # ------------------------------------------------ Momentum: deterministic
    "ex-mom-three-sequences": [
        (2, "alpha/mu = 1/(alpha L) and grad F(y_t)/L = y_t - w_{t+1} in the z step"),
        (2, "z_t from the definition of y_t, substituted: the y_t terms cancel, "
            "z_{t+1} = (w_{t+1} - (1 - alpha) w_t)/alpha"),
        (1, "y_{t+1} from (1 + alpha) y_{t+1} = w_{t+1} + alpha z_{t+1}, and the start "
            "y_0 = w_0"),
    ],
    "ex-mom-gd-step": [
        (2, "L' >= L: eta (L + mu) <= 2, so the factor is 1 - eta mu = "
            "(L' - mu)/(L' + mu)"),
        (1, "about (L'/L) Q/2 iterations per factor e: an overestimate by c costs c "
            "times the iterations"),
        (2, "L' < L: the factor eta L - 1, below 1 only for L' > L - mu; no "
            "convergence for L' <= L - mu"),
    ],
    "ex-mom-hb-params": [
        (2, "convergence for every start iff both roots of z^2 - (1 + beta - eta "
            "lambda) z + beta are in the open unit disc, for every lambda"),
        (4, "the conditions |beta| < 1, p(1) > 0, p(-1) > 0, with a proof or a cited "
            "criterion (Jury; complex roots have modulus sqrt beta)"),
        (2, "p(1) = eta lambda > 0 and p(-1) = 2(1 + beta) - eta lambda > 0"),
        (2, "the step limit 2(1 + beta)/L < 4/L, twice gradient descent's 2/L"),
    ],
    "ex-mom-lyapunov-variant": [
        (4, "the |g|^2 terms: -1/(2L) + alpha^2/(2 mu) = (c^2 - 1)/(2L) <= 0, dropped"),
        (3, "every other step unchanged (it used only the definitions and convexity)"),
        (3, "the factor 1 - c/sqrt Q per iteration; c > 1 breaks the argument"),
    ],
    "ex-mom-chebyshev-t": [
        (2, "(a) both bounds from T_t(x_0) = (rho^(-t) + rho^t)/2: T_t >= rho^(-t)/2 "
            "and rho^(-t) + rho^t <= 2 rho^(-t)"),
        (2, "(a) the worst quadratic: the error after t steps is at least "
            "1/T_t(x_0) >= rho^t times the initial one, so t >= log(1/eps)/log(1/rho)"),
        (2, "(b) 1 + beta - eta mu = 2 rho with Polyak's parameters: the double root "
            "rho"),
        (3, "(b) the solutions (A + B t) rho^t of the recursion and the start "
            "e_0 = e_{-1} = 1: A = 1, B = 1 - rho"),
        (1, "(b) the extra steps ln((1 + (1 - rho) t)/2)/ln(1/rho), of order "
            "(sqrt Q/2) ln ln(1/eps)"),
    ],
    "ex-mom-lrp": [
        (3, "a heavy-ball step on a piece F'(x) = a x + c: x_{t+1} = (1 + beta - eta a) "
            "x_t - beta x_{t-1} - eta c"),
        (4, "the pieces the printed cycle visits and the 3x3 linear system of a "
            "periodic orbit, solved"),
        (2, "each point lies in the piece assumed: the orbit is genuine"),
        (3, "the product of the linear parts, M_25^3, eigenvalues of modulus 8/27"),
        (3, "why that certifies no convergence to the minimizer: the contraction "
            "attracts to the composed affine map's fixed point, the cycle"),
    ],
    # ------------------------------------------------ Momentum: stochastic, accelerated VR
    "ex-mom-rescaled-nesterov": [
        (2, "w_{t+1} - w_t = -eta (1 + beta) g_t - eta beta^2 v_t from the two lines"),
        (3, "v_t eliminated with the previous step, -eta beta v_t = w_t - w_{t-1} + "
            "eta g_{t-1}: the three-term recursion"),
        (3, "u_{t+1} - u_t written with the bracket (w_{t+1} - w_t) - beta (w_t - "
            "w_{t-1}) = -eta (1 + beta) g_t + eta beta g_{t-1}"),
        (2, "the g_{t-1} terms cancel: u_{t+1} - u_t = -eta/(1 - beta) g_t"),
    ],
    "ex-mom-floor-limit": [
        (3, "at fixed gamma (eta = gamma (1 - beta)) the floor tends to "
            "gamma nu^2/(2h), SGD's floor for the step gamma"),
        (1, "at fixed eta the factor (1 + beta)/(1 - beta) diverges"),
        (1, "the squares of the figure are the fixed-gamma case"),
    ],
    "ex-mom-mean-dynamics": [
        (3, "the squared loss's gradient is affine in w: E[grad f_j(w_t) | w_t] = "
            "H w_t - b"),
        (3, "the expectation of the heavy-ball step (j_t independent of w_t, w_{t-1}): "
            "deterministic heavy ball on F for the means"),
        (2, "the error's linear recursion and its factor, the spectral radius of the "
            "M_lambda"),
        (2, "the failures: the logistic gradient is not affine; without replacement the "
            "draw depends on the past"),
    ],
    "ex-mom-nesterov-matrix": [
        (2, "the two rows: v' = beta v + sigma w and w' = (1 - eta sigma (1 + beta)) w "
            "- eta beta^2 v"),
        (2, "the determinants beta (1 - eta sigma) and beta"),
        (1, "the determinant is the product of the roots: complex roots have modulus "
            "sqrt(det), the slowest decay of an untouched coordinate"),
    ],
    "ex-mom-catalyst-prox": [
        (3, "the proximal problem written out and its gradient set to zero"),
        (2, "w (1 + eta sigma + eta tau) = u + eta tau y"),
    ],
    "ex-mom-ratio": [
        (3, "kappa <= m: numerator <= 2m, denominator >= m"),
        (2, "kappa >= m: numerator >= kappa, denominator <= 2 sqrt(m kappa)"),
    ],
    "ex-mom-catalyst-tau": [
        (3, "sqrt q = sqrt(m/(c kappa)): the outer count grows like sqrt c"),
        (3, "the subproblem's condition number about m/c + 1: SAGA's cost per factor "
            "O(m) for every c >= 1"),
        (2, "the bound prefers c of order one"),
        (2, "why 10: measured with a fixed inner budget of one pass, which the "
            "worst-case count (each subproblem solved to its accuracy) does not see"),
    ],
    "ex-mom-katyusha-lb": [
        (4, "kappa <= m: m + kappa <= 2 (m + sqrt(m kappa)), within 2C of the lower "
            "bound"),
        (4, "not for all kappa: at kappa = m^3 the ratio is at least m/2, unbounded"),
        (4, "accelerated full gradients: Q >= kappa/m (L >= L_max/m), so m sqrt Q >= "
            "sqrt(m kappa), never better than Catalyst beyond a logarithm"),
        (3, "Q = kappa >= m: m sqrt kappa = sqrt m sqrt(m kappa), worse by sqrt m"),
    ],
    "ex-mom-sparse-catalyst": [
        (3, "the outer step's dense work: bringing coordinates up to date, y_{t+1}, "
            "shifting h, O(n) operations"),
        (2, "a pass is O(m d), so O(n/(m d)) <= O(1) passes per outer iteration"),
    ],
    # ------------------------------------------------ Adaptive methods
    "ex-ada-sum-root": [
        (3, "the induction step 2 sqrt(L_{T-1}) + a_T/sqrt(L_T) <= 2 sqrt(L_T), "
            "equivalent to 2 sqrt(L_T L_{T-1}) <= L_T + L_{T-1} (AM-GM)"),
        (2, "the constant 2 is sharp: a_t = 1, sum 1/sqrt t >= 2 sqrt(T + 1) - 2, ratio "
            "to sqrt T -> 2"),
    ],
    "ex-ada-full": [
        (2, "the regret split into the distance sum and the gradient sum, as in "
            "thm-adagrad-regret"),
        (4, "the distance sum: H_t >= H_{t-1} (the root is operator monotone), "
            "|w_t - u|^2 in H_t - H_{t-1} <= D_2^2 tr(H_t - H_{t-1}), telescoping to "
            "D_2^2 tr(H_T) = D_2^2 (delta n + tr S_T^(1/2))"),
        (4, "the gradient sum: H_t^(-1) <= S_t^(-1/2) and sum g^T S_t^(-1/2) g <= "
            "2 tr S_T^(1/2), giving eta tr S_T^(1/2)"),
    ],
    "ex-ada-lazy": [
        (2, "g_j = 0 leaves Gamma_j and H_j unchanged: each step multiplies w_j by "
            "H_j/(H_j + eta sigma)"),
        (2, "Adam: M_j and V_j by beta_1^c and beta_2^c in O(1)"),
        (1, "w_j: a sum of c different terms (bias corrections and epsilon), no closed "
            "form"),
    ],
    "ex-ada-reddi": [
        (3, "after g = C: V_1 >= C^4/(1 + C^2), the left step <= alpha sqrt(1 + C^2)/C"),
        (3, "after the two -1's: V_2 < 2 and V_3 < 1 + 2/(1 + C^2), the right steps "
            "> alpha/sqrt 2 and alpha/sqrt(1 + 2/(1 + C^2))"),
        (4, "the comparison for C >= 2 (or any explicit threshold): a net drift to the "
            "right every three steps"),
    ],
    "ex-nc-strong-pl": [
        (3, "the descent step w - grad F(w)/L: |grad F(w)|^2 <= 2 L (F(w) - F*), with "
            "PL and a point where F(w) > F*: mu <= L"),
        (2, "x^2 + 3 sin^2 x: f'' = 2 + 6 cos 2x < 0 near pi/2 (not convex), PL by "
            "Karimi-Nutini-Schmidt, only stationary point 0"),
    ],
    "ex-nc-random-iterate": [
        (4, "E|grad F(w_tau)|^2 = sum q^(-(t+1)) r_t / W with W the sum of the weights"),
        (4, "this weighted mean is exactly what the proof bounds before taking the "
            "minimum"),
        (2, "the expectation over tau taken conditionally on the run (tau independent "
            "of the iterates)"),
    ],
    "ex-nc-pl-ls": [
        (2, "every gradient X^T(Xw - y)/m lies in the row space: so do the iterates "
            "from w_0 = 0"),
        (3, "the descent lemma with step 1/lambda_max"),
        (3, "PL with lambda_min^+ on the row space: the factor "
            "1 - lambda_min^+/lambda_max"),
        (2, "the minimizer in the row space is the minimum-norm solution"),
    ],
    "ex-nc-separable": [
        (4, "a separating direction u: <-grad F(w), u> > 0, so no stationary point; GD "
            "with eta <= 2/L decreases F to inf F = 0"),
        (4, "|grad F| <= R F for the logistic loss (|l'| <= l)"),
        (4, "the lower bound F(w_{t+1}) >= F(w_t) - eta |grad F(w_t)|^2 >= "
            "F(w_t)(1 - eta R^2 F(w_t)), so 1/F grows at most linearly"),
        (3, "F(w_t) >= c/t: no linear rate, hence no PL (PL would give one)"),
    ],
    "ex-md-three-point": [
        (2, "the three divergences written out: the psi terms cancel"),
        (3, "the inner products combined into <grad psi(w_t) - grad psi(w_{t+1}), "
            "u - w_{t+1}>"),
    ],
    "ex-md-entropy": [
        (3, "the step from the Lagrangian on the simplex: w_{t+1,j} proportional to "
            "w_{t,j} exp(-eta g_{t,j})"),
        (2, "B(u, w_1) = KL(u || uniform) <= log n"),
        (3, "regret <= log n/eta + eta T G_inf^2/2 (the dual norm of |.|_1), minimized: "
            "sqrt(2 T log n) G_inf"),
        (2, "the Euclidean bound O(sqrt(n T)) for dense g_t against O(sqrt(T log n))"),
    ],
    # ------------------------------------------------ Pegasos
    "ex-pgs-l1": [
        (3, "Hölder with exponents p and p/(p - 1): |h|_1 <= n^(1 - 1/p) |h|_p"),
        (3, "the curvature (p - 1)|h|_p^2 of 1/2 |.|_p^2 bounded below in |.|_1; "
            "dividing by p - 1: modulus n^(2/p - 2) for r"),
        (3, "p = 1 + 1/ln n: 2 - 2/p <= 2(p - 1) = 2/ln n, so the modulus >= e^(-2)"),
        (1, "|w|_p <= |w|_1 for p >= 1"),
    ],
    "ex-pgs-regret-t0": [
        (3, "the smoothness step of D_{t-1+t0} (modulus 1/((t - 1 + t0) sigma)): the "
            "gradient term |g_t|_q^2/(2 (t - 1 + t0) sigma)"),
        (2, "one more copy of the regularizer: D_{t-1+t0}(theta_t) >= D_{t+t0}(theta_t) "
            "+ sigma r(w_t)"),
        (3, "the sum from D_{t0}(0) = 0 and the bound on D_{T+t0}(theta_T): the fixed "
            "term t0 sigma r(v)"),
        (2, "the choice of t0: a larger fixed term against smaller early terms, the "
            "rate unchanged for t0 << T"),
    ],
    "ex-pgs-steps": [
        (2, "the inequality (sigma r(w) + G^2 (1 + ln T)/(2 sigma))/T <= 1e-3 solved "
            "for T"),
        (1, "the random iterate: Markov, the right side times delta = 0.1"),
        (2, "the comparison with the run: millions against thousands, the worst case "
            "|g_t|_q <= G at every step"),
    ],
    "ex-pgs-exp-cost": [
        (3, "per example: d at p = 2 and (d k + n)/k = d + n/k at p = 1.8"),
        (3, "the ratio 1 + n/(k d): about 3.07 at d = 76 and 4.94 at d = 40"),
        (2, "the time ratio 576/55 = 10.5"),
        (2, "the implied ratio of passes, 3.4 or 2.1, and that the paper's numbers "
            "cannot check it further"),
    ],
    "ex-pgs-exp-grid": [
        (2, "the checkpoint ratio r = T^(1/39) (40 checkpoints, 39 intervals)"),
        (2, "the largest relative error r - 1, about 43 %"),
        (1, "the exact search replays at most one interval, (r - 1) c steps"),
    ],
    # ------------------------------------------------ SGD-QN
    "ex-qn-jensen": [
        (4, "the leaky average with weights 2/N is the average of the ratios with "
            "weights proportional to j - 1 (induction)"),
        (3, "a weighted strong law of large numbers for bounded i.i.d. ratios: "
            "B -> (1 - f)/sigma + f/h almost surely"),
        (4, "the factor [(1 - f)/sigma + f/h][sigma + f (h - sigma)] = "
            "(1 - f) f h/sigma + O(1) as sigma -> 0"),
        (4, "the corrected update: 1/B = sigma t0 + sum of the steps' curvatures, "
            "divided by t, tends to sigma + f (h - sigma)"),
    ],
    "ex-qn-exp-dense-ratio": [
        (3, "the passes: SGD 3 (dot product, update, shrink), SVMSGD2 2 + 1/16"),
        (2, "the predicted ratio about 1.45 against the table and the paper's 1.3"),
        (3, "RCV1: (2d + n)/(2d + d/16), about 300"),
        (2, "why the measured one is smaller: the dense shrink streams with vector "
            "instructions, the sparse step waits for scattered coefficients"),
    ],
    # ------------------------------------------------ FIOL
    "ex-fiol-isgd": [
        (2, "sigma = 0: S_0 is the identity, w+ = w - eta xi x with xi = l'(<w+, x>), "
            "the implicit SGD step"),
        (2, "the squared loss: z+ = z - eta |x|^2 xi and xi = z+ - y give "
            "xi = (z - y)/(1 + eta |x|^2)"),
        (1, "stable for every eta: the residual divided by 1 + eta |x|^2 (same sign, "
            "smaller); OGD's (1 - eta |x|^2) grows once eta > 2/|x|^2"),
    ],
    "ex-fiol-partition-cost": [
        (3, "(a) the recursion: a round touches its N elements, the pivot's rank is "
            "uniform, the kept side has at most max(k - 1, N - k) elements, T "
            "non-decreasing"),
        (3, "(a) the induction step T(N) <= N + (4/N) sum max(k - 1, N - k)"),
        (4, "(a) the sum is at most 3N^2/4 (each value >= (N - 1)/2 taken at most "
            "twice), so T(N) <= 4N and the cost <= 8 c d_x"),
        (5, "(b) the first-element pivot: a family (sorted breakpoints, the root at the "
            "far end) where each round removes one element, sum of i up to 2 d_x = "
            "Theta(d_x^2)"),
    ],
    "ex-fiol-lazy": [
        (3, "the subgradient step overshoots zero when |w_j| < eta sigma and "
            "oscillates; the summed shrink stops at zero, a different point"),
        (3, "soft thresholds compose additively (lem-fiol-lazy): the proximal lazy "
            "path is exact"),
        (4, "the measurement: sgd_l1 on sparse and dense input differ in the small "
            "coordinates for several rates, fiol agrees to rounding"),
    ],
    "ex-fiol-exp-stable": [
        (3, "explicit: z+ - y = (1 - eta |x|^2)(z - y), a contraction iff "
            "0 < eta |x|^2 < 2"),
        (3, "implicit: z+ - y = (z - y)/(1 + eta |x|^2), a contraction for every "
            "eta > 0"),
        (2, "with |x|^2 in [200, 400]: stable on every example below 5e-3, "
            "overshooting on every example above 1e-2"),
        (2, "the comparison with where the figure's explicit curves diverge"),
    ],
    "ex-fiol-exp-cost": [
        (3, "the ratio (a/b) log2 d grows from 10 a/b to 20 a/b: a factor 2"),
        (3, "the slope of d log d on a log-log plot, 1 + 1/(ln 10 log10 d): 1.07 to "
            "1.14"),
        (2, "slopes near 1 for both are what the model predicts; the difference shows "
            "in the ratio"),
        (2, "a ratio growing less than twofold: part of the sort's cost is linear"),
    ],
    # ------------------------------------------------ Preconditioning
    "ex-pre-hadamard": [
        (2, "|a_i|^2 = K/m for every row, so chi_0 = 1"),
        (2, "eq-pre-rownorm: |hat x_i|^2 = gamma for every i, so the maximum is the "
            "mean and chi(rho) = 1 (checked with incoherence)"),
        (1, "no row is indispensable: any sample works, the bound at its smallest"),
    ],
    "ex-pre-replacement": [
        (4, "beta/2 w^T hat C w written as a sum over rows with weights m k_i/hat m"),
        (4, "the changed losses l_i(z) = l(z) - (m k_i/hat m)(beta/2) z^2: every row "
            "drawn at least once, by k_i times m/hat m"),
        (4, "a row drawn k_i times: curvature down to -k_i (m/hat m) beta, its "
            "smoothness bound grows k_i-fold"),
        (3, "the step 1/L_max shrinks with the largest multiplicity: without "
            "replacement is better"),
    ],
    "ex-pre-naive": [
        (3, "a null vector h of C is orthogonal to every x_i (h^T C h = mean "
            "(x_i^T h)^2)"),
        (3, "along e = B^(-1) h only the regularizer curves: strong convexity at most "
            "sigma |h|^2/|B^(-1) h|^2 = O(sigma)"),
        (2, "the smoothness of a term is at least its loss part along B^T x_i, "
            "independent of sigma: the ratio Omega(1/sigma)"),
        (2, "the escape: B = H^(-1/2) depends on sigma, H d = (sigma/beta) d, the "
            "curvature along e is beta"),
    ],
    "ex-pre-exp-naive": [
        (3, "the ratio of epochs (m + kappa_naive)/(m + hat kappa), kappa_naive about "
            "7,000"),
        (4, "about 4.4 at m = 2,000 and 1.01 at m = 1e6"),
        (3, "on larger data the gap of the figure vanishes: once m exceeds both "
            "condition numbers an epoch per halving either way"),
    ],
    "ex-pre-exp-build": [
        (4, "the build: the sample's Gram matrix O(hat m^2 d), its eigendecomposition "
            "O(hat m^3), the coordinates q_i of every row O(nnz(X) K), which dominates"),
        (3, "a preconditioned pass O(nnz(X) + m K): the build costs dK/(d + K) passes"),
        (3, "a dense pass O(m n), far above nnz(X) K when K << n/d"),
    ],
    "ex-pre-exp-breakeven": [
        (3, "it pays iff b + E_1 t_1 < E_0 t_0, i.e. E_1 < (E_0 t_0 - b)/t_1"),
        (3, "the largest E_1 from the printed timings, compared with the 30 epochs "
            "used"),
        (2, "why the page calls no winner: the timings move with the load"),
        (2, "what would make it pay widely: E_0 >> E_1 (a worse-conditioned plain "
            "problem with small chi gamma), a cheaper build or t_1/t_0 near 1"),
    ],
    # ------------------------------------------------ Implementation
    "ex-ridge-kappa": [
        (2, "X^T X/m and sigma I commute: H has the eigenvalues c_1 + sigma, "
            "c_2 + sigma, so kappa = (c_1 + sigma)/(c_2 + sigma)"),
        (2, "the derivative (c_2 - c_1)/(c_2 + sigma)^2 < 0 when c_1 > c_2"),
        (1, "the numerical check against np.linalg.cond"),
    ],
    "ex-bench-bytes": [
        (2, "(a) 12 bytes per non-zero (8 for the value, 4 for the index) plus indptr; "
            "the gathers of w_j hit the cache"),
        (2, "(b) the update rereads the bytes the dot product just brought into the "
            "cache and writes v_j, which is cached: the same memory traffic"),
        (1, "two reasons the epoch is slower: dependent loops (the update needs "
            "l'(<v, x_i>)), the per-row derivative, branch and rescaling, the checks"),
    ],
    "ex-bench-pegasos-scale": [
        (3, "(a) s_2 = (1 - 1/1) s_1 = 0 and w_2 = -l'(<w_1, x>) x/sigma"),
        (3, "(b) s_T = product of (t - 1)/t for t = 2 .. T - 1, telescoping to "
            "1/(T - 1)"),
        (2, "(c) the fold once T > 1e9 + 1"),
        (2, "(c) underflow below 2^-1022 only after about 4e307 steps: never"),
    ],
    "ex-cluster-serial": [
        (4, "(a) a task's result is a function of its arguments alone (same data and "
            "fixed, its own grid point, the stream created from the seed inside the "
            "call)"),
        (2, "(a) results placed by grid point, not by arrival; a rerun computes the same "
            "function"),
        (4, "(b) a generator created once per process (module level or global seed): "
            "the result depends on the runs the worker did before, differs with the "
            "number of workers and after a restart"),
    ],
    "ex-cluster-amdahl": [
        (3, "(a) the wall time c + ceil(N/W)(tau + o)"),
        (4, "(b) ceil(N/W) >= 1: at least c + tau + o, reached for W >= N; the "
            "one-worker time c + N(tau + o), hence the bound"),
        (3, "(c) the overhead fraction o/(tau + o) with the measured o, and grouping "
            "runs per task when it is large"),
    ],
    # ------------------------------------------------ distributed training
    "ex-dist-jensen-strict": [
        (2, "strong convexity at the average: F(w_k) >= F(w_bar) + <g, w_k - w_bar> + "
            "mu/2 |w_k - w_bar|^2 for a subgradient g at w_bar"),
        (2, "the weighted sum: the linear terms vanish since sum_k p_k (w_k - w_bar) = 0"),
        (1, "the bound mu/2 sum_k p_k |w_k - w_bar|^2, positive unless all w_k are equal"),
    ],
    "ex-dist-safe-tight": [
        (3, "the example: K equal vectors v, |sum v_k|^2 = K^2 |v|^2 = K sum |v_k|^2"),
        (4, "where the proof uses sigma' >= gamma K: the quadratic term "
            "gamma^2 |sum v_k|^2 <= gamma sigma' sum |v_k|^2 needs gamma K <= sigma'"),
        (3, "what goes wrong below: identical partitions propose the same Delta and the "
            "aggregate can overshoot and lower D"),
    ],
    "ex-dist-one-partition": [
        (2, "with K = 1, A_1 Delta is the whole change of w: w(alpha + Delta) = w + A_1 Delta"),
        (2, "expanding sigma/2 |w + A_1 Delta|^2 gives the subproblem's three terms with "
            "sigma' = 1, and c(alpha + Delta) its first"),
        (1, "hence coordinate steps on G_1 are SDCA's steps"),
    ],
    "ex-dist-critical": [
        (3, "below the critical size the steps T(Kb) ~ V/(2 K b mu^2 eps) ln(2 a_0/eps)"),
        (3, "bytes 16 K n T(Kb): the factor K cancels, the bytes do not depend on K"),
        (2, "above k*/b the steps stop falling and the bytes grow like K"),
        (2, "the conclusion: workers buy fewer steps (time), never fewer bytes"),
    ],
    "ex-dist-local-sgd-quadratic": [
        (3, "gradient descent on the strongly convex quadratic F_k with eta < 2/L_k "
            "converges to w_k* = (C_k + sigma I)^{-1} b_k"),
        (3, "the one-shot average sum_k p_k (C_k + sigma I)^{-1} b_k"),
        (3, "w* = (sum_k p_k C_k + sigma I)^{-1} sum_k p_k b_k, from the normal equations "
            "of F"),
        (3, "they differ in general (the inverse is not linear), agree when the C_k are "
            "equal"),
        (3, "H = 1: sum_k p_k (w - eta grad F_k(w)) = w - eta grad F(w) since "
            "grad F = sum_k p_k grad F_k"),
    ],
    "ex-dist-hogwild-serial": [
        (3, "with tau = 0 the read point is w_t: no cross term, and E<w_t - w*, g_t> >= "
            "sigma a_t by strong convexity"),
        (2, "the recursion a_{t+1} <= (1 - 2/q) a_t + G^2/(sigma^2 q^2) with q = t + t0"),
        (3, "the induction with V = max(t0 a_0, G^2/sigma^2): V(q - 1)/q^2 <= V/(q + 1)"),
        (2, "the factor 2: Young's split keeps 3/4 of the distance, contraction 1 - 3/(2q) "
            "instead of 1 - 2/q, so the induction needs V >= 2C/sigma^2"),
    ],
    "ex-dist-cocoa-rounds": [
        (4, "the theorem's increase D(alpha+) - D(alpha) >= gamma sum_k "
            "(G_k(Delta_k) - G_k(0))"),
        (4, "Theta-approximate local solutions: E[G_k(Delta_k) - G_k(0)] >= (1 - Theta)"
            "(G_k(Delta*_k) - G_k(0))"),
        (3, "summing with the fraction s: E D(alpha+) - D(alpha) >= gamma (1 - Theta) s "
            "(D* - D(alpha))"),
        (2, "the contraction of D* - D by 1 - gamma (1 - Theta) s per round"),
        (2, "iterating and 1 - x <= e^-x give the number of rounds"),
    ],
    "ex-pgs-boost": [
        (3, "(a) Markov's inequality on the non-negative gap X: P(X > a/delta) <= delta"),
        (2, "(b) each run: P(X_j > e a) <= 1/e"),
        (2, "(b) independence: P(all X_j > e a) <= e^-J; the kept output has the "
            "smallest X_j"),
        (2, "(c) route (a): T = C/(delta eps) = 1000 C/eps steps; route (b): J = 7 runs "
            "of e C/eps, about 19 C/eps"),
        (1, "(c) what (b) costs beyond the steps: J evaluations of F, a pass each"),
    ],
}

DEDUCTIONS = {
    "ex-as-lmax-smooth": [
        (2, "an example with sigma > 0 or with repeated rows (then L_max = L, not m L)"),
    ],
    "ex-as-logistic-constants": [
        (2, "an upper bound only (l'' <= 1/4) without showing that no smaller constant "
            "works"),
    ],
    "ex-as-pl-not-strong": [
        (3, "'not strongly convex because the Hessian a a^T is singular' without a "
            "direction along which F is flat (n >= 2 is where it is used)"),
        (2, "the minimizer taken to be w = 0 only"),
    ],
    "ex-as-es-quadratic": [
        (3, "bounding A_i^2 by L_max^2 I (gives L_max^2 / mu, not L_max)"),
        (2, "taking the largest eigenvalue of mean A_i^2 itself (no H^(-1/2) scaling)"),
    ],
    "ex-as-interp-ls": [
        (2, "only one direction of the equivalence"),
    ],
    "ex-as-variance-squared": [
        (3, "forgetting that grad F(w) also depends on w (D_i = x_i x_i^T, not "
            "x_i x_i^T - C)"),
        (2, "'M = 0 iff all x_i equal' (x_i and -x_i give the same x_i x_i^T)"),
    ],
    "ex-sc-distance": [
        (2, "using F(w) >= F* + <grad F(w*), w - w*> + ... without 0 in the "
            "subdifferential at w* (F need not be differentiable)"),
    ],
    "ex-squared-stable": [
        (2, "only the condition eta |x_i|^2 < 2 (the lower end 0 < eta missing)"),
        (2, "the residual of the other examples instead of example i's"),
    ],
    "ex-ogd-regret": [
        (4, "a telescoping without the strong-convexity term (it leaves "
            "sigma/2 sum |w_t - u|^2 that does not cancel, or a bound in sqrt(T))"),
        (3, "sum 1/t bounded by ln T (false at T = 1)"),
        (2, "dropping the last term -|w_{T+1} - u|^2 / (2 eta_T) without its sign"),
    ],
    "ex-online-to-batch": [
        (3, "an 'example' where the two losses coincide at w_2 (no difference shown)"),
        (3, "(b) concluding that the expectation argument holds epoch by epoch"),
    ],
    "ex-order-fpc": [
        (2, "the ratio inverted ((m - 1)/(m - k))"),
    ],
    "ex-rate-fixed-horizon": [
        (2, "a step eta depending on t kept inside the sum (not a constant step)"),
    ],
    "ex-rate-uniform-proof": [
        (4, "taking expectations without saying where the independence of i_t and w_t "
            "is used (E c_t(w_t) = E F(w_t) asserted)"),
        (2, "Jensen applied in the wrong direction (F of the average >= the average)"),
    ],
    "ex-rate-nonconvex-decreasing": [
        (4, "a last-iterate claim (only the minimum or a random iterate is bounded)"),
        (3, "sum eta_t bounded by eta_0 sqrt T from above instead of below"),
    ],
    "ex-avg-radius": [
        (2, "the cross term kept or the noise's mean not used"),
    ],
    "ex-avg-pr-1d": [
        (4, "the variance of the average taken as the average of the variances "
            "(gives eta C, not C/(H^2 T))"),
    ],
    "ex-mb-critical": [
        (3, "the distance target eps_F itself (or L eps_F/2 with L on the wrong side): "
            "a k*_F that depends on L"),
        (2, "k*_F without the stability limit 1/L"),
    ],
    "ex-lb-constant": [
        (3, "optimizing without the constraint delta <= 1/2 or a maximizer outside it"),
    ],
    "ex-lb-dimension": [
        (4, "each coordinate observed T times (not T/n): a bound that grows with n"),
        (3, "a union bound over coordinates instead of the sum of Assouad's lemma"),
    ],
    "ex-vr-floor": [
        (2, "the cross term eta (1 - eta) E[w_t b_i] kept as non-zero"),
    ],
    "ex-vr-svrg-inner": [
        (2, "the stage's full gradient pass left out of the cost"),
    ],
    "ex-vr-saga-constant": [
        (4, "the conditions stated without the coefficient of the H (table) term"),
        (3, "a choice of a, b that violates b > 2 or a > 4"),
    ],
    "ex-mom-three-sequences": [
        (2, "alpha^2 = mu/L not used (the y_t terms left)"),
    ],
    "ex-mom-gd-step": [
        (2, "the factor taken as 1 - eta mu for L' < L too (the eigenvalue L decides "
            "there)"),
    ],
    "ex-mom-hb-params": [
        (3, "only the real-root case treated"),
        (2, "the condition checked at lambda = L only"),
    ],
    "ex-mom-lyapunov-variant": [
        (3, "claiming the rate 1 - 1/sqrt Q still holds"),
    ],
    "ex-mom-chebyshev-t": [
        (3, "an upper bound on the error of one method taken for a lower bound on "
            "every method"),
        (2, "(b) the start e_{-1} = 0 instead of w_{-1} = w_0 (gives B = 1, not "
            "1 - rho)"),
    ],
    "ex-mom-lrp": [
        (4, "a cycle checked numerically only (the iterates printed), not solved as a "
            "periodic orbit"),
        (3, "the eigenvalues' modulus below 1 read as a proof of convergence to w*"),
    ],
    "ex-mom-rescaled-nesterov": [
        (3, "the heavy-ball u_t (without the g_{t-1} term) claimed to work for Nesterov"),
        (2, "the sign of the g_{t-1} term wrong: the g_{t-1} terms then do not cancel"),
    ],
    "ex-mom-floor-limit": [
        (2, "the two limits exchanged"),
    ],
    "ex-mom-mean-dynamics": [
        (3, "E grad f(w_t) = grad F(E w_t) asserted for any loss"),
    ],
    "ex-mom-nesterov-matrix": [
        (2, "the data term of the gradient kept for a coordinate outside the row"),
    ],
    "ex-mom-catalyst-prox": [
        (2, "the proximal step's 1/(2 eta) |w - u|^2 taken without 1/eta"),
    ],
    "ex-mom-ratio": [
        (2, "one inequality checked at kappa = m only"),
    ],
    "ex-mom-catalyst-tau": [
        (3, "the outer count taken to fall with c"),
    ],
    "ex-mom-katyusha-lb": [
        (4, "optimality for all kappa claimed from the kappa <= m case"),
        (2, "Q and kappa taken as equal in general"),
    ],
    "ex-mom-sparse-catalyst": [
        (2, "the overhead counted as a full pass of O(m d) per outer iteration"),
    ],
    "ex-ada-sum-root": [
        (2, "an example with a constant below 2 (it does not show sharpness)"),
    ],
    "ex-ada-full": [
        (3, "H_t - H_{t-1} assumed positive semidefinite without operator monotonicity"),
        (2, "the diagonal AdaGrad bound with |.|_inf copied instead of D_2"),
    ],
    "ex-ada-lazy": [
        (2, "claiming Adam's w_j has a closed form"),
    ],
    "ex-ada-reddi": [
        (3, "the bound on V_1 from above instead of below (the left step needs a lower "
            "bound on V_1)"),
    ],
    "ex-nc-strong-pl": [
        (2, "mu <= L from smoothness alone (the lower bound needs PL) or without a "
            "non-minimal point"),
        (2, "a PL example that is convex"),
    ],
    "ex-nc-random-iterate": [
        (4, "tau drawn uniformly (the weights of the bound are not uniform)"),
    ],
    "ex-nc-pl-ls": [
        (3, "using lambda_min (0 when X is rank-deficient) instead of lambda_min^+"),
    ],
    "ex-nc-separable": [
        (4, "the descent lemma (an upper bound on F(w_{t+1})) used for the lower bound"),
        (3, "a minimizer w* assumed to exist"),
    ],
    "ex-md-three-point": [
        (2, "the sign of one divergence wrong"),
    ],
    "ex-md-entropy": [
        (3, "the Euclidean norm's constants used with the entropy (no Pinsker, "
            "|g|_2 instead of |g|_inf)"),
    ],
    "ex-pgs-l1": [
        (3, "Hölder in the wrong direction (|h|_p <= n^(...) |h|_1 gives no lower "
            "bound)"),
        (2, "the factor 1/(p - 1) of r forgotten"),
    ],
    "ex-pgs-regret-t0": [
        (3, "the sum started from D_0 instead of D_{t0} (loses the t0 sigma r(v))"),
        (2, "concluding that a larger t0 is always better"),
    ],
    "ex-pgs-steps": [
        (2, "ln T treated as a constant without checking it"),
    ],
    "ex-pgs-exp-cost": [
        (3, "the p < 2 step cost per step compared with the p = 2 cost per example "
            "(no division by k)"),
    ],
    "ex-pgs-exp-grid": [
        (2, "40 intervals instead of 39"),
    ],
    "ex-qn-jensen": [
        (4, "the law of large numbers applied to the unweighted mean"),
        (3, "Jensen's inequality alone (it gives the direction, not the factor)"),
    ],
    "ex-qn-exp-dense-ratio": [
        (3, "SVMSGD2's sparse count with n/skip taken as n"),
    ],
    "ex-fiol-isgd": [
        (2, "stability argued from a small eta only"),
    ],
    "ex-fiol-partition-cost": [
        (4, "(a) the good-round argument of the theorem repeated (it gives 16 c d_x, "
            "not the induction)"),
        (3, "(a) the induction with the average kept side N/2 (a side the test does not "
            "choose; the bound must hold for the worse side)"),
        (3, "(b) a bad family for the first-element pivot that only shows "
            "O(d_x log d_x)"),
    ],
    "ex-fiol-lazy": [
        (3, "claiming the lazy shrink is exact for the subgradient step too"),
    ],
    "ex-fiol-exp-stable": [
        (2, "the stability limit 1/|x|^2 (no overshoot) taken for the contraction "
            "limit 2/|x|^2"),
    ],
    "ex-fiol-exp-cost": [
        (2, "log2 d taken to grow by the factor 1000"),
    ],
    "ex-pre-hadamard": [
        (2, "chi(rho) = 1 claimed from chi_0 = 1 without the row norms"),
    ],
    "ex-pre-replacement": [
        (4, "only the rows drawn twice or more taken to change"),
        (3, "the weight m/hat m forgotten"),
    ],
    "ex-pre-naive": [
        (3, "an argument with B = I only (the claim is for every fixed B)"),
        (2, "the escape attributed to the sampled rows rather than to B depending on "
            "sigma"),
    ],
    "ex-pre-exp-naive": [
        (3, "the ratio of condition numbers, 195, taken as the ratio of epochs"),
    ],
    "ex-pre-exp-build": [
        (3, "the eigendecomposition of the n x n covariance (O(n^3)) instead of the "
            "sample's"),
    ],
    "ex-pre-exp-breakeven": [
        (3, "the build time left out of the comparison"),
    ],
    "ex-ridge-kappa": [
        (2, "kappa as a ratio of the eigenvalues of X^T X/m without the shift sigma"),
    ],
    "ex-bench-bytes": [
        (2, "the gathers of w_j counted as memory traffic although w fits the cache"),
    ],
    "ex-bench-pegasos-scale": [
        (3, "dividing by s_2 = 0 (the first step treated like the others)"),
    ],
    "ex-cluster-serial": [
        (3, "(a) argued from the order of completion instead of from the task being a "
            "function of its arguments"),
    ],
    "ex-cluster-amdahl": [
        (2, "N/W without the ceiling (a speed-up growing past W = N)"),
    ],
    # ------------------------------------------------ the schemes written before
    "ex-vr-sqhinge": [
        (1, "the conjugate without the constraint beta >= 0 (no projection)"),
    ],
    "ex-vr-gap": [
        (2, "the gap's sign asserted without weak duality"),
        (1, "only one direction of 'zero gap iff optimal'"),
    ],
    "ex-pgs-ball": [
        (2, "Lipschitz claimed from the bound on the gradient of one branch only"),
    ],
    "ex-pgs-best-k": [
        (2, "k* rounded to the nearest integer without comparing floor and ceil"),
    ],
    "ex-qn-skip": [
        (1, "skip allowed below 1 or not an integer"),
    ],
    "ex-qn-ratio": [
        (2, "a bound for the sum that ignores the sign (cancellation left possible)"),
        (1, "subnormal results treated as having relative error u"),
    ],
    "ex-qn-rate": [
        (2, "one regime only (the 2c < 1 case missing)"),
    ],
    "ex-fiol-logistic-inverse": [
        (1, "a closed form that cancels near an end of the domain"),
    ],
    "ex-pre-gamma": [
        (1, "the form c/(c + ratio) kept: c + ratio overflows at 1e300 (the value 0 "
            "instead of 1/2)"),
    ],
    "ex-mb-without": [
        (4, "treating the draws as independent (the with-replacement variance)"),
        (2, "the bias at k = 1 not zero"),
    ],
    "ex-pre-equivalence": [
        (3, "a condition number bound that depends on sigma"),
        (2, "the eigenvalues of C_hat taken in [0, 1] (1 is not attained)"),
    ],
    "ex-dist-jensen-strict": [
        (2, "plain convexity (Jensen) only: it gives the inequality, not its strictness "
            "or the quadratic lower bound"),
    ],
    "ex-dist-one-partition": [
        (1, "keeping sigma' general: the identity holds for sigma' = 1 only"),
    ],
    "ex-dist-critical": [
        (3, "the bytes of one step without the number of steps (concludes that more "
            "workers always cost more bytes)"),
    ],
    "ex-dist-safe-tight": [
        (3, "an example with orthogonal v_k (then |sum v_k|^2 = sum |v_k|^2: the "
            "easy case, not the tight one)"),
    ],
    "ex-dist-local-sgd-quadratic": [
        (3, "averaging the inverses as if (sum p_k A_k)^{-1} = sum p_k A_k^{-1}"),
    ],
    "ex-dist-hogwild-serial": [
        (3, "inducting with a_t <= V/q but V = G^2/(2 sigma^2) or smaller (the step "
            "V(q - 1)/q^2 <= V/(q + 1) then fails)"),
    ],
    "ex-dist-cocoa-rounds": [
        (2, "dropping the expectation: Theta-approximation holds only in expectation"),
    ],
    "ex-pgs-boost": [
        (2, "(b) keeping the last or a random run instead of the one with the smallest F"),
    ],
}


def _escape(text: str) -> str:
    """Plain-text maths (w_{t+1}, |g|^2, <w, x>) as literal Markdown."""
    return re.sub(r"([\\`*_{}\[\]<>|#$])", r"\\\1", text)


def scheme_markdown(label: str, head: str = "", escape: bool = False) -> str:
    """One exercise's scheme and deductions as a Markdown list, under the line `head`
    (by default the label and the points); `escape` for a page that renders it."""
    steps = MARKING[label]
    esc = _escape if escape else str
    head = head or f"`{label}` ({sum(p for p, _ in steps)} points)"
    lines = [f"- {pts} point{'s' * (pts != 1)}: {esc(step)}" for pts, step in steps]
    lines += [f"- wrong step, minus {pts}: {esc(wrong)}"
              for pts, wrong in DEDUCTIONS.get(label, [])]
    return head + "\n\n" + "\n".join(lines) + "\n"


def schemes_markdown(root=None) -> str:
    """Every scheme, in the order of the book, each under a link to its exercise: the
    instructors' page shows this in the main edition only."""
    import sys
    from pathlib import Path

    root = Path(root) if root else Path(__file__).resolve().parents[1]
    if str(root / "tools") not in sys.path:
        sys.path.insert(0, str(root / "tools"))
    import course

    plan = course.plan(root)
    out = []
    for e in course.exercises(root):
        if e.label in MARKING:
            out.append(scheme_markdown(
                e.label, f"**{{ref}}`{e.label}`** ({e.stars} {e.kind}, "
                f"{sum(p for p, _ in MARKING[e.label])} of {e.points(plan)} points)",
                escape=True))
    return "\n".join(out)


def main(argv=None):
    """Print the schemes of every exercise (or of one part of the book) as Markdown."""
    import sys
    from pathlib import Path

    argv = sys.argv[1:] if argv is None else argv
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools"))
    import course

    for e in course.exercises():
        if e.label in MARKING and (not argv or argv[0].lower() in e.page.lower()
                                   or argv[0].lower() in e.part.lower()):
            print(scheme_markdown(e.label, f"`{e.label}` ({e.page}: {e.stars} {e.kind})"))


if __name__ == "__main__":
    main()
