"""`manage.py seed_demo` (the demo data set and bulk listings for benchmarks) and
`manage.py demo_credentials` (how to sign in to the demo admin)."""
