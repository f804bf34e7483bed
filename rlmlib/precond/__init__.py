"""Data preconditioning (Yang, Jin, Zhu and Lin 2016): the preconditioner H^(-1/2) built
exactly or from sampled rows, in memory (``preconditioner``) or over a dask array
(``chunks``), and the condition numbers it changes."""
from .preconditioner import (Preconditioner, condition_numbers, incoherence,
                             logistic_beta, numerical_rank, precondition)

__all__ = ["Preconditioner", "condition_numbers", "incoherence", "logistic_beta",
           "numerical_rank", "precondition"]
