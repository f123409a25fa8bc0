"""Fixtures of the media tests: a private media folder, one client per role, listings."""

from pathlib import Path

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from accounts.models import UserType
from accounts.services import access_token_issue, user_create
from listings.models import PropertyStatus
from tests.factories import PropertyFactory


def signed_in_client(user) -> APIClient:
    """An API client sending a fresh bearer token of this user."""
    token, _access_token = access_token_issue(user=user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


def stored_files(root: Path) -> list[str]:
    """Every file under a local media root, as storage names, sorted."""
    return sorted(str(path.relative_to(root)) for path in root.rglob("*") if path.is_file())


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path) -> Path:
    """Each test stores its files in a folder of its own, so it sees only its own files."""
    root = tmp_path / "media"
    root.mkdir()
    settings.MEDIA_ROOT = root
    return root


@pytest.fixture(autouse=True)
def empty_cache():
    """Throttle counters live in the cache: start and end every test with none."""
    cache.clear()
    yield
    cache.clear()


def _user(user_type: str, email: str, name: str, phone: str):
    return user_create(email=email, password=None, name=name, phone=phone, user_type=user_type)


@pytest.fixture
def customer_user(db):
    return _user(UserType.CUSTOMER, "carla.customer@example.com", "Carla Customer", "+34600000001")


@pytest.fixture
def owner_user(db):
    return _user(UserType.OWNER, "oscar.owner@example.com", "Oscar Owner", "+34600000002")


@pytest.fixture
def other_owner_user(db):
    return _user(UserType.OWNER, "olga.other@example.com", "Olga Other", "+34600000003")


@pytest.fixture
def admin_user(db):
    return _user(UserType.ADMIN, "ada.admin@example.com", "Ada Admin", "+34600000004")


@pytest.fixture
def anonymous_client() -> APIClient:
    return APIClient()


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
def listing(owner_user):
    """An AVAILABLE listing of owner_user: everyone sees it, its owner and admins change it."""
    return PropertyFactory(owner=owner_user.owner, status=PropertyStatus.AVAILABLE)


@pytest.fixture
def pending_listing(owner_user):
    """A PENDING listing of owner_user: only its owner and admins see it."""
    return PropertyFactory(owner=owner_user.owner, status=PropertyStatus.PENDING)
