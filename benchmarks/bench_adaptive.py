"""Command-line entry point of `rlmlib.book.bench.adaptive` (rlmlib.adagrad/adam against
torch.optim.Adagrad/Adam in one process); run with `.venv-bench/bin/python` (`make
bench-env`): `.venv-bench/bin/python benchmarks/bench_adaptive.py --help`."""
from rlmlib.book.bench.adaptive import main

if __name__ == "__main__":
    main()
