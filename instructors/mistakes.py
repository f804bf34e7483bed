"""Typical wrong answers to every checked code exercise, written as a student would.

``MISTAKES[name]`` lists ``(kind, what, spec)``: the kind of mistake (sign, factor,
off-by-one, order of cases, overflow, underflow, in-place, shape, mixed magnitudes, type,
library), what the student did, and the submission: edits ``[(old, new), ...]`` applied to
the reference answer's source, a whole ``def`` of its own, or ``"LIB:<dotted>"`` (a call of
the library's twin) / ``"COPY:<dotted>"`` (the library's source, copied). ``source(name,
spec)`` gives the submitted source; ``load(name, source)`` the function. The tests
(tests/test_grading.py) assert that the hidden grader rejects every one and count how many
the self-check rejects; tools/assignments.py writes some as nbgrader sample submissions.
"""
import importlib
import inspect
import textwrap

from instructors.exercises import functions, reference

_FN = {f.name: f for _, f in functions()}

MISTAKES = {
    "adagrad_catch_up": [
        ("mixed magnitudes", "raises the rounded factor H / (H + eta sigma) to the power c",
         """\
def adagrad_catch_up(w, gamma, c, eta, sigma, delta):
    h = delta + np.sqrt(gamma)
    return w * (h / (h + eta * sigma)) ** c
"""),
        ("factor", "the explicit factor 1 - eta sigma / H (a plain gradient step)",
         [("np.exp(-c * np.log1p(eta * sigma / h))", "(1 - eta * sigma / h) ** c")]),
        ("factor", "forgets the square root of gamma",
         [("h = delta + np.sqrt(gamma)", "h = delta + gamma")]),
        ("factor", "forgets delta", [("h = delta + np.sqrt(gamma)", "h = np.sqrt(gamma)")]),
        ("factor", "shrinks by sigma instead of eta sigma",
         [("np.log1p(eta * sigma / h)", "np.log1p(sigma / h)")]),
        ("off-by-one", "one missed step too many", [("-c *", "-(c + 1) *")]),
        ("sign", "grows instead of shrinking", [("np.exp(-c *", "np.exp(c *")]),
        ("in-place", "changes w in place", """\
def adagrad_catch_up(w, gamma, c, eta, sigma, delta):
    h = delta + np.sqrt(gamma)
    w *= np.exp(-c * np.log1p(eta * sigma / h))
    return w
"""),
        ("mixed magnitudes", "log(1 + x) instead of log1p(x)",
         [("np.log1p(eta * sigma / h)", "np.log(1 + eta * sigma / h)")]),
    ],
    "catch_up": [
        ("order", "lumps the k gradient steps before the k shrinks", """\
def catch_up(u, c, eta, sigma, k):
    v = u - k * eta * c
    return math.copysign(max(abs(v) - k * eta * sigma, 0.0), v)
"""),
        ("off-by-one", "one step short", [("    d, tau = eta * c, eta * sigma",
                                           "    d, tau = eta * c, eta * sigma\n    k -= 1")]),
        ("off-by-one", "one step too many (range(k + 1))", """\
def catch_up(u, c, eta, sigma, k):
    for _ in range(k + 1):
        v = u - eta * c
        u = math.copysign(max(abs(v) - eta * sigma, 0.0), v)
    return u
"""),
        ("factor", "forgets the shrink", [("d, tau = eta * c, eta * sigma",
                                           "d, tau = eta * c, 0.0")]),
        ("factor", "shrinks by sigma instead of eta sigma", [("d, tau = eta * c, eta * sigma",
                                                              "d, tau = eta * c, sigma")]),
        ("sign", "the shrink pushes away from zero (d - sgn tau)",
         [("r = d + sgn * tau", "r = d - sgn * tau")]),
        ("order", "shrinks before the gradient step", """\
def catch_up(u, c, eta, sigma, k):
    for _ in range(k):
        u = math.copysign(max(abs(u) - eta * sigma, 0.0), u) - eta * c
    return u
"""),
        ("off-by-one", "counts one step too many on the side (crosses zero linearly)",
         [("tau) / (sgn * r)) + 1)", "tau) / (sgn * r)) + 2)")]),
        ("order of cases", "a coordinate drifting away from zero is left where it is",
         [("return u - k * r", "return u")]),
        ("library", "calls the library", "LIB:rlmlib.solvers.saga.l1_catch_up"),
    ],
    "sqhinge_step": [
        ("factor", "the hinge loss's step", [("max(beta + (1.0 - yz - beta) / (1.0 + q), 0.0)",
                                              "min(max(beta + (1.0 - yz) / q, 0.0), 1.0)")]),
        ("sign", "no projection on beta >= 0", [("max(beta + (1.0 - yz - beta) / (1.0 + q), 0.0)",
                                                 "beta + (1.0 - yz - beta) / (1.0 + q)")]),
        ("factor", "drops the conjugate's -beta", [("(1.0 - yz - beta)", "(1.0 - yz)")]),
        ("sign", "+yz in the numerator", [("(1.0 - yz - beta)", "(1.0 + yz - beta)")]),
        ("factor", "divides by q instead of 1 + q", [("/ (1.0 + q)", "/ q")]),
        ("factor", "the conjugate's beta^2/2 differentiated to beta/2",
         [("(1.0 - yz - beta)", "(1.0 - yz - beta / 2)")]),
        ("order", "projects the increment, not the new value",
         [("max(beta + (1.0 - yz - beta) / (1.0 + q), 0.0)",
           "beta + max((1.0 - yz - beta) / (1.0 + q), 0.0)")]),
        ("order of cases", "min instead of max (projects on beta <= 0)",
         [("max(beta + ", "min(beta + ")]),
        ("structure", "returns the increment instead of the new beta",
         [("max(beta + (1.0 - yz - beta)", "max((1.0 - yz - beta)")]),
        ("mixed magnitudes", "one fraction (beta q + 1 - yz)/(1 + q): cancels, overflows",
         [("max(beta + (1.0 - yz - beta) / (1.0 + q), 0.0)",
           "max((beta * q + 1.0 - yz) / (1.0 + q), 0.0)")]),
    ],
    "gap": [
        ("sign", "the two (sigma/2)||w||^2 cancel", [("- (np.mean(alpha * y) - sigma / 2 * w @ w)",
                                                      "- np.mean(alpha * y) - sigma / 2 * w @ w")]),
        ("factor", "w(alpha) without 1/sigma", [("/ (sigma * len(y))", "/ len(y)")]),
        ("in-place", "scales alpha in place", [("w = X.T @ alpha / (sigma * len(y))",
                                                "alpha /= sigma * len(y)\n    w = X.T @ alpha")]),
        ("factor", "sigma ||w||^2 in P (no 1/2)", [("P = sigma / 2 * w @ w", "P = sigma * w @ w")]),
        ("factor", "sums the hinge losses instead of averaging",
         [("np.mean(np.maximum(", "np.sum(np.maximum(")]),
        ("sign", "hinge of 1 + y z", [("1.0 - y * (X @ w)", "1.0 + y * (X @ w)")]),
        ("off-by-one", "w(alpha) divided by m - 1", [("/ (sigma * len(y))",
                                                      "/ (sigma * (len(y) - 1))")]),
        ("order of cases", "drops the max(0, .) of the hinge",
         [("np.mean(np.maximum(0.0, 1.0 - y * (X @ w)))", "np.mean(1.0 - y * (X @ w))")]),
        ("sign", "the dual's mean of alpha without y", [("np.mean(alpha * y)",
                                                         "np.mean(alpha)")]),
        ("shape", "w = X alpha (rows instead of columns)", [("X.T @ alpha", "X @ alpha")]),
        ("library", "calls the library", "LIB:rlmlib.solvers.sdca._dual_objective"),
    ],
    "scaled_step": [
        ("sign", "adds the loss step", [("v[nz] -= ", "v[nz] += ")]),
        ("factor", "does not divide the loss step by the new scale",
         [("(eta * d / s)", "(eta * d)")]),
        ("off-by-one", "eta = 1/(sigma (t + t0 + 1))", [("(t + t0))", "(t + t0 + 1))")]),
        ("order", "margin computed with the shrunk scale",
         [("s * float(v @ x)", "s * (1.0 - eta * sigma) * float(v @ x)")]),
        ("overflow", "logistic derivative with math.exp(y z)",
         [('d = loss_deriv(loss_code("logistic"), s * float(v @ x), y)',
           "d = -y / (1.0 + math.exp(y * s * float(v @ x)))")]),
        ("underflow", "never folds the scale (s becomes 0 at t + t0 = 1)",
         [("if abs(s) < 1e-9:", "if False:")]),
        ("structure", "shrinks v instead of s (O(n) per step)",
         [("s = s * (1.0 - eta * sigma)", "v = v * (1.0 - eta * sigma)")]),
        ("in-place", "scales x in place", [("v[nz] -= (eta * d / s) * x[nz]",
                                            "x[nz] *= eta * d / s\n    v[nz] -= x[nz]")]),
        ("shape", "returns v on the support only", [("return s, v", "return s, v[nz]")]),
        ("mixed magnitudes", "folds the scale into v at every step",
         [("if abs(s) < 1e-9:", "if True:")]),
    ],
    "grad_conjugate": [
        ("factor", "forgets 1/(q-1)", [(" / (q - 1)\n", "\n")]),
        ("exponent", "uses p where q belongs", [("q = p / (p - 1)", "q = p")]),
        ("sign", "loses the sign of theta", [(" * np.sign(theta)", "")]),
        ("overflow", "computes ||theta||_q directly", """\
def grad_conjugate(theta, p):
    q = p / (p - 1)
    nq = np.sum(np.abs(theta) ** q) ** (1 / q)
    return nq ** (2 - q) * np.abs(theta) ** (q - 1) * np.sign(theta) / (q - 1)
"""),
        ("underflow", "raises theta/M to the power q - 1 (underflows in a mixed vector)",
         [("return nu ** (2 - q) * base ** (q - 1) * np.sign(theta) / (q - 1)",
           "return nu ** (2 - q) * M * (np.abs(theta) / M) ** (q - 1) * np.sign(theta)"
           " / (q - 1)")]),
        ("zero", "no case for theta = 0", [("    if M == 0:\n        return np.zeros_like(theta)\n",
                                            "")]),
        ("in-place", "writes the result into theta",
         [("return nu ** (2 - q) * base ** (q - 1) * np.sign(theta) / (q - 1)",
           "theta[:] = nu ** (2 - q) * base ** (q - 1) * np.sign(theta) / (q - 1)\n"
           "    return theta")]),
        ("shape", "returns a column", [("return nu ** (2 - q) * base ** (q - 1) * np.sign(theta)"
                                        " / (q - 1)",
                                        "return (nu ** (2 - q) * base ** (q - 1) * "
                                        "np.sign(theta) / (q - 1)).reshape(-1, 1)")]),
        ("library", "calls the library's mirror map", "LIB:rlmlib.core.pnorm.grad_conjugate"),
        ("library", "copies the library's source", "COPY:rlmlib.core.pnorm.grad_conjugate"),
    ],
    "r_conjugate_ball": [
        ("order", "switches at ||theta||_q = B", [("if (p - 1) * nq <= B:", "if nq <= B:")]),
        ("factor", "forgets p - 1 inside", [("return (p - 1) * nq ** 2 / 2",
                                             "return nq ** 2 / 2")]),
        ("sign", "adds B^2/(2(p-1))", [("B * nq - B ** 2", "B * nq + B ** 2")]),
        ("exponent", "uses p where q belongs", [("q = p / (p - 1)", "q = p")]),
        ("overflow", "computes ||theta||_q directly",
         [("nq = 0.0 if M == 0 else M * np.sum((np.abs(theta) / M) ** q) ** (1 / q)",
           "nq = np.sum(np.abs(theta) ** q) ** (1 / q)")]),
        ("underflow", "treats a tiny theta as 0",
         [("nq = 0.0 if M == 0 else", "nq = 0.0 if M < 1e-100 else")]),
        ("order", "the two cases swapped",
         [("if (p - 1) * nq <= B:\n        return (p - 1) * nq ** 2 / 2\n"
           "    return B * nq - B ** 2 / (2 * (p - 1))",
           "if (p - 1) * nq > B:\n        return (p - 1) * nq ** 2 / 2\n"
           "    return B * nq - B ** 2 / (2 * (p - 1))")]),
        ("zero", "no case for theta = 0", [("nq = 0.0 if M == 0 else M", "nq = M")]),
        ("in-place", "takes |theta| in place", [("q = p / (p - 1)\n",
                                                 "q = p / (p - 1)\n    np.abs(theta, out=theta)\n")]),
        ("library", "calls the library", """\
def r_conjugate_ball(theta, p, B):
    from rlmlib.core.pnorm import r_conjugate
    return r_conjugate(theta, p, radius=B)
"""),
    ],
    "best_k": [
        ("rounding", "rounds k*", """\
def best_k(n, d, a, b):
    return max(1, round(math.sqrt(b * n / (a * d))))
"""),
        ("off-by-one", "floor of k* only", [("return min(cands, key=lambda k: "
                                              "pgs_time_model(k, n, d, a, b))",
                                              "return max(1, math.floor(kc))")]),
        ("off-by-one", "ceiling of k* only", [("return min(cands, key=lambda k: "
                                                "pgs_time_model(k, n, d, a, b))",
                                                "return max(1, math.ceil(kc))")]),
        ("factor", "a and b swapped", [("math.sqrt(b * n / (a * d))",
                                        "math.sqrt(a * n / (b * d))")]),
        ("factor", "n and d swapped", [("math.sqrt(b * n / (a * d))",
                                        "math.sqrt(b * d / (a * n))")]),
        ("type", "returns a float", [("return min(", "return float(min("),
                                     ("pgs_time_model(k, n, d, a, b))",
                                      "pgs_time_model(k, n, d, a, b)))")]),
        ("off-by-one", "one more than the best", [("pgs_time_model(k, n, d, a, b))",
                                                   "pgs_time_model(k, n, d, a, b)) + 1")]),
        ("domain", "allows k = 0", [("{max(1, math.floor(kc)), max(1, math.ceil(kc))}",
                                     "{math.floor(kc), math.ceil(kc)}")]),
        ("exponent", "forgets the square root", [("math.sqrt(b * n / (a * d))",
                                                  "(b * n / (a * d))")]),
    ],
    "scheduled_step": [
        ("factor", "gain 1/(t + t0) instead of skip/(t + t0)",
         [("(1 - skip / (t + t0))", "(1 - 1 / (t + t0))")]),
        ("sign", "adds the loss step", [("return w - dl", "return w + dl")]),
        ("off-by-one", "regularizes one step late", [("if count <= 0:", "if count < 0:")]),
        ("off-by-one", "count decremented by 0.1 (off by 0.9)",
         [("count -= 1", "count -= 0.1")]),
        ("order", "margin after the regularization",
         [("    z = x @ w                                    # margin before either update\n", ""),
          ("dl = -y", "z = x @ w\n    dl = -y")]),
        ("order", "loss step before the regularization (the paper's Fig. 1)", """\
def scheduled_step(w, x, y, t, t0, sigma, skip, count):
    z = x @ w
    dl = -y * max(0.0, 1 - y * z)
    w = w - dl * x / (sigma * (t + t0))
    count -= 1
    if count <= 0:
        w = w * (1 - skip / (t + t0))
        count = skip
    return w, count
"""),
        ("in-place", "shrinks w in place", [("w = w * (1 - skip / (t + t0))",
                                             "w *= (1 - skip / (t + t0))")]),
        ("loss", "hinge instead of squared hinge",
         [("dl = -y * max(0.0, 1 - y * z)", "dl = -y * float(1 - y * z > 0)")]),
        ("off-by-one", "restarts the countdown at skip - 1", [("count = skip", "count = skip - 1")]),
        ("factor", "forgets sigma in the gain", [("/ (sigma * (t + t0))", "/ (t + t0)")]),
    ],
    "skip_from_cost": [
        ("off-by-one", "truncates c n / d", """\
def skip_from_cost(n, d, c):
    return max(1, int(c * n / d))
"""),
        ("off-by-one", "int(c n / d) + 1", """\
def skip_from_cost(n, d, c):
    return int(c * n / d) + 1
"""),
        ("type", "returns a float", """\
def skip_from_cost(n, d, c):
    return float(max(1, math.ceil(c * n / d)))
"""),
        ("rounding", "rounds to nearest", """\
def skip_from_cost(n, d, c):
    return max(1, round(c * n / d))
"""),
        ("factor", "c d / n", """\
def skip_from_cost(n, d, c):
    return max(1, math.ceil(c * d / n))
"""),
        ("factor", "forgets c", """\
def skip_from_cost(n, d, c):
    return max(1, math.ceil(n / d))
"""),
        ("rounding", "ceil of the rounded quotient (2 for c n / d = 0.99999999999999998)", """\
def skip_from_cost(n, d, c):
    return max(1, math.ceil(c * n / d))
"""),
        ("off-by-one", "floor + 1", """\
def skip_from_cost(n, d, c):
    return math.floor(c * n / d) + 1
"""),
    ],
    "secant_ratio": [
        ("zero", "0/0 left where dw = 0", """\
def secant_ratio(dw, dd, x, sigma):
    return dw / (sigma * dw + dd * x)
"""),
        ("inverse", "the curvature instead of its inverse",
         [("np.full(dw.shape, 1 / sigma)", "np.full(dw.shape, sigma)"),
          ("out[nz] = 1 / (sigma + dd", "out[nz] = (sigma + dd")]),
        ("factor", "forgets sigma in the denominator", [("1 / (sigma + dd *", "1 / (dd *")]),
        ("limit", "0 where dw = 0", [("np.full(dw.shape, 1 / sigma)", "np.zeros(dw.shape)")]),
        ("underflow", "multiplies the small numbers first",
         [("out[nz] = 1 / (sigma + dd * (x[nz] / dw[nz]))",
           "out[nz] = dw[nz] / (sigma * dw[nz] + dd * x[nz])")]),
        ("sign", "sigma - dd x/dw", [("(sigma + dd", "(sigma - dd")]),
        ("in-place", "divides x in place", [("out[nz] = 1 / (sigma + dd * (x[nz] / dw[nz]))",
                                             "x[nz] /= dw[nz]\n    out[nz] = 1 / (sigma + dd"
                                             " * x[nz])")]),
        ("shape", "returns the non-zero steps only", [("return out", "return out[nz]")]),
        ("overflow", "multiplies by 1/dw (inf for a subnormal dw)",
         [("(x[nz] / dw[nz])", "(x[nz] * (1 / dw[nz]))")]),
    ],
    "corrected_update": [
        ("order", "tests w1 = w before x = 0", [("r[on & (diffw == 0)] = 100 * sigma",
                                                 "r[diffw == 0] = 100 * sigma")]),
        ("inverse", "averages inverse curvatures (the 2009 flaw)",
         [("1 / (1 / B + dt * r)", "1 / (1 / B + dt / r)")]),
        ("clipping", "no clipping", [("np.clip(sigma + dd * x[ok] / diffw[ok], sigma, "
                                      "100 * sigma)", "sigma + dd * x[ok] / diffw[ok]")]),
        ("clipping", "clips above only", [("np.clip(sigma + dd * x[ok] / diffw[ok], sigma, "
                                           "100 * sigma)",
                                           "np.minimum(sigma + dd * x[ok] / diffw[ok], "
                                           "100 * sigma)")]),
        ("factor", "forgets dt", [("dt * r", "r")]),
        ("zero", "x_i = 0 gets no curvature", [("r = np.full(B.shape, sigma)",
                                                "r = np.zeros(B.shape)")]),
        ("sign", "sigma - dd x/dw", [("sigma + dd * x[ok]", "sigma - dd * x[ok]")]),
        ("in-place", "updates B in place", [("return 1 / (1 / B + dt * r)",
                                             "B[:] = 1 / (1 / B + dt * r)\n    return B")]),
        ("case", "w1 = w on a present feature gets sigma",
         [("    r[on & (diffw == 0)] = 100 * sigma\n", "")]),
        ("order", "clip bounds applied in the wrong order",
         [("np.clip(sigma + dd * x[ok] / diffw[ok], sigma, 100 * sigma)",
           "np.maximum(np.minimum(sigma + dd * x[ok] / diffw[ok], sigma), 100 * sigma)")]),
    ],
    "rate_exponent": [
        ("theory", "always 1/t", "def rate_exponent(c):\n    return 1.0\n"),
        ("threshold", "no cap at 1", "def rate_exponent(c):\n    return 2.0 * c\n"),
        ("factor", "min(1, c)", "def rate_exponent(c):\n    return min(1.0, c)\n"),
        ("order", "max instead of min", "def rate_exponent(c):\n    return max(1.0, 2.0 * c)\n"),
        ("factor", "min(1, c/2)", "def rate_exponent(c):\n    return min(1.0, c / 2)\n"),
        ("off-by-one", "switches at c = 1", """\
def rate_exponent(c):
    return 1.0 if c >= 1 else 2.0 * c
"""),
        ("sign", "a negative exponent", "def rate_exponent(c):\n    return -min(1.0, 2.0 * c)\n"),
        ("type", "returns a string", "def rate_exponent(c):\n    return str(min(1.0, 2.0 * c))\n"),
        ("shape", "returns an array", """\
def rate_exponent(c):
    return np.minimum(1.0, 2.0 * np.array([c, c]))
"""),
    ],
    "logistic_inverse": [
        ("sign", "the sign flipped", [("return y * (", "return -y * (")]),
        ("cancellation", "log(-1/(s y) - 1) (cancels near s y = -1)", """\
def logistic_inverse(s, y):
    return y * math.log(-1.0 / (s * y) - 1.0)
"""),
        ("factor", "forgets the label", [("return y * (", "return (")]),
        ("sign", "adds the two logarithms", [("math.log1p(t) - math.log(-t)",
                                              "math.log1p(t) + math.log(-t)")]),
        ("domain", "uses s where s y belongs", [("t = s * y", "t = s")]),
        ("accuracy", "an approximation exact at the ends, 3e-4 off in the middle",
         [("return y * (math.log1p(t) - math.log(-t))",
           "return y * (math.log1p(t) - math.log(-t)) + 1.2e-3 * y * t * (1 + t)")]),
        ("precision", "single precision", [("return y * (math.log1p(t) - math.log(-t))",
                                            "return float(np.float32(y * (math.log1p(t) - "
                                            "math.log(-t))))")]),
        ("overflow", "1/(-s y) overflows for a subnormal s y",
         [("return y * (math.log1p(t) - math.log(-t))",
           "return y * math.log((1 + t) * (1 / -t))")]),
        ("library", "calls the library's inverse", """\
def logistic_inverse(s, y):
    from rlmlib.solvers.fiol import loss_inverse
    return loss_inverse("logistic", s, y)[0]
"""),
    ],
    "soft": [
        ("clipping", "no zeros inside [-a, a]", "def soft(u, a):\n    return u - a * np.sign(u)\n"),
        ("sign", "loses the sign", "def soft(u, a):\n    return np.maximum(np.abs(u) - a, 0.0)\n"),
        ("factor", "threshold 2a", [("np.abs(u) - a", "np.abs(u) - 2 * a")]),
        ("order", "minimum instead of maximum", [("np.maximum", "np.minimum")]),
        ("in-place", "thresholds u in place", """\
def soft(u, a):
    u[np.abs(u) <= a] = 0.0
    u -= a * np.sign(u)
    return u
"""),
        ("overflow", "|u| as sqrt(u*u)", [("np.abs(u) - a", "np.sqrt(u * u) - a")]),
        ("zero", "sign as u/|u|", [("np.sign(u)", "(u / np.abs(u))")]),
        ("shape", "returns the non-zero entries", [("return np.sign(u) * np.maximum(np.abs(u) - "
                                                    "a, 0.0)",
                                                    "out = np.sign(u) * np.maximum(np.abs(u) "
                                                    "- a, 0.0)\n    return out[out != 0]")]),
        ("off-by-one", "keeps u unchanged inside the threshold", """\
def soft(u, a):
    return np.where(np.abs(u) >= a, u - a * np.sign(u), u)
"""),
        ("library", "calls the library", "LIB:rlmlib.solvers.fiol.soft_threshold"),
    ],
    "bps": [
        ("sign", "sigma/x instead of sigma/|x|", [("sigma / np.abs(x[nz])", "sigma / x[nz]")]),
        ("order", "lo and hi swapped", [("return base - q, base + q", "return base + q, base - q")]),
        ("factor", "forgets eta", [("w[nz] / (eta * x[nz])", "w[nz] / x[nz]")]),
        ("factor", "multiplies by eta", [("w[nz] / (eta * x[nz])", "w[nz] * eta / x[nz]")]),
        ("shape", "every coordinate, x_j = 0 included", [("nz = x != 0", "nz = slice(None)")]),
        ("factor", "eta sigma / |x|", [("sigma / np.abs(x[nz])", "eta * sigma / np.abs(x[nz])")]),
        ("in-place", "divides w in place", [("base, q = w[nz] / (eta * x[nz]), ",
                                             "w[nz] /= eta * x[nz]\n    base, q = w[nz], ")]),
        ("order", "sorted breakpoints", [("return base - q, base + q",
                                          "return np.sort(base - q), np.sort(base + q)")]),
        ("sign", "-w/(eta x)", [("base, q = w[nz]", "base, q = -w[nz]")]),
        ("library", "calls the library", """\
def bps(w, x, eta, sigma):
    from rlmlib.solvers.fiol import breakpoints
    return breakpoints(w, x, eta=eta, sigma=sigma)[:2]
"""),
    ],
    "step": [
        ("explicit", "the explicit (COMID) step", """\
def step(w, x, y, eta, sigma):
    u = w - eta * (w @ x - y) * x
    return np.sign(u) * np.maximum(np.abs(u) - eta * sigma, 0.0)
"""),
        ("sign", "s = (A + y)/(1 + C)", [("s = (A - y) / (1 + C)", "s = (A + y) / (1 + C)")]),
        ("factor", "forgets eta in C", [("C = eta * np.sum", "C = np.sum")]),
        ("off-by-one", "solves at the breakpoint instead of inside the piece",
         [("mid_ = 0.5 * (left + right)", "mid_ = right")]),
        ("order", "the breakpoint test reversed", [("if g(b[mid]) - y <= b[mid]:",
                                                    "if g(b[mid]) - y >= b[mid]:")]),
        ("in-place", "steps w in place", [("return soft(w - eta * s * x, eta * sigma)",
                                           "w -= eta * s * x\n    return soft(w, eta * sigma)")]),
        ("factor", "threshold sigma instead of eta sigma in the result",
         [("return soft(w - eta * s * x, eta * sigma)", "return soft(w - eta * s * x, sigma)")]),
        ("shape", "returns the support of x only", [("return soft(w - eta * s * x, eta * sigma)",
                                                     "return soft(w - eta * s * x, eta * "
                                                     "sigma)[x != 0]")]),
        ("library", "calls the library's step", """\
def step(w, x, y, eta, sigma):
    import rlmlib
    return rlmlib.fiol_step(w, x, y, eta=eta, sigma=sigma, loss="squared")
"""),
        ("library", "copies the library's step", "COPY:rlmlib.solvers.fiol.fiol_step"),
    ],
    "gamma": [
        ("overflow", "c/(c + ratio) (c + ratio overflows)", """\
def gamma(eigenvalues, ratio):
    c = np.asarray(eigenvalues, dtype=float)
    return float(np.sum(c / (c + ratio)))
"""),
        ("inverse", "uses 1/ratio", [("ratio / c[pos]", "(1 / ratio) / c[pos]")]),
        ("complement", "ratio/(c + ratio)", [("1.0 / (1.0 + ratio / c[pos])",
                                              "1.0 / (1.0 + c[pos] / ratio)")]),
        ("zero", "counts zero eigenvalues as 1", [("return float(out.sum())",
                                                   "return float(out.sum() + np.sum(c == 0))")]),
        ("overflow", "in the log domain", """\
def gamma(eigenvalues, ratio):
    c = np.asarray(eigenvalues, dtype=float)
    c = c[c > 0]
    return float(np.sum(np.exp(np.log(c) - np.log(c + ratio))))
"""),
        ("factor", "ratio * c", [("ratio / c[pos]", "ratio * c[pos]")]),
        ("factor", "the mean instead of the sum", [("out.sum()", "out.mean()")]),
        ("shape", "returns the terms", [("return float(out.sum())", "return out")]),
        ("library", "calls the library", "LIB:rlmlib.precond.preconditioner.numerical_rank"),
    ],
    "sampled_transform": [
        ("complement", "drops the complement term",
         [("return np.sqrt(beta / sigma) * X + ((X @ U) * coef) @ U.T",
           "return ((X @ U) * (c + sigma / beta) ** -0.5) @ U.T")]),
        ("factor", "normalizes by m instead of s", [("/ np.sqrt(len(sample))",
                                                     "/ np.sqrt(X.shape[0])")]),
        ("inverse", "beta/sigma where sigma/beta belongs",
         [("sigma / beta", "@@"), ("beta / sigma", "sigma / beta"), ("@@", "beta / sigma")]),
        ("sign", "H^(1/2) instead of H^(-1/2)", [("** -0.5", "** 0.5")]),
        ("exponent", "H^-1 instead of H^(-1/2)", [("** -0.5 - np.sqrt(beta / sigma)",
                                                   "** -1.0 - beta / sigma"),
                                                  ("return np.sqrt(beta / sigma) * X",
                                                   "return beta / sigma * X")]),
        ("magnitude", "drops small singular values", [("sv.max() * 1e-10", "sv.max() * 1e-1")]),
        ("in-place", "scales X in place",
         [("return np.sqrt(beta / sigma) * X + ((X @ U) * coef) @ U.T",
           "XU = X @ U\n    X *= np.sqrt(beta / sigma)\n    X += (XU * coef) @ U.T\n"
           "    return X")]),
        ("shape", "returns the transpose", [("return np.sqrt(beta / sigma) * X + ((X @ U) * "
                                             "coef) @ U.T",
                                             "return (np.sqrt(beta / sigma) * X + ((X @ U) * "
                                             "coef) @ U.T).T")]),
        ("off-by-one", "the first s rows instead of the sample", [("X[sample]",
                                                                   "X[:len(sample)]")]),
    ],
    "logistic_curvature_bound": [
        ("cancellation", "sigma(R)(1 - sigma(R))", """\
def logistic_curvature_bound(R):
    sig = 1.0 / (1.0 + math.exp(-R))
    return sig * (1.0 - sig)
"""),
        ("order", "the curvature at 0 (the largest)", "def logistic_curvature_bound(R):\n"
                                                      "    return 0.25\n"),
        ("overflow", "e^R/(1 + e^R)^2", """\
def logistic_curvature_bound(R):
    return math.exp(R) / (1.0 + math.exp(R)) ** 2
"""),
        ("factor", "1/(1 + e^R + e^-R)", [("1.0 / (2.0 +", "1.0 / (1.0 +")]),
        ("sign", "a negative tail", [("return math.exp(-R)", "return -math.exp(-R)")]),
        ("threshold", "switches to e^-R too early", [("if R > 40:", "if R > 10:")]),
        ("precision", "single precision", [("return 1.0 / (2.0 + math.exp(R) + math.exp(-R))",
                                            "return float(np.float32(1.0 / (2.0 + math.exp(R)"
                                            " + math.exp(-R))))")]),
        ("factor", "2R instead of R", [("math.exp(R) + math.exp(-R)",
                                        "math.exp(2 * R) + math.exp(-2 * R)")]),
        ("sign", "e^R - e^-R", [("math.exp(R) + math.exp(-R)", "math.exp(R) - math.exp(-R)")]),
        ("library", "calls the library", "LIB:rlmlib.precond.preconditioner.logistic_beta"),
    ],
    "lazy_average_step": [
        ("sign", "adds the correction to u", [("u[idx] -= ", "u[idx] += ")]),
        ("factor", "forgets the division by alpha", [("(beta * c / alpha)", "(beta * c)")]),
        ("order", "updates u with the new alpha and beta", """\
def lazy_average_step(u, v, alpha, beta, s, idx, val, c, mu):
    v[idx] += c * val
    alpha, beta = (1 - mu) * alpha, (1 - mu) * beta + mu * s
    u[idx] -= (beta * c / alpha) * val
    return u, v, alpha, beta
"""),
        ("factor", "forgets (1 - mu) on beta", [("(1 - mu) * beta + mu * s", "beta + mu * s")]),
        ("factor", "adds mu instead of mu s", [("+ mu * s", "+ mu")]),
        ("off-by-one", "alpha times mu instead of (1 - mu)", [("(1 - mu) * alpha", "mu * alpha")]),
        ("sign", "subtracts the loss step from v", [("v[idx] += c * val", "v[idx] -= c * val")]),
        ("in-place", "scales the row's values in place", """\
def lazy_average_step(u, v, alpha, beta, s, idx, val, c, mu):
    val *= c
    v[idx] += val
    u[idx] -= (beta / alpha) * val
    return u, v, (1 - mu) * alpha, (1 - mu) * beta + mu * s
"""),
        ("structure", "forms the dense average in u (O(n) per step)", """\
def lazy_average_step(u, v, alpha, beta, s, idx, val, c, mu):
    x = np.zeros_like(v)
    x[idx] = val
    abar = (1 - mu) * (alpha * u + beta * v) + mu * s * (v + c * x)
    v[idx] += c * val
    u[:] = abar
    return u, v, 1.0, 0.0
"""),
        ("shape", "returns only (alpha, beta)", [("return u, v, (1 - mu) * alpha",
                                                 "return (1 - mu) * alpha")]),
    ],
    "minibatch_variance": [
        ("factor", "divides by k squared", [("return V / k\n", "return V / k ** 2\n")]),
        ("factor", "no finite-population factor", [("V / k * (m - k) / (m - 1)", "V / k")]),
        ("off-by-one", "(m - k)/m instead of (m - k)/(m - 1)",
         [("(m - k) / (m - 1)", "(m - k) / m")]),
        ("off-by-one", "V with 1/(m - 1) (ddof = 1)",
         [("V = np.mean(np.sum((G - G.mean(axis=0)) ** 2, axis=1))",
           "V = np.sum((G - G.mean(axis=0)) ** 2) / max(m - 1, 1)")]),
        ("mixed magnitudes", "one pass: E|g|^2 - |mean|^2 cancels",
         [("V = np.mean(np.sum((G - G.mean(axis=0)) ** 2, axis=1))",
           "V = np.mean(np.sum(G ** 2, axis=1)) - np.sum(G.mean(axis=0) ** 2)")]),
        ("in-place", "centres G in place", """\
def minibatch_variance(G, k, replace):
    m = G.shape[0]
    G -= G.mean(axis=0)
    V = np.mean(np.sum(G ** 2, axis=1))
    if replace:
        return V / k
    return 0.0 if m == 1 else V / k * (m - k) / (m - 1)
"""),
        ("factor", "returns the standard deviation", [("return V / k\n",
                                                       "return np.sqrt(V / k)\n")]),
        ("order", "swaps the two cases", [("if replace:", "if not replace:")]),
        ("zero", "no case for one row (0/0)", [("0.0 if m == 1 else ", "")]),
    ],
    "two_point_kl": [
        ("mixed magnitudes", "forms (1 + delta)/(1 - delta) first", """\
def two_point_kl(delta, T):
    return T * delta * math.log((1 + delta) / (1 - delta))
"""),
        ("factor", "half the divergence", [("return T * delta", "return 0.5 * T * delta")]),
        ("factor", "one flip instead of T", [("return T * delta", "return delta")]),
        ("factor", "the small-delta approximation 2 T delta^2", """\
def two_point_kl(delta, T):
    return 2 * T * delta ** 2
"""),
        ("sign", "log1p(-delta) - log1p(delta)",
         [("(math.log1p(delta) - math.log1p(-delta))",
           "(math.log1p(-delta) - math.log1p(delta))")]),
        ("off-by-one", "T - 1 flips", [("return T * delta", "return (T - 1) * delta")]),
        ("mixed magnitudes", "log(1 + delta) instead of log1p",
         [("(math.log1p(delta) - math.log1p(-delta))",
           "(np.log(1 + delta) - np.log(1 - delta))")]),
        ("type", "rounds to an integer", [("return T * delta * (math.log1p(delta) - "
                                           "math.log1p(-delta))",
                                           "return round(T * delta * (math.log1p(delta) - "
                                           "math.log1p(-delta)))")]),
    ],
    "momentum_catch_up": [
        ("factor", "heavy ball's matrix for Nesterov too", [("    if nesterov:\n",
                                                            "    if False:\n")]),
        ("off-by-one", "A^(d-1): one step short", [("int(d))", "int(d) - 1)")]),
        ("off-by-one", "A^(d+1): one step too many", [("int(d))", "int(d) + 1)")]),
        ("factor", "Nesterov's -step beta instead of -step beta^2",
         [("(1.0 + beta), -step * beta * beta", "(1.0 + beta), -step * beta")]),
        ("factor", "forgets the step in the shrink 1 - step sigma",
         [("a11, a12 = 1.0 - step * sigma, -step * beta",
           "a11, a12 = 1.0 - sigma, -step * beta")]),
        ("structure", "returns (v, w)", [("return float(out[0] * s), float(out[1] * s)",
                                          "return float(out[1] * s), float(out[0] * s)")]),
        ("order", "moves w with the old v, then updates v", """\
def momentum_catch_up(w, v, step, beta, sigma, nesterov, d):
    for _ in range(int(d)):
        w_new = w - step * v if not nesterov else w - step * (sigma * w + beta * v)
        v = beta * v + sigma * w
        w = w_new
    return w, v
"""),
        ("off-by-one", "d = 0 returns zeros", [("return float(w), float(v)",
                                                "return 0.0, 0.0")]),
        ("type", "returns w only", [("return float(out[0] * s), float(out[1] * s)",
                                     "return float(out[0] * s)")]),
    ],
    "polyak_parameters": [
        ("factor", "beta not squared", [("return 4.0 / (sL + sm) ** 2, r * r",
                                         "return 4.0 / (sL + sm) ** 2, r")]),
        ("factor", "eta = 4/(L + mu)", [("4.0 / (sL + sm) ** 2", "4.0 / (L + mu)")]),
        ("factor", "gradient descent's step 2/(L + mu)", [("4.0 / (sL + sm) ** 2",
                                                           "2.0 / (L + mu)")]),
        ("overflow", "forms Q = L/mu", """\
def polyak_parameters(L, mu):
    Q = L / mu
    r = (math.sqrt(Q) - 1.0) / (math.sqrt(Q) + 1.0)
    return 4.0 / (math.sqrt(L) + math.sqrt(mu)) ** 2, r * r
"""),
        ("sign", "the inverse ratio (sqrt L + sqrt mu)/(sqrt L - sqrt mu)",
         [("r = (sL - sm) / (sL + sm)", "r = (sL + sm) / (sL - sm)")]),
        ("factor", "sqrt(r) instead of r^2", [("return 4.0 / (sL + sm) ** 2, r * r",
                                               "return 4.0 / (sL + sm) ** 2, math.sqrt(r)")]),
        ("factor", "the step without its square", [("4.0 / (sL + sm) ** 2",
                                                     "4.0 / (sL + sm)")]),
        ("factor", "the approximation beta = (1 - 2/sqrt(Q))^2", """\
def polyak_parameters(L, mu):
    sL, sm = math.sqrt(L), math.sqrt(mu)
    return 4.0 / (sL + sm) ** 2, (1.0 - 2.0 * sm / sL) ** 2
"""),
        ("mixed magnitudes", "beta = 1 - 4 sqrt(Q)/(sqrt(Q) + 1)^2: cancels near Q = 1",
         [("return 4.0 / (sL + sm) ** 2, r * r",
           "return 4.0 / (sL + sm) ** 2, 1.0 - 4.0 * sL * sm / (sL + sm) ** 2")]),
        ("library", "calls the book's own polyak_parameters",
         "LIB:rlmlib.book.momentum.polyak_parameters"),
    ],
}


