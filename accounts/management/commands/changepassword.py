"""`manage.py changepassword EMAIL`: Django's command, saving through the accounts service.

Django's own command sets the password on the row itself, so the user's API tokens would
keep working; here the new password goes through accounts.services.user_password_set, the
one place that sets a password and revokes the user's tokens (docs/reliability.md). It takes
the place of Django's because `accounts` comes before `django.contrib.auth` in
INSTALLED_APPS.
"""

import getpass
from typing import Any

from django.contrib.auth.management.commands import changepassword
from django.core.management.base import CommandError

from accounts.models import User
from accounts.services import password_check, user_password_set
from config.errors import ValidationFailed

ATTEMPTS = 3


class Command(changepassword.Command):
    """Django's arguments and prompts; the password is validated and set by the service."""

    help = "Change a user's password; the user's API tokens are revoked."

    def handle(self, *args: Any, **options: Any) -> None:
        email = options["username"] or getpass.getuser()
        user = User.objects.using(options["database"]).filter(email__iexact=email).first()
        if user is None:
            raise CommandError(f"user '{email}' does not exist")
        self.stdout.write(f"Changing password for user '{user}'")
        for _attempt in range(ATTEMPTS):
            password = getpass.getpass("Password: ")
            if not password:
                raise CommandError("aborted")
            if getpass.getpass("Password (again): ") != password:
                self.stdout.write("Passwords do not match. Please try again.")
                continue
            try:
                password_check(password=password, user=user)
            except ValidationFailed as error:
                self.stderr.write(error.detail)
                continue
            user_password_set(user=user, password=password)
            self.stdout.write(f"Password changed successfully for user '{user}'")
            return
        raise CommandError(f"Aborting password change for user '{user}' after {ATTEMPTS} attempts")
