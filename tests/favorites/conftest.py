"""Fixtures of the Favorites API tests: users of each role, a signed-in client per user."""

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User, UserType
from accounts.services import access_token_issue, user_create


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


@pytest.fixture
def customer(db) -> User:
    """The CUSTOMER whose favorites most tests look at."""
    return make_user("carla.customer@example.com", "Carla Customer", UserType.CUSTOMER)


@pytest.fixture
def other_customer(db) -> User:
    """A second CUSTOMER: "another user" of D7."""
    return make_user("cole.customer@example.com", "Cole Customer", UserType.CUSTOMER)


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
    """A client with no credentials."""
    return APIClient()


@pytest.fixture
def customer_client(customer) -> APIClient:
    """A client signed in as `customer`."""
    return signed_in_client(customer)


@pytest.fixture
def other_customer_client(other_customer) -> APIClient:
    """A client signed in as `other_customer`."""
    return signed_in_client(other_customer)


@pytest.fixture
def owner_client(owner) -> APIClient:
    """A client signed in as `owner`."""
    return signed_in_client(owner)


@pytest.fixture
def other_owner_client(other_owner) -> APIClient:
    """A client signed in as `other_owner`."""
    return signed_in_client(other_owner)


@pytest.fixture
def admin_client(admin) -> APIClient:
    """A client signed in as `admin`."""
    return signed_in_client(admin)


@pytest.fixture
def clients(
    anonymous_client,
    customer_client,
    other_customer_client,
    owner_client,
    other_owner_client,
    admin_client,
) -> dict[str, APIClient]:
    """Every viewer by name, for tests parametrized over roles."""
    return {
        "anonymous": anonymous_client,
        "customer": customer_client,
        "other_customer": other_customer_client,
        "owner": owner_client,
        "other_owner": other_owner_client,
        "admin": admin_client,
    }
