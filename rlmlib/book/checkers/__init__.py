"""Checkers of the book's code exercises, one module per part (``base`` holds what they share).

``check_<exercise>(student_function)`` runs the reader's function on chosen inputs and raises
``AssertionError`` naming the input, the coordinate and the size of the error; it returns a
short success message otherwise."""
from .fiol import check_breakpoints, check_logistic_inverse, check_soft, check_sort_step
from .pegasos import (check_ball_conjugate, check_best_k, check_grad_conjugate,
                      check_scaled_step, pgs_time_model)
from .precond import check_logistic_beta, check_numerical_rank, check_sampled_transform
from .sgdqn import (check_corrected_update, check_rate_exponent, check_scheduled_step,
                    check_secant_ratio, check_skip_from_cost)
