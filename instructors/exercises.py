"""Every checked code exercise of the book (DESIGN.md, "Exercise checkers").

``EXERCISES[label]`` is a list of ``Function``: the name the exercise asks for, its
self-check (``rlmlib.book.checkers.<part>.check_*``), its grader
(``instructors.grading.<part>.grade_<name>``), its reference
(``instructors.reference.<part>.<name>``) and its library twins (dotted names of rlmlib
functions that compute the same answer; a submission that calls or copies one scores 0).
A new part adds its exercises here (and its checker module under rlmlib/book/checkers/, its
grader and reference modules here).
"""
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Function:
    name: str
    part: str              # module name under rlmlib.book.checkers / instructors.*
    checker: str           # function name in rlmlib.book.checkers.<part>
    twins: tuple = field(default=())

    @property
    def checker_path(self):
        return f"rlmlib.book.checkers.{self.part}.{self.checker}"


F = Function
EXERCISES = {
    "ex-ada-catch-up": [F("adagrad_catch_up", "adaptive", "check_adagrad_catch_up",
                          ("rlmlib.solvers.adagrad.adagrad_settle",
                           "rlmlib.solvers.adagrad.adagrad_settle_all"))],
    "ex-scaled-step": [F("scaled_step", "foundations", "check_scaled_step")],
    "ex-pgs-mirror": [F("grad_conjugate", "pegasos", "check_grad_conjugate",
                        ("rlmlib.core.pnorm.grad_conjugate",
                         "rlmlib.core.pnorm._grad_phi", "rlmlib.core.pnorm._grad_phi_raw",
                         "rlmlib.core.pnorm._grad_conjugate_ball"))],
    "ex-pgs-ball": [F("r_conjugate_ball", "pegasos", "check_ball_conjugate",
                      ("rlmlib.core.pnorm.r_conjugate",))],
    "ex-pgs-best-k": [F("best_k", "pegasos", "check_best_k")],
    "ex-qn-schedule": [F("scheduled_step", "sgdqn", "check_scheduled_step")],
    "ex-qn-skip": [F("skip_from_cost", "sgdqn", "check_skip_from_cost")],
    "ex-qn-ratio": [F("secant_ratio", "sgdqn", "check_secant_ratio")],
    "ex-qn-corrected": [F("corrected_update", "sgdqn", "check_corrected_update")],
    "ex-qn-rate": [F("rate_exponent", "sgdqn", "check_rate_exponent")],
    "ex-fiol-logistic-inverse": [F("logistic_inverse", "fiol", "check_logistic_inverse",
                                   ("rlmlib.solvers.fiol.loss_inverse",))],
    "ex-fiol-breakpoints": [F("soft", "fiol", "check_soft",
                              ("rlmlib.solvers.fiol.soft_threshold",)),
                            F("bps", "fiol", "check_breakpoints",
                              ("rlmlib.solvers.fiol.breakpoints",))],
    "ex-fiol-sort-step": [F("step", "fiol", "check_sort_step",
                            ("rlmlib.solvers.fiol.fiol_step", "rlmlib.solvers.fiol.step_row",
                             "rlmlib.solvers.fiol.sort_piece",
                             "rlmlib.solvers.fiol.partition_piece",
                             "rlmlib.solvers.fiol.fiol"))],
    "ex-pre-gamma": [F("gamma", "precond", "check_numerical_rank",
                       ("rlmlib.precond.preconditioner.numerical_rank",))],
    "ex-pre-sampled": [F("sampled_transform", "precond", "check_sampled_transform",
                         ("rlmlib.precond.preconditioner.precondition",
                          "rlmlib.precond.preconditioner._precondition",
                          "rlmlib.precond.preconditioner.Preconditioner"))],
    "ex-pre-beta": [F("logistic_curvature_bound", "precond", "check_logistic_beta",
                      ("rlmlib.precond.preconditioner.logistic_beta",))],
    "ex-lazy-average": [F("lazy_average_step", "theory", "check_lazy_average_step",
                          ("rlmlib.solvers.asgd.asgd_steps",))],
    "ex-mb-variance": [F("minibatch_variance", "theory", "check_minibatch_variance")],
    "ex-lb-kl": [F("two_point_kl", "theory", "check_two_point_kl")],
    "ex-vr-lazy": [F("catch_up", "vr", "check_saga_catch_up",
                     ("rlmlib.solvers.saga.l1_catch_up",))],
    "ex-vr-sqhinge": [F("sqhinge_step", "vr", "check_sdca_squared_hinge")],
    "ex-vr-gap": [F("gap", "vr", "check_duality_gap", ("rlmlib.solvers.sdca._dual_objective",))],
    "ex-mom-polyak": [F("polyak_parameters", "momentum", "check_polyak_parameters",
                        ("rlmlib.book.momentum.polyak_parameters",))],
    "ex-mom-catch-up": [F("momentum_catch_up", "momentum", "check_momentum_catch_up",
                          ("rlmlib.solvers.sgd_momentum._catch_up",
                           "rlmlib.solvers.sgd_momentum.power_table",
                           "rlmlib.solvers.sgd_momentum.momentum_matrix",
                           "rlmlib.solvers.sgd_momentum.momentum_catch_up_all"))],
}


#: what the answers of a part may use from the library without writing it (the statements
#: name these); the notebook's set-up cell imports them, the hidden grading allows nothing
#: else of rlmlib but the self-checks (instructors/worker.py, instructors/audit.py)
SETUP = {
    "foundations": "from rlmlib import loss_code, loss_deriv",
    "pegasos": "from rlmlib.book.checkers.pegasos import pgs_time_model",
}


def setup_code(part):
    """The set-up cell of a part's assignment."""
    return "import math\n\nimport numpy as np\n" + (SETUP[part] + "\n" if part in SETUP
                                                      else "")


def allowed_library(part):
    """The (module, name) pairs of rlmlib that the answers of ``part`` may use."""
    import ast

    return sorted((n.module, a.name) for n in ast.walk(ast.parse(SETUP.get(part, "")))
                  if isinstance(n, ast.ImportFrom) for a in n.names)


def part_exercises(part):
    """[(label, [Function])] of ``part``, in the book's order."""
    return [(label, fs) for label, fs in EXERCISES.items() if fs[0].part == part]


#: the api.md entries of library functions that compute an exercise's answer: the student
#: edition's API page leaves them out (tools/student.py); kept here, with the twins, so
#: that the student tree does not hold this map to the answers
API_HIDDEN = ("rlmlib.core.pnorm.grad_conjugate", "rlmlib.core.pnorm.r_conjugate",
              "fiol_step", "rlmlib.precond.numerical_rank", "rlmlib.precond.logistic_beta")


def functions():
    """Every (label, Function) in the order above."""
    return [(label, f) for label, fs in EXERCISES.items() for f in fs]


def reference(f):
    import importlib
    return getattr(importlib.import_module(f"instructors.reference.{f.part}"), f.name)


def grader(f):
    import importlib
    return getattr(importlib.import_module(f"instructors.grading.{f.part}"),
                   f"grade_{f.name}")


def checker(f):
    import importlib
    return getattr(importlib.import_module(f"rlmlib.book.checkers.{f.part}"), f.checker)
