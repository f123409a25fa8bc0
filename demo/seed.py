"""The demo data set behind `manage.py seed_demo`, and the demo admin's credentials file.

A small, fixed data set (seeded randomness) that shows every feature: users of the
three types, listings of all seven kinds with photos, appointments, favorites and
notifications. It is made through the platform's services (users, listings and their
moderation, bookings, favorites), so it obeys the rules real data obeys and carries the
notifications and moderation log those write. The admin's password is random and kept
in var/demo-admin.json, which `manage.py demo_credentials` prints.
"""

import datetime
import json
import os
import random
import secrets
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from accounts.models import Owner, User, UserType
from accounts.services import user_create
from appointments.models import Appointment
from appointments.services import appointment_book, appointment_confirm
from demo.catalog import (
    CATEGORIES,
    DEFAULT_SEED,
    KIND_CATEGORY,
    KINDS,
    MUNICIPALITIES,
    Municipality,
    demo_random,
    listing_description,
    listing_title,
    pick_address,
    pick_area,
    pick_phone,
    pick_point,
    pick_price,
    pick_transaction,
    record_values,
)
from demo.photos import render_photo
from favorites.models import Favorite
from favorites.services import favorite_add
from listings.models import (
    Property,
    PropertyCategory,
    PropertyStatus,
    PropertyType,
    TransactionType,
)
from listings.services import property_change_status, property_create, type_record_create
from media_app.models import Image
from media_app.services import image_upload
from notifications.models import AlertFrequency, Notification, SavedSearch
from notifications.services import notification_mark_read, saved_search_create

DEMO_ADMIN_EMAIL = "admin@example.com"
DEMO_ADMIN_NAME = "Demo Admin"
CREDENTIALS_FILE_NAME = "demo-admin.json"

# Demo people: the owners publish the listings, the customers visit and save them.
DEMO_OWNERS: tuple[tuple[str, str], ...] = (
    ("María García", "maria.garcia@example.com"),
    ("Javier López", "javier.lopez@example.com"),
    ("Lucía Fernández", "lucia.fernandez@example.com"),
    ("Carlos Martín", "carlos.martin@example.com"),
)
DEMO_CUSTOMERS: tuple[tuple[str, str], ...] = (
    ("Ana Torres", "ana.torres@example.com"),
    ("David Romero", "david.romero@example.com"),
    ("Elena Navarro", "elena.navarro@example.com"),
    ("Pablo Ruiz", "pablo.ruiz@example.com"),
    ("Sara Molina", "sara.molina@example.com"),
    ("Miguel Ortega", "miguel.ortega@example.com"),
)
DEMO_TOWNS: tuple[str, ...] = (
    "Madrid",
    "Barcelona",
    "Valencia",
    "Sevilla",
    "Málaga",
    "Bilbao",
    "Palma",
    "Granada",
    "Marbella",
    "San Sebastián",
)
LISTINGS_PER_KIND = 4
PHOTOS_PER_LISTING = 3
PHOTO_TITLES = ("Front view", "Street view", "Surroundings")
APPOINTMENT_COUNT = 10
APPOINTMENT_DURATIONS = (30, 45, 60, 90)
APPOINTMENT_NOTES = (None, "I would like to see the kitchen.", "Can I bring my partner?")
CONFIRMED_SHARE = 0.5
READ_SHARE = 0.3
SUSPENSION_REASON = "The photos do not match the address; please send new ones."

# The status each listing ends in (AVAILABLE unless listed here), and the transaction
# a SOLD or RENTED one needs. Listings are created kind after kind, round after round,
# so the first seven are one of each kind: the closing statuses land on different kinds.
STATUS_PLAN: dict[int, tuple[str, str | None]] = {
    0: (PropertyStatus.SOLD, TransactionType.SALE),
    1: (PropertyStatus.RENTED, TransactionType.RENT),
    2: (PropertyStatus.SUSPENDED, None),
    3: (PropertyStatus.PENDING, None),
    4: (PropertyStatus.PENDING, None),
    12: (PropertyStatus.PENDING, None),
    20: (PropertyStatus.PENDING, None),
}


@dataclass(frozen=True, slots=True)
class DemoCredentials:
    """What the developer types on the admin login page."""

    email: str
    password: str


@dataclass(frozen=True, slots=True)
class DemoSeedResult:
    """What `seed_demo_set` did: `created` is False when the set was already there."""

    created: bool
    credentials_path: Path
    counts: dict[str, int]


def credentials_path() -> Path:
    """Where the demo admin's email and password are kept (under settings.VAR_DIR)."""
    return Path(settings.VAR_DIR) / CREDENTIALS_FILE_NAME


def demo_is_seeded() -> bool:
    """The demo set exists when its admin does (it is created in the same transaction)."""
    return User.objects.filter(email=DEMO_ADMIN_EMAIL).exists()


