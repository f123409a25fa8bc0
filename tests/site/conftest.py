"""Fixtures of the website's page tests: users of each kind, signed-in clients, listings."""

import io
from pathlib import Path

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image as PillowImage

from accounts.models import UserType
from accounts.services import user_create
from listings.models import PropertyStatus
from tests.factories import CategoryFactory, TypeSpecificRecordFactory

PASSWORD = "a-long-enough-passphrase"


@pytest.fixture(autouse=True)
def empty_cache():
    """Sign-in rate limits count in the cache: every test starts and ends with none."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def media_root(settings, tmp_path) -> Path:
    """Each test stores uploaded files in a folder of its own."""
    root = tmp_path / "media"
    root.mkdir()
    settings.MEDIA_ROOT = root
    return root


def make_user(user_type: str, email: str, name: str):
    """A user made by the service (with its role record), signing in with PASSWORD."""
    return user_create(email=email, password=PASSWORD, name=name, user_type=user_type)


@pytest.fixture
def customer(db):
    return make_user(UserType.CUSTOMER, "carla@example.com", "Carla Customer")


@pytest.fixture
def owner(db):
    return make_user(UserType.OWNER, "oscar@example.com", "Oscar Owner")


@pytest.fixture
def other_owner(db):
    return make_user(UserType.OWNER, "olga@example.com", "Olga Other")


def signed_in(user) -> Client:
    """A test client with a session of this user (CSRF checks off, as Django's client does)."""
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def customer_client(customer) -> Client:
    return signed_in(customer)


@pytest.fixture
def owner_client(owner) -> Client:
    return signed_in(owner)


@pytest.fixture
def csrf_client(customer) -> Client:
    """A signed-in customer whose client enforces CSRF, as a browser's cross-site post would."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(customer)
    return client


@pytest.fixture
def category(db):
    return CategoryFactory(name="Residential")


def house(owner_user=None, **fields):
    """An AVAILABLE house listing (with its record); `owner_user` owns it when given."""
    if owner_user is not None:
        fields["owner"] = owner_user.owner
    fields.setdefault("status", PropertyStatus.AVAILABLE)
    record = TypeSpecificRecordFactory(
        kind="house", **{f"property__{k}": v for k, v in fields.items()}
    )
    return record.property


def jpeg_upload(
    name: str = "photo.jpg", width: int = 1600, height: int = 1200
) -> SimpleUploadedFile:
    """A real JPEG file as a browser would send it."""
    buffer = io.BytesIO()
    PillowImage.new("RGB", (width, height), "teal").save(buffer, "JPEG", quality=80)
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="image/jpeg")
