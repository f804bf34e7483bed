"""Data: the shipped data sets (``shipped``: breast cancer, digits, diabetes, spam, svmlight
files) and the synthetic generators that follow the papers (``synthetic``)."""
from .shipped import (DATASETS, Dataset, load_dataset, load_svmlight, load_svmlight_files,
                      sha256_file)
from .synthetic import (alpha_like, correlated_lasso, delta_like, eigen_decay, pgs_toy,
                        pgs_toy_optimum, rcv1_like)

__all__ = ["DATASETS", "Dataset", "load_dataset", "load_svmlight", "load_svmlight_files",
           "sha256_file",
           "alpha_like", "correlated_lasso", "delta_like", "eigen_decay", "pgs_toy", "pgs_toy_optimum",
           "rcv1_like"]
