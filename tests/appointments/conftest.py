"""Fixtures of the Appointments API tests: the parties of a visit, signed in, and a listing."""

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import User, UserType
from accounts.services import access_token_issue, user_create
from tests.factories import ListingFactory


def signed_in_client(user: User) -> APIClient:
    """An API client sending a fresh bearer token of this user."""
    token, _access_token = access_token_issue(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def make_user(user_type: str, email: str, name: str, phone: str) -> User:
    """A user of this type with its role record, made by the accounts service."""
    return user_create(email=email, password=None, name=name, phone=phone, user_type=user_type)


@pytest.fixture(autouse=True)
def empty_cache():
    """Throttle counters live in the cache: start and end every test with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def customer_user(db) -> User:
    """The customer who books visits."""
    return make_user(UserType.CUSTOMER, "carla.customer@example.com", "Carla Customer", "+3461")


@pytest.fixture
def other_customer_user(db) -> User:
    """A customer who takes no part in the visits of the tests."""
    return make_user(UserType.CUSTOMER, "cesar.other@example.com", "Cesar Other", "+3462")


@pytest.fixture
def owner_user(db) -> User:
    """The owner of `listing`."""
    return make_user(UserType.OWNER, "oscar.owner@example.com", "Oscar Owner", "+3463")


@pytest.fixture
def other_owner_user(db) -> User:
    """An owner of other listings, who takes no part in the visits of `listing`."""
    return make_user(UserType.OWNER, "olga.other@example.com", "Olga Other", "+3464")


@pytest.fixture
def admin_user(db) -> User:
    return make_user(UserType.ADMIN, "ada.admin@example.com", "Ada Admin", "+3465")


@pytest.fixture
def owner(owner_user):
    """The Owner record of owner_user: the ownerId of their listings and visits."""
    return owner_user.owner


@pytest.fixture
def other_owner(other_owner_user):
    return other_owner_user.owner


@pytest.fixture
def listing(owner):
    """An AVAILABLE listing of `owner`."""
    return ListingFactory(owner=owner, title="Sunny flat near the park")


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


@pytest.fixture
def customer_client(customer_user) -> APIClient:
    return signed_in_client(customer_user)


@pytest.fixture
def other_customer_client(other_customer_user) -> APIClient:
    return signed_in_client(other_customer_user)


@pytest.fixture
def owner_client(owner_user) -> APIClient:
    return signed_in_client(owner_user)


@pytest.fixture
def other_owner_client(other_owner_user) -> APIClient:
    return signed_in_client(other_owner_user)


@pytest.fixture
def admin_client(admin_user) -> APIClient:
    return signed_in_client(admin_user)


@pytest.fixture
def clients(
    anonymous_client,
    customer_client,
    other_customer_client,
    owner_client,
    other_owner_client,
    admin_client,
) -> dict[str, APIClient]:
    """Every caller by role name, for tests parametrized over roles."""
    return {
        "anonymous": anonymous_client,
        "customer": customer_client,
        "other_customer": other_customer_client,
        "owner": owner_client,
        "other_owner": other_owner_client,
        "admin": admin_client,
    }


@pytest.fixture
def users(customer_user, other_customer_user, owner_user, other_owner_user, admin_user):
    """Every signed-in caller's user by role name."""
    return {
        "customer": customer_user,
        "other_customer": other_customer_user,
        "owner": owner_user,
        "other_owner": other_owner_user,
        "admin": admin_user,
    }
