"""The slow, obvious model written from SPEC.md alone: the oracle of the tests. It shares no code with jit/ or
api/: its own numerics (exact float64 sums rounded once by numpy/ml_dtypes), its own lane walk, its own trees."""
