"""The fixtures every test may use, registered by tests/conftest.py (pytest_plugins).

The users are User objects of each role: `customer`, `other_customer`, `owner`,
`other_owner` and `admin`; the Owner records of the owners are `owner_record` and
`other_owner_record`. Each user has an API client signed in with a bearer token
(`customer_client`, ...), and `clients` names every caller, the anonymous one included.
Helpers to make more users and clients are in tests/support.py.
"""

import datetime
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default as default_policy
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from django.core.cache import caches
from django.db import connection
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Owner, User, UserType
from bench.servers import free_port
from config.api.throttling import rate_limiter
from demo.bulk import bulk_seed
from listings.models import Property
from tests.factories import CategoryFactory, ListingFactory
from tests.support import make_user, signed_in_client
from tests.webhooks.support import Receiver


@pytest.fixture(autouse=True)
def empty_cache():
    """Start and end every test with empty caches (the default one and the kept search
    paths) and no requests counted against the rate limits."""
    for each in caches.all():
        each.clear()
    rate_limiter().storage.reset()
    yield
    for each in caches.all():
        each.clear()
    rate_limiter().storage.reset()


@pytest.fixture
def customer(db) -> User:
    """The CUSTOMER of most tests: books visits, saves listings, receives notifications."""
    return make_user(
        UserType.CUSTOMER, email="carla@example.com", name="Carla Customer", phone="+34600000001"
    )


@pytest.fixture
def other_customer(db) -> User:
    """A second CUSTOMER: "another user" of D7, who takes no part unless a test says so."""
    return make_user(
        UserType.CUSTOMER,
        email="cole.customer@example.com",
        name="Cole Customer",
        phone="+34600000005",
    )


@pytest.fixture
def owner(db) -> User:
    """An OWNER user; the listings of most tests are theirs."""
    return make_user(
        UserType.OWNER, email="oscar.owner@example.com", name="Oscar Owner", phone="+34600000002"
    )


@pytest.fixture
def other_owner(db) -> User:
    """A second OWNER, who owns none of the listings of a test unless it says so."""
    return make_user(
        UserType.OWNER, email="olga.other@example.com", name="Olga Other", phone="+34600000003"
    )


@pytest.fixture
def admin(db) -> User:
    """An ADMIN user."""
    return make_user(
        UserType.ADMIN, email="ada.admin@example.com", name="Ada Admin", phone="+34600000004"
    )


@pytest.fixture
def owner_record(owner) -> Owner:
    """The Owner record of `owner`: the ownerId of their listings and visits."""
    return owner.owner


@pytest.fixture
def other_owner_record(other_owner) -> Owner:
    """The Owner record of `other_owner`."""
    return other_owner.owner


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
def listing(owner_record):
    """An AVAILABLE listing of `owner`."""
    return ListingFactory(owner=owner_record, title="Sunny flat near the park")


@pytest.fixture
def category(db):
    """The Residential category."""
    return CategoryFactory(name="Residential", description="Homes to live in.")


@pytest.fixture
def garden_listings(db):
    """Make a hundred public listings created a day apart, oldest first (the newest a day
    ago), fourteen of them titled "Garden flat" (the others "Loft"): every seventh one
    (`gathered=False`) or the fourteen oldest (`gathered=True`). The table is analyzed, so
    that the planner's statistics (and its histogram of creation dates) are theirs. A day
    apart, as a recent slice is made of whole days (listings.search.windows). Returns the
    gardens, oldest first."""

    def make(*, gathered: bool) -> list[Property]:
        listings = [
            ListingFactory(
                title="Garden flat" if (number < 14 if gathered else number % 7 == 6) else "Loft"
            )
            for number in range(100)
        ]
        start = timezone.now() - datetime.timedelta(days=len(listings))
        for offset, made in enumerate(listings):
            Property.objects.filter(pk=made.pk).update(
                created_at=start + datetime.timedelta(days=offset)
            )
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE listings_property")
        return [made for made in listings if made.title == "Garden flat"]

    return make


@pytest.fixture
def media_root(settings, tmp_path) -> Path:
    """A media folder of this test's own, so that it sees only its own files."""
    root = tmp_path / "media"
    root.mkdir()
    settings.MEDIA_ROOT = root
    return root


class MailBox:
    """What a real SMTP server (aiosmtpd) received: each message parsed, with its envelope."""

    def __init__(self):
        self.messages: list[EmailMessage] = []
        self.recipients: list[list[str]] = []

    async def handle_DATA(self, server, session, envelope):  # aiosmtpd calls it by this name
        self.messages.append(message_from_bytes(envelope.content, policy=default_policy))
        self.recipients.append(list(envelope.rcpt_tos))
        return "250 Message accepted for delivery"


def smtp_mailers(port: int, **options) -> dict:
    """MAILERS whose default sends by SMTP to 127.0.0.1:`port`."""
    return {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {"host": "127.0.0.1", "port": port, "timeout": 5, **options},
        }
    }


@pytest.fixture
def receiver():
    """An HTTP receiver of webhook deliveries on 127.0.0.1 that records requests (see
    tests.webhooks.support.Receiver)."""
    server = Receiver()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def smtp_server(settings):
    """A real SMTP server on a free local port, which the email settings point at; yields
    its MailBox."""
    port = free_port()
    mailbox = MailBox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port)
    controller.start()
    settings.MAILERS = smtp_mailers(port)
    yield mailbox
    controller.stop()


@pytest.fixture(params=[False, True], ids=["followed", "built after"])
def bulk_loaded(request, settings, tmp_path):
    """60 listings written by the bulk seeder's COPY in three batches, the tables PostgreSQL
    keeps from the listings followed batch by batch by their triggers, or built once after
    the load (demo.bulk.kept_tables_rebuilt_after; PostgreSQL only, else followed)."""
    settings.MEDIA_ROOT = str(tmp_path)
    bulk_seed(
        count=60,
        images_per_property=1,
        batch_size=25,
        seed=11,
        workers=0,
        set_aside_indexes=request.param,
        progress=False,
    )
