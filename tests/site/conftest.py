"""Fixtures of the website's page tests: signed-in sessions, listings, photos to upload.

The users (their password is tests.support.PASSWORD) come from tests/fixtures.py.
"""

import io
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from PIL import Image as PillowImage

from listings.models import PropertyStatus
from tests.factories import TypeSpecificRecordFactory


@pytest.fixture(autouse=True)
def private_uploads(media_root) -> Path:
    """Each test stores uploaded files in a folder of its own."""
    return media_root


def signed_in(user) -> Client:
    """A test client with a session of this user (CSRF checks off, as Django's client does)."""
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def customer_session(customer) -> Client:
    """A test client with a session of `customer`."""
    return signed_in(customer)


@pytest.fixture
def owner_session(owner) -> Client:
    """A test client with a session of `owner`."""
    return signed_in(owner)


@pytest.fixture
def csrf_client(customer) -> Client:
    """A signed-in customer whose client enforces CSRF, as a browser's cross-site post would."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(customer)
    return client


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