def write_credentials(*, credentials: DemoCredentials) -> Path:
    """Store the credentials readable by the current user only (mode 0600)."""
    path = credentials_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    content = json.dumps({"email": credentials.email, "password": credentials.password}, indent=2)
    # Opened with 0600 from the start, so the password is never readable by others, even briefly.
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        handle.write(content + "\n")
    # An older file keeps its mode through O_CREAT; tighten it too.
    path.chmod(0o600)
    return path


def read_credentials() -> DemoCredentials | None:
    """The stored credentials, or None when the file is missing or unreadable."""
    try:
        data = json.loads(credentials_path().read_text(encoding="utf-8"))
        return DemoCredentials(email=data["email"], password=data["password"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def admin_password() -> str:
    """DEMO_ADMIN_PASSWORD when the developer chose one, otherwise a fresh random one."""
    return os.environ.get("DEMO_ADMIN_PASSWORD") or secrets.token_urlsafe(18)


def ensure_categories() -> dict[str, PropertyCategory]:
    """The demo categories by name, created when missing (the bulk mode needs them too)."""
    categories = {}
    for name, description in CATEGORIES.items():
        categories[name], _created = PropertyCategory.objects.get_or_create(
            name=name, defaults={"description": description}
        )
    return categories


def _towns_by_name() -> dict[str, Municipality]:
    """The demo towns are looked up by name in the shared list of municipalities."""
    return {town.name: town for town in MUNICIPALITIES}


def _create_listing(
    *,
    rng: random.Random,
    index: int,
    kind: str,
    town: Municipality,
    owner: Owner,
    category: PropertyCategory,
    now: datetime.datetime,
) -> Property:
    """A PENDING listing made as its owner would (both steps), with photos, dated weeks back."""
    _status, forced_transaction = STATUS_PLAN.get(index, (PropertyStatus.AVAILABLE, None))
    transaction_type = forced_transaction or pick_transaction(rng=rng, kind=kind)
    area = pick_area(rng=rng, kind=kind)
    values = record_values(rng=rng, kind=kind, area=area)
    latitude, longitude = pick_point(rng=rng, town=town)
    listing = property_create(
        by=owner.user,
        title=listing_title(rng=rng, kind=kind, town=town, values=values, area=area),
        description=listing_description(
            rng=rng,
            kind=kind,
            town=town,
            values=values,
            area=area,
            transaction_type=transaction_type,
        ),
        price=pick_price(
            rng=rng, kind=kind, transaction_type=transaction_type, area=area, town=town
        ),
        latitude=latitude,
        longitude=longitude,
        transaction_type=transaction_type,
        municipality=town.name,
        address=pick_address(rng=rng, kind=kind, values=values),
        area=area,
        category=category,
    )
    type_record_create(property=listing, by=owner.user, kind=kind, values=values)
    # auto_now_add stamps "now"; spread the listing dates so the newest-first order means something.
    listed_at = now - datetime.timedelta(days=rng.randint(1, 120), minutes=rng.randint(0, 1439))
    Property.objects.filter(pk=listing.pk).update(created_at=listed_at, updated_at=listed_at)
    for position in range(PHOTOS_PER_LISTING):
        photo = render_photo(
            kind=kind,
            label=f"{PropertyType(kind).label} · {town.name} · {position + 1}/{PHOTOS_PER_LISTING}",
            variant=index + position,
        )
        # Through the upload service, as an owner's photo: re-encoded, with the WebP copies
        # every photo has (D11), about 0.1 s a photo.
        image_upload(
            property=listing,
            by=owner.user,
            file=ContentFile(photo.content, name="photo.jpg"),
            title=PHOTO_TITLES[position % len(PHOTO_TITLES)],
        )
    return listing


def _moderate(*, listings: list[Property], admin: User) -> None:
    """Move the listings to their planned status, as the admin and the owners would."""
    for index, listing in enumerate(listings):
        status, _transaction = STATUS_PLAN.get(index, (PropertyStatus.AVAILABLE, None))
        if status == PropertyStatus.PENDING:
            continue
        # Every listing starts PENDING; moderation approves it before anything else.
        property_change_status(property=listing, by=admin, status=PropertyStatus.AVAILABLE)
        if status in (PropertyStatus.SOLD, PropertyStatus.RENTED):
            property_change_status(property=listing, by=listing.owner.user, status=status)
        elif status == PropertyStatus.SUSPENDED:
            property_change_status(
                property=listing, by=admin, status=status, reason=SUSPENSION_REASON
            )
        listing.refresh_from_db(fields=["status"])


def _create_activity(
    *, rng: random.Random, listings: list[Property], customers: list[User], now: datetime.datetime
) -> None:
    """Visits booked (some confirmed) and listings saved by the customers, via the services."""
    on_market = [listing for listing in listings if listing.status == PropertyStatus.AVAILABLE]
    for visited in rng.sample(on_market, APPOINTMENT_COUNT):
        day = now + datetime.timedelta(days=rng.randint(1, 21))
        date = day.replace(
            hour=rng.randint(9, 18), minute=rng.choice((0, 30)), second=0, microsecond=0
        )
        appointment = appointment_book(
            by=rng.choice(customers),
            property=visited,
            date=date,
            duration=rng.choice(APPOINTMENT_DURATIONS),
            notes=rng.choice(APPOINTMENT_NOTES),
        )
        if rng.random() < CONFIRMED_SHARE:
            appointment_confirm(appointment=appointment, by=visited.owner.user)
    for customer in customers:
        for saved in rng.sample(on_market, rng.randint(2, 4)):
            favorite_add(user=customer, property=saved, by=customer)
    # Some notifications have been read already, as in a live inbox.
    for notification in Notification.objects.order_by("created_at", "id"):
        if rng.random() < READ_SHARE:
            notification_mark_read(notification=notification, by=notification.user)


def _create_saved_searches(*, customers: list[User], listings: list[Property]) -> None:
    """Saved searches of the first two customers: an INSTANT one of the town of the first
    listing still PENDING, so that approving it in the back office emails its customer (a
    file under var/mail/ in development), and a DAILY one of rentals."""
    pending = next(listing for listing in listings if listing.status == PropertyStatus.PENDING)
    saved_search_create(
        by=customers[0],
        name=f"Homes in {pending.municipality}",
        criteria={"municipality": pending.municipality},
        frequency=AlertFrequency.INSTANT,
    )
    saved_search_create(
        by=customers[1],
        name="Rentals",
        criteria={"transactionType": TransactionType.RENT},
        frequency=AlertFrequency.DAILY,
    )


def demo_alert_search() -> SavedSearch | None:
    """The demo's INSTANT saved search of a town (_create_saved_searches), if seeded."""
    return (
        SavedSearch.objects.filter(
            user__email=DEMO_CUSTOMERS[0][1], frequency=AlertFrequency.INSTANT
        )
        .select_related("user")
        .first()
    )


def _counts() -> dict[str, int]:
    """Row counts the command prints after seeding."""
    return {
        "users": User.objects.count(),
        "properties": Property.objects.count(),
        "images": Image.objects.count(),
        "appointments": Appointment.objects.count(),
        "favorites": Favorite.objects.count(),
        "notifications": Notification.objects.count(),
        "saved searches": SavedSearch.objects.count(),
    }


@transaction.atomic
def seed_demo_set(
    *, seed: int = DEFAULT_SEED, now: datetime.datetime | None = None
) -> DemoSeedResult:
    """Create the demo data set once; a second call finds the admin and changes nothing."""
    if demo_is_seeded():
        return DemoSeedResult(created=False, credentials_path=credentials_path(), counts=_counts())
    rng = demo_random(seed=seed)
    now = now or timezone.now()
    categories = ensure_categories()
    credentials = DemoCredentials(email=DEMO_ADMIN_EMAIL, password=admin_password())
    admin = user_create(
        email=credentials.email,
        password=credentials.password,
        name=DEMO_ADMIN_NAME,
        user_type=UserType.ADMIN,
    )
    # Demo owners and customers cannot sign in (no password): only the admin is a login.
    owners = [
        user_create(
            email=email,
            password=None,
            name=name,
            phone=pick_phone(rng=rng),
            user_type=UserType.OWNER,
        ).owner
        for name, email in DEMO_OWNERS
    ]
    customers = [
        user_create(
            email=email,
            password=None,
            name=name,
            phone=pick_phone(rng=rng),
            user_type=UserType.CUSTOMER,
        )
        for name, email in DEMO_CUSTOMERS
    ]
    towns = _towns_by_name()
    listings = []
    for round_number in range(LISTINGS_PER_KIND):
        for kind in KINDS:
            index = len(listings)
            listings.append(
                _create_listing(
                    rng=rng,
                    index=index,
                    kind=kind,
                    town=towns[DEMO_TOWNS[(index * 3 + round_number) % len(DEMO_TOWNS)]],
                    owner=owners[index % len(owners)],
                    category=categories[KIND_CATEGORY[kind]],
                    now=now,
                )
            )
    _moderate(listings=listings, admin=admin)
    _create_activity(rng=rng, listings=listings, customers=customers, now=now)
    # The demo addresses count as confirmed from here on, so that what happens after seeding
    # (an approval, a visit) emails them; seeding itself emailed nobody.
    User.objects.exclude(pk=admin.pk).update(email_verified=now)
    _create_saved_searches(customers=customers, listings=listings)
    # Written last, inside the transaction: if writing fails, no admin exists without a password.
    path = write_credentials(credentials=credentials)
    return DemoSeedResult(created=True, credentials_path=path, counts=_counts())
