"""Self-checks of the book's code exercises, one module per part (``base`` holds what they
share; DESIGN.md, "Exercise checkers").

``check_<exercise>(student_function)`` runs the student's function on fixed inputs and raises
``AssertionError`` naming the input, the coordinate and the size of the error; it returns a
short success message otherwise. The expected values are numbers (``expected.json``); the
reference answers and the hidden grading tests are the instructors' material."""
from .adaptive import check_adagrad_catch_up
from .fiol import check_breakpoints, check_logistic_inverse, check_soft, check_sort_step
from .foundations import check_scaled_step
from .pegasos import check_ball_conjugate, check_best_k, check_grad_conjugate, pgs_time_model
from .precond import check_logistic_beta, check_numerical_rank, check_sampled_transform
from .sgdqn import (check_corrected_update, check_rate_exponent, check_scheduled_step,
                    check_secant_ratio, check_skip_from_cost)
from .theory import check_lazy_average_step, check_minibatch_variance, check_two_point_kl
from .vr import check_duality_gap, check_saga_catch_up, check_sdca_squared_hinge
from .momentum import check_momentum_catch_up, check_polyak_parameters
