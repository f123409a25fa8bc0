"""Demo data: the small demo set `make run` seeds, its admin's credentials, and the bulk
listings the benchmark seeds (`manage.py seed_demo`, `manage.py demo_credentials`)."""
