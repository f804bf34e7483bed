"""Command-line entry point of `rlmlib.book.bench.accuracy` (time to relative gaps 1e-2,
1e-4, 1e-6 against scikit-learn, skglm and tick; rlmlib.lbfgs's pace with --lbfgs); run
`.venv-bench/bin/python benchmarks/bench_time_to_accuracy.py --help`."""
from rlmlib.book.bench.accuracy import main

if __name__ == "__main__":
    main()
