"""The ground floor of rlmlib: rows and checks, losses, the objective, example orders, results
and the one driver every solver runs through. Imports nothing from the packages above it
(``solvers``, ``precond``, ``datasets``, ``book``); ``tests/test_layout.py`` checks it."""
