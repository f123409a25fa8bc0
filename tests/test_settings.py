import importlib
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

from config.mail import smtp_mailers
from tests.factories import UserFactory


def test_production_settings_hash_passwords_with_argon2_first():
    # given the settings every environment but the test run uses
    base = importlib.import_module("config.settings.base")

    # then Argon2 is the hasher of new passwords
    assert base.PASSWORD_HASHERS[0] == "django.contrib.auth.hashers.Argon2PasswordHasher"


@pytest.mark.django_db
def test_stored_passwords_are_argon2_hashes():
    # when a user is created with a password
    user = UserFactory(password="correct-horse-battery-staple")

    # then only an Argon2 hash of it is stored
    assert user.password.startswith("argon2$argon2id$")
    assert "correct-horse-battery-staple" not in user.password
    assert user.check_password("correct-horse-battery-staple")


def test_the_problem_documents_net_is_the_outermost_middleware():
    # given the settings every environment uses
    base = importlib.import_module("config.settings.base")

    # then it sees every answer the rest of the stack makes, errors of other middleware too
    assert base.MIDDLEWARE[0] == "config.api.middleware.ProblemDocumentsMiddleware"


def production_setting(expression: str, **environment: str) -> str:
    """What `expression` (of `settings`) prints once the production settings are loaded, as
    a server loads them, in a process of its own with `environment` added."""
    shown = subprocess.run(  # noqa: S603 (this interpreter, the tests' own expressions)
        [
            sys.executable,
            "-c",
            f"import django; django.setup(); from django.conf import settings; print({expression})",
        ],
        cwd=settings.BASE_DIR,
        env={
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "config.settings.production",
            "SECRET_KEY": "a-production-like-secret-key-0123456789-abcdefghijklmnop",
            "ALLOWED_HOSTS": "estate.example.com",
            **environment,
        },
        capture_output=True,
        text=True,
        check=True,
    )
    return shown.stdout.strip()


def test_production_serves_the_api_as_json_only():
    # when the production settings are loaded, as a server loads them
    renderers = production_setting("settings.REST_FRAMEWORK['DEFAULT_RENDERER_CLASSES']")

    # then the API has no browsable HTML pages there
    assert renderers == "['djangorestframework_camel_case.render.CamelCaseJSONRenderer']"


def test_an_email_url_names_the_mail_server_of_the_default_mailer():
    # when
    mailers = smtp_mailers("smtp+tls://mailer:s%40cret@mail.example.com:587", timeout=9)

    # then
    assert mailers == {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": "mail.example.com",
                "port": 587,
                "username": "mailer",
                "password": "s@cret",
                "use_tls": True,
                "use_ssl": False,
                "timeout": 9,
            },
        }
    }


@pytest.mark.django_db
@pytest.mark.postgres_only
def test_the_applications_statements_are_planned_without_parallel_workers():
    # given a connection of the application's, as every request and task opens one
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT setting, source FROM pg_settings WHERE name = 'max_parallel_workers_per_gather'"
        )

        # then the connection itself asked PostgreSQL to plan for this process alone
        assert cursor.fetchone() == ("0", "client")


def test_behind_a_pooler_the_connections_can_leave_the_servers_parallel_workers():
    # when the production settings are loaded with parallel workers left to the server
    options = production_setting(
        "repr(settings.DATABASES['default']['OPTIONS'].get('options'))",
        DATABASE_URL="postgres://estate@db.example.com:5432/estate",
        DATABASE_PARALLEL_WORKERS="1",
    )

    # then the connections send no startup option a pooler could refuse
    assert options == "None"
