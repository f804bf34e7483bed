"""Command-line entry point of the timing harness `rlmlib.book.bench.precond` (which the book's
pages import); run `.venv/bin/python benchmarks/bench_precond.py --help`."""
from rlmlib.book.bench.precond import main

if __name__ == "__main__":
    main()
