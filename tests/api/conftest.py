"""Fixtures of the API tests: clients that record every exchange, signed in or not.

The users of each type come from tests/fixtures.py; `make_user` is in tests/support.py.
"""

import pytest
from rest_framework.test import APIClient

from accounts.models import User
from tests.api.support import PASSWORD, Exchange, password_material_in, sent_passwords
from tests.support import signed_in_client

USERS_PATH = "/api/v1/users"


class RecordingAPIClient(APIClient):
    """An APIClient that writes every request and response into a journal.

    For the users endpoints it also notes the password hashes stored just before and just
    after the request, so that a later check can look for them in the response.
    """

    def __init__(self, journal: list[Exchange], **kwargs):
        super().__init__(**kwargs)
        self.journal = journal

    def generic(self, method, path, data="", *args, **kwargs):
        """Make the request and record the exchange."""
        users_endpoint = str(path).startswith(USERS_PATH)
        hashes = _stored_hashes() if users_endpoint else set()
        response = super().generic(method, path, data, *args, **kwargs)
        if users_endpoint:
            hashes |= _stored_hashes()
        self.journal.append(
            Exchange(path=str(path), sent=data, response=response, stored_hashes=hashes)
        )
        return response


def _stored_hashes() -> set[str]:
    """The password field of every user, as stored."""
    return set(User.objects.values_list("password", flat=True))


@pytest.fixture
def journal() -> list[Exchange]:
    """Every exchange of the test's API clients, in order."""
    return []


@pytest.fixture
def api_client(journal) -> RecordingAPIClient:
    """A client with no credentials."""
    return RecordingAPIClient(journal)


@pytest.fixture
def sign_in(journal):
    """Make a client that sends a fresh bearer token of a user."""

    def make(user: User) -> RecordingAPIClient:
        """A client carrying a new token of the user."""
        return signed_in_client(user, RecordingAPIClient(journal))

    return make


@pytest.fixture
def customer_api(sign_in, customer) -> RecordingAPIClient:
    """A client signed in as `customer`."""
    return sign_in(customer)


@pytest.fixture
def owner_api(sign_in, owner) -> RecordingAPIClient:
    """A client signed in as `owner`."""
    return sign_in(owner)


@pytest.fixture
def admin_api(sign_in, admin) -> RecordingAPIClient:
    """A client signed in as `admin`."""
    return sign_in(admin)


@pytest.fixture
def password_material_check(journal):
    """After the test, no users-endpoint response may carry credential material (D3).

    Every response: no password sent in the test, no stored hash. Every success response:
    no key or string value containing password, hash, salt or argon2.
    """
    yield
    passwords = {PASSWORD} | {secret for item in journal for secret in sent_passwords(item)}
    for exchange in journal:
        if not exchange.path.startswith(USERS_PATH):
            continue
        response = exchange.response
        findings = password_material_in(
            response.content.decode(),
            passwords=passwords,
            hashes=exchange.stored_hashes,
            words=200 <= response.status_code < 300,
        )
        assert findings == [], f"{exchange.path} answered {response.status_code}: {findings}"
