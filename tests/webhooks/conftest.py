"""Fixtures of the webhook tests: users of each role, signed-in clients, a receiver."""

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User, UserType
from accounts.services import access_token_issue, user_create
from tests.webhooks.support import Receiver


def signed_in_client(user: User) -> APIClient:
    """An API client sending a fresh bearer token of this user."""
    token, _access_token = access_token_issue(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def make_user(email: str, name: str, user_type: str) -> User:
    """A user made through the service, with the role record of its type and no password."""
    return user_create(email=email, password=None, name=name, user_type=user_type)


@pytest.fixture(autouse=True)
def empty_cache():
    """Throttle counters live in the cache: start and end every test with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def quick_retries(settings):
    """Retries after 0 s (no jitter) twice, then failed: the schedule's shape, fast."""
    settings.WEBHOOKS_RETRY_SCHEDULE = [0.0, 0.0]
    settings.WEBHOOKS_RETRY_JITTER = 0.0


@pytest.fixture
def receiver():
    """An HTTP receiver on 127.0.0.1 that records requests (see Receiver)."""
    server = Receiver()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def customer(db) -> User:
    """A CUSTOMER: books visits and saves listings, registers no webhook."""
    return make_user("carla.customer@example.com", "Carla Customer", UserType.CUSTOMER)


@pytest.fixture
def owner(db) -> User:
    """An OWNER user; the listings of most tests are theirs."""
    return make_user("oscar.owner@example.com", "Oscar Owner", UserType.OWNER)


@pytest.fixture
def other_owner(db) -> User:
    """A second OWNER, who owns none of the listings of a test unless it says so."""
    return make_user("olga.owner@example.com", "Olga Owner", UserType.OWNER)


@pytest.fixture
def admin(db) -> User:
    """An ADMIN user."""
    return make_user("ada.admin@example.com", "Ada Admin", UserType.ADMIN)


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


@pytest.fixture
def customer_client(customer) -> APIClient:
    return signed_in_client(customer)


@pytest.fixture
def owner_client(owner) -> APIClient:
    return signed_in_client(owner)


@pytest.fixture
def other_owner_client(other_owner) -> APIClient:
    return signed_in_client(other_owner)


@pytest.fixture
def admin_client(admin) -> APIClient:
    return signed_in_client(admin)
