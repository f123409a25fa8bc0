"""Fixtures of the back-office tests: an ADMIN user and a test client signed in as them.

tests/fixtures.py empties the cache (where admin login attempts count) around every test.
"""

import pytest

from accounts.models import UserType
from accounts.services import user_create


@pytest.fixture
def moderator(db):
    """An ADMIN user, made by the same service as every account."""
    return user_create(
        email="mia.moderator@example.com",
        password=None,
        name="Mia Moderator",
        phone="+34600000009",
        user_type=UserType.ADMIN,
    )


@pytest.fixture
def back_office(client, moderator):
    """Django's test client signed in as the moderator."""
    client.force_login(moderator)
    return client
