"""Command-line entry point of the timing harness `rlmlib.book.bench.fiol` (which the book's
pages import); run `.venv/bin/python benchmarks/bench_fiol.py --help`."""
from rlmlib.book.bench.fiol import main

if __name__ == "__main__":
    main()
