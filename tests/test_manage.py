"""manage.py's settings when DJANGO_SETTINGS_MODULE is not set: production's, never
development's (DEBUG on, a known secret, private webhook targets allowed), so that a worker
started on a server without the variable is not an open one. Development settings are chosen
by name (the Makefile and the README do)."""

import os
import subprocess
import sys

from django.conf import settings

SHOW_SETTINGS = (
    "from django.conf import settings;"
    " print(settings.SETTINGS_MODULE, settings.DEBUG, settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS)"
)


def manage_shell(**environment: str) -> subprocess.CompletedProcess:
    """`manage.py shell -c` printing the settings it runs with, in a clean environment."""
    unset = {"DJANGO_SETTINGS_MODULE", "SECRET_KEY", "ALLOWED_HOSTS", "DEBUG"}
    clean = {name: value for name, value in os.environ.items() if name not in unset}
    return subprocess.run(  # noqa: S603 (fixed arguments)
        [sys.executable, "manage.py", "shell", "--no-imports", "-c", SHOW_SETTINGS],
        cwd=settings.BASE_DIR,
        env={**clean, **environment},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_without_a_settings_module_manage_py_refuses_to_run_without_a_secret():
    result = manage_shell()

    assert result.returncode != 0
    assert "Set the SECRET_KEY environment variable" in result.stderr
    assert result.stdout == ""


def test_without_a_settings_module_manage_py_runs_with_production_settings():
    result = manage_shell(
        SECRET_KEY="a-production-like-secret-key-0123456789-abcdefghijklmnop",
        ALLOWED_HOSTS="estate.example.com",
    )

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["config.settings.production", "False", "False"]


def test_development_settings_are_used_when_asked_for_by_name():
    result = manage_shell(DJANGO_SETTINGS_MODULE="config.settings.dev")

    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["config.settings.dev", "True", "True"]
