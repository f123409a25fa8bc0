import importlib

import pytest

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


def test_the_public_reads_door_is_the_outermost_middleware():
    # given the settings every environment uses
    base = importlib.import_module("config.settings.base")

    # then the door runs first on the way in (its hits skip the rest) and last on the way
    # out (what it keeps carries every header the other middleware added)
    assert base.MIDDLEWARE[0] == "listings.middleware.PublicReadsMiddleware"
