"""`manage.py seed_demo`: the demo data set and bulk listings for benchmarks."""