def _signature(name):
    return str(inspect.signature(reference(_FN[name])))


def source(name, spec):
    """The submitted source of mistake ``spec`` for the function ``name``."""
    if isinstance(spec, list):
        text = textwrap.dedent(inspect.getsource(reference(_FN[name])))
        for old, new in spec:
            if old not in text:
                raise ValueError(f"{name}: edit {old!r} does not apply to the reference")
            text = text.replace(old, new)
        return text
    if spec.startswith("LIB:"):
        module, _, attr = spec[4:].rpartition(".")
        args = _signature(name)[1:-1]
        return (f"def {name}({args}):\n    from {module} import {attr}\n"
                f"    return {attr}({args})\n")
    if spec.startswith("COPY:"):
        module, _, attr = spec[5:].rpartition(".")
        obj = getattr(importlib.import_module(module), attr)
        text = textwrap.dedent(inspect.getsource(getattr(obj, "py_func", obj)))
        return text.replace(f"def {attr}(", f"def {name}(", 1)
    return spec


def _namespace(name, spec):
    ns = dict(vars(importlib.import_module(f"instructors.reference.{_FN[name].part}")))
    if isinstance(spec, str) and spec.startswith("COPY:"):
        ns.update(vars(importlib.import_module(spec[5:].rpartition(".")[0])))
    import math

    import numpy as np
    ns.update(np=np, math=math)
    return ns


def load(name, spec):
    """The function a student would submit for mistake ``spec`` of ``name``."""
    ns = _namespace(name, spec)
    exec(compile(source(name, spec), f"<mistake {name}>", "exec"), ns)  # noqa: S102
    return ns[name]


def all_mistakes():
    """(name, kind, what, spec) for every mistake."""
    return [(name, kind, what, spec) for name, items in MISTAKES.items()
            for kind, what, spec in items]
