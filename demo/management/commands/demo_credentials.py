"""`manage.py demo_credentials`: print the demo admin's login, read from var/demo-admin.json.

`make run` prints it before starting the server. The password is the one
`seed_demo` generated (or DEMO_ADMIN_PASSWORD); printing it on the developer's
console is the point: it is a local demo account.
"""

from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand

from accounts.models import User
from demo.seed import DEMO_ADMIN_EMAIL, credentials_path, demo_alert_search, read_credentials


class Command(BaseCommand):
    """Print the demo admin's URL, email and password, or why they are not available."""

    help = "Print the login of the demo admin created by `manage.py seed_demo`."

    def handle(self, *args: Any, **options: Any) -> None:
        # A message rather than an error: `make run` goes on serving even without a demo set.
        credentials = read_credentials()
        admin = User.objects.filter(email=credentials.email).first() if credentials else None
        if credentials is None or admin is None:
            admin_exists = User.objects.filter(email=DEMO_ADMIN_EMAIL).exists()
            self.stdout.write(self.style.WARNING(self._missing_message(admin_exists=admin_exists)))
            return
        self.stdout.write(
            f"Admin login: {settings.SITE_URL}/admin/  email: {credentials.email}  "
            f"password: {credentials.password}"
        )
        search = demo_alert_search()
        if search is not None:
            self.stdout.write(
                f"Alerts: approve a PENDING listing in {search.criteria['municipality']} and "
                f"{search.user.name}'s saved search emails her (a file under var/mail/)."
            )
        if not admin.check_password(credentials.password):
            self.stdout.write(
                self.style.WARNING(
                    "This password no longer matches: it was changed after seeding. "
                    f"Reset it with `manage.py changepassword {credentials.email}`."
                )
            )

    @staticmethod
    def _missing_message(*, admin_exists: bool) -> str:
        """Explain what is missing: the whole demo set, or only the credentials file."""
        if admin_exists:
            return (
                f"{DEMO_ADMIN_EMAIL} exists but its credentials are not in {credentials_path()}; "
                f"set a password with `manage.py changepassword {DEMO_ADMIN_EMAIL}`."
            )
        return "The demo data set is not seeded: run `manage.py seed_demo` (or `make seed`) first."
