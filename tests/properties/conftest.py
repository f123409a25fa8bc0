"""Fixtures of the Properties API tests: one signed-in client per role, and a clean cache."""

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import UserType
from accounts.services import access_token_issue, user_create
from tests.factories import (
    CategoryFactory,
    ImageFactory,
    ListingFactory,
    TypeSpecificRecordFactory,
)


def signed_in_client(user) -> APIClient:
    """An API client sending a fresh bearer token of this user."""
    token, _access_token = access_token_issue(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@pytest.fixture(autouse=True)
def empty_cache():
    """Throttle counters live in the cache: start and end every test with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


@pytest.fixture
def customer_user(db):
    return user_create(
        email="carla.customer@example.com",
        password=None,
        name="Carla Customer",
        phone="+34600000001",
        user_type=UserType.CUSTOMER,
    )


@pytest.fixture
def owner_user(db):
    return user_create(
        email="oscar.owner@example.com",
        password=None,
        name="Oscar Owner",
        phone="+34600000002",
        user_type=UserType.OWNER,
    )


@pytest.fixture
def other_owner_user(db):
    return user_create(
        email="olga.other@example.com",
        password=None,
        name="Olga Other",
        phone="+34600000003",
        user_type=UserType.OWNER,
    )


@pytest.fixture
def admin_user(db):
    return user_create(
        email="ada.admin@example.com",
        password=None,
        name="Ada Admin",
        phone="+34600000004",
        user_type=UserType.ADMIN,
    )


@pytest.fixture
def owner(owner_user):
    """The Owner record of owner_user: the ownerId of their listings."""
    return owner_user.owner


@pytest.fixture
def other_owner(other_owner_user):
    return other_owner_user.owner


@pytest.fixture
def customer_client(customer_user) -> APIClient:
    return signed_in_client(customer_user)


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
def clients(anonymous_client, customer_client, owner_client, other_owner_client, admin_client):
    """Every viewer by name, for tests parametrized over roles."""
    return {
        "anonymous": anonymous_client,
        "customer": customer_client,
        "owner": owner_client,
        "other_owner": other_owner_client,
        "admin": admin_client,
    }


@pytest.fixture
def category(db):
    return CategoryFactory(name="Residential", description="Homes to live in.")


@pytest.fixture
def cache_on(settings):
    """The cache of public reads on (the test settings keep it off)."""
    settings.PUBLIC_READ_CACHE_SECONDS = 60


@pytest.fixture
def listing(owner, category):
    """One public flat with a photo, the one the cache's tests read."""
    listing = ListingFactory(owner=owner, category=category, title="Sunny flat")
    TypeSpecificRecordFactory(property=listing, kind="apartment")
    ImageFactory(property=listing)
    return listing
