"""Command-line entry point of the timing harness `rlmlib.book.bench.sgd` (which the book's
pages import); run `.venv/bin/python benchmarks/bench_sgd.py --help`."""
from rlmlib.book.bench.sgd import main

if __name__ == "__main__":
    main()
