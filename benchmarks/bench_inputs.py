"""Command-line entry point of `rlmlib.book.bench.inputs` (default calls on every input
form against scikit-learn); run `.venv/bin/python benchmarks/bench_inputs.py --help`."""
from rlmlib.book.bench.inputs import main

if __name__ == "__main__":
    main()
