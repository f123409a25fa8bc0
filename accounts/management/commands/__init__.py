"""`manage.py changepassword`: through the accounts service, which revokes the user's tokens."""
