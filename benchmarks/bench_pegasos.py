"""Command-line entry point of the timing harness `rlmlib.book.bench.pegasos` (which the book's
pages import); run `.venv/bin/python benchmarks/bench_pegasos.py --help`."""
from rlmlib.book.bench.pegasos import main

if __name__ == "__main__":
    main()
