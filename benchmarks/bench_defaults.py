"""Command-line entry point of the timing harness `rlmlib.book.bench.defaults` (the default
calls of svmsgd2/sgdqn against SGDClassifier, oLBFGS per pass); run
`.venv/bin/python benchmarks/bench_defaults.py --help`."""
from rlmlib.book.bench.defaults import main

if __name__ == "__main__":
    main()
