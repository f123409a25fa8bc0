"""`manage.py demo_credentials`: how to sign in to the demo admin."""
