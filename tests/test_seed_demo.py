"""`manage.py seed_demo` (demo set and bulk mode) and `manage.py demo_credentials`."""

import datetime
import json
import stat
from email import message_from_string
from email.policy import default as default_policy
from io import StringIO

import pytest
from django.core.files.storage import default_storage
from django.core.management import call_command
from django.db import connection
from django.utils import timezone
from PIL import Image as PillowImage

from accounts.models import Admin, Customer, Owner, User, UserType
from appointments.models import Appointment, AppointmentStatus
from demo.bulk import batch_tasks, bulk_seed, generated_batches
from demo.catalog import KIND_CATEGORY, KINDS
from demo.generator import datetime_formatter
from demo.plan import BulkPlan, PoolPhoto
from demo.seed import DEMO_ADMIN_EMAIL
from favorites.models import Favorite
from listings.models import (
    KIND_FIELDS,
    RECORD_FIELDS,
    ModerationLog,
    Property,
    PropertyCategory,
    PropertyStatus,
    PropertyType,
    TransactionType,
    TypeSpecificRecord,
)
from listings.services import property_change_status
from media_app.models import Image
from notifications.models import AlertFrequency, Notification, SavedSearch
from tests.webhooks.support import run_ready_tasks

pytestmark = pytest.mark.django_db

DEMO_CATEGORIES = {"Residential", "Commercial", "Land", "Hospitality", "New developments"}
COUNTED_MODELS = (
    User,
    Admin,
    Owner,
    Customer,
    PropertyCategory,
    Property,
    TypeSpecificRecord,
    Image,
    Appointment,
    Favorite,
    Notification,
    ModerationLog,
)


@pytest.fixture(autouse=True)
def isolated_folders(settings, tmp_path):
    """var/ and the media storage of each test live in its own temporary folder."""
    settings.VAR_DIR = tmp_path / "var"
    settings.MEDIA_ROOT = tmp_path / "media"
    return tmp_path


def seed(*arguments: str) -> str:
    """Run seed_demo quietly (no progress bar) and return what it printed."""
    output = StringIO()
    call_command("seed_demo", *arguments, verbosity=0, stdout=output, stderr=StringIO())
    return output.getvalue()


def counts() -> dict[str, int]:
    return {model.__name__: model.objects.count() for model in COUNTED_MODELS}


def stored_credentials(settings) -> dict[str, str]:
    return json.loads((settings.VAR_DIR / "demo-admin.json").read_text())


def assert_record_shape(record: TypeSpecificRecord) -> None:
    """Exactly the columns of the record's kind are filled; every other one is NULL."""
    for field in RECORD_FIELDS:
        value = getattr(record, field)
        if field in KIND_FIELDS[record.kind]:
            assert value is not None, (record.kind, field)
        else:
            assert value is None, (record.kind, field)


def test_seed_demo_creates_users_of_each_type_with_their_role_records(settings):
    # when
    output = seed()

    # then
    assert "Demo data set created" in output
    assert User.objects.filter(user_type=UserType.ADMIN).count() == 1
    assert User.objects.filter(user_type=UserType.OWNER).count() == 4
    assert User.objects.filter(user_type=UserType.CUSTOMER).count() == 6
    assert Admin.objects.count() == 1
    assert Owner.objects.filter(user__user_type=UserType.OWNER).count() == 4
    assert Customer.objects.filter(user__user_type=UserType.CUSTOMER).count() == 6
    admin = User.objects.get(email=DEMO_ADMIN_EMAIL)
    assert admin.is_staff is True
    assert admin.is_superuser is True
    assert admin.admin is not None
    assert admin.check_password(stored_credentials(settings)["password"]) is True


def test_seed_demo_creates_listings_of_all_seven_kinds_with_only_their_columns():
    # when
    seed()

    # then
    assert set(PropertyCategory.objects.values_list("name", flat=True)) == DEMO_CATEGORIES
    assert Property.objects.count() == 28
    assert TypeSpecificRecord.objects.count() == 28
    for kind in PropertyType.values:
        assert TypeSpecificRecord.objects.filter(kind=kind).count() == 4
    for record in TypeSpecificRecord.objects.all():
        assert_record_shape(record)


def test_seed_demo_mixes_statuses_and_transaction_types():
    # when
    seed()

    # then
    statuses = {
        status: Property.objects.filter(status=status).count() for status in PropertyStatus.values
    }
    assert statuses == {
        PropertyStatus.AVAILABLE: 21,
        PropertyStatus.PENDING: 4,
        PropertyStatus.SOLD: 1,
        PropertyStatus.RENTED: 1,
        PropertyStatus.SUSPENDED: 1,
    }
    assert Property.objects.get(status=PropertyStatus.SOLD).transaction_type == (
        TransactionType.SALE
    )
    assert Property.objects.get(status=PropertyStatus.RENTED).transaction_type == (
        TransactionType.RENT
    )
    assert Property.objects.filter(transaction_type=TransactionType.RENT).exists()
    assert Property.objects.filter(transaction_type=TransactionType.SALE).exists()
    assert (
        Property.objects.filter(latitude__range=(27, 44), longitude__range=(-17, 4)).count() == 28
    )


def test_seed_demo_stores_generated_photos_in_the_default_storage():
    # when
    seed()

    # then
    assert Image.objects.count() == 84
    for listing in Property.objects.all():
        positions = list(listing.images.order_by("position").values_list("position", flat=True))
        assert positions == [0, 1, 2]
    for image in Image.objects.all():
        assert default_storage.exists(image.file.name)
        with default_storage.open(image.file.name) as handle, PillowImage.open(handle) as photo:
            assert photo.format == "JPEG"
            assert photo.size == (image.width, image.height)
        assert image.content_type == "image/jpeg"
        assert_webp_copies(image)


def assert_webp_copies(image: Image) -> None:
    """The photo has its 400 and 1200 px WebP copies in the storage, as uploads do (D11)."""
    assert set(image.thumbnails) == {"400", "1200"}
    for width, name in image.thumbnails.items():
        with default_storage.open(name) as handle, PillowImage.open(handle) as copy:
            assert copy.format == "WEBP"
            assert copy.size[0] <= int(width)


def test_seed_demo_creates_appointments_favorites_and_notifications():
    # given
    before = timezone.now()

    # when
    seed()

    # then
    assert Appointment.objects.count() == 10
    for appointment in Appointment.objects.select_related("property", "user"):
        assert appointment.date > before
        assert 30 <= appointment.duration <= 90
        assert appointment.ends_at == appointment.date + datetime.timedelta(
            minutes=appointment.duration
        )
        assert appointment.status in {AppointmentStatus.PENDING, AppointmentStatus.CONFIRMED}
        assert appointment.owner_id == appointment.property.owner_id
        assert appointment.property.status == PropertyStatus.AVAILABLE
        assert appointment.user.user_type == UserType.CUSTOMER
    for customer in User.objects.filter(user_type=UserType.CUSTOMER):
        assert 2 <= customer.favorites.count() <= 4
    assert Favorite.objects.exclude(user__user_type=UserType.CUSTOMER).count() == 0
    confirmed = Appointment.objects.filter(status=AppointmentStatus.CONFIRMED).count()
    # Written by the services: one approval per listing moderated out of PENDING (24), one
    # suspension, one request per visit to its owner, one confirmation to its customer.
    assert Notification.objects.filter(title="Listing approved").count() == 24
    assert Notification.objects.filter(title="Listing suspended").count() == 1
    assert Notification.objects.filter(title="New visit request").count() == 10
    assert Notification.objects.filter(title="Visit confirmed").count() == confirmed
    assert Notification.objects.count() == 35 + confirmed
    assert Notification.objects.filter(read=True).exists()
    assert Notification.objects.filter(read=False).exists()


def test_seed_demo_logs_the_moderation_of_every_listing_it_moved():
    # when
    seed()

    # then
    admin = User.objects.get(email=DEMO_ADMIN_EMAIL)
    by_admin = ModerationLog.objects.filter(actor=admin)
    assert by_admin.filter(to_status=PropertyStatus.AVAILABLE).count() == 24
    assert by_admin.filter(to_status=PropertyStatus.SUSPENDED).count() == 1
    closed = ModerationLog.objects.filter(
        to_status__in=[PropertyStatus.SOLD, PropertyStatus.RENTED]
    )
    assert closed.count() == 2
    assert all(log.actor_id == log.property.owner.user_id for log in closed)


def test_seed_demo_twice_keeps_identical_counts(settings):
    # given
    seed()
    counts_after_first_run = counts()
    credentials_after_first_run = stored_credentials(settings)

    # when
    output = seed()

    # then
    assert "already seeded" in output
    assert counts() == counts_after_first_run
    assert stored_credentials(settings) == credentials_after_first_run


def test_seed_demo_keeps_a_random_admin_password_in_a_private_file(settings):
    # when
    seed()

    # then
    path = settings.VAR_DIR / "demo-admin.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    credentials = stored_credentials(settings)
    assert credentials["email"] == DEMO_ADMIN_EMAIL
    assert len(credentials["password"]) == 24


def test_seed_demo_uses_the_password_given_in_the_environment(settings, monkeypatch):
    # given
    monkeypatch.setenv("DEMO_ADMIN_PASSWORD", "chosen-by-the-developer")

    # when
    seed()

    # then
    assert stored_credentials(settings)["password"] == "chosen-by-the-developer"
    assert User.objects.get(email=DEMO_ADMIN_EMAIL).check_password("chosen-by-the-developer")


def test_seed_demo_leaves_nothing_behind_when_it_fails(monkeypatch):
    # given a credentials file that cannot be written
    def refuse(**kwargs):
        raise OSError("read-only file system")

    monkeypatch.setattr("demo.seed.write_credentials", refuse)

    # when
    with pytest.raises(OSError, match="read-only file system"):
        seed()

    # then
    assert counts() == dict.fromkeys(counts(), 0)


def test_demo_credentials_prints_the_admin_login(settings):
    # given
    seed()
    password = stored_credentials(settings)["password"]
    output = StringIO()

    # when
    call_command("demo_credentials", stdout=output)

    # then
    town = Property.objects.filter(status=PropertyStatus.PENDING).earliest("created_at")
    assert output.getvalue() == (
        f"Admin login: http://127.0.0.1:8000/admin/  email: {DEMO_ADMIN_EMAIL}  "
        f"password: {password}\n"
        f"Alerts: approve a PENDING listing in {town.municipality} and Ana Torres's saved "
        "search emails her (a file under var/mail/).\n"
    )


def test_demo_credentials_says_when_the_demo_set_is_not_seeded():
    # given
    output = StringIO()

    # when
    call_command("demo_credentials", stdout=output)

    # then
    assert "not seeded" in output.getvalue()
    assert "password:" not in output.getvalue()


def test_bulk_mode_adds_exactly_the_requested_listings_records_and_images():
    # when
    output = seed("--properties", "200", "--images-per-property", "2")

    # then
    assert "Added 200 listings" in output
    assert Property.objects.count() == 200
    assert TypeSpecificRecord.objects.count() == 200
    assert Image.objects.count() == 400
    for image in Image.objects.all():
        assert_webp_copies(image)
    assert Owner.objects.count() == 1
    assert set(PropertyCategory.objects.values_list("name", flat=True)) == DEMO_CATEGORIES
    assert set(TypeSpecificRecord.objects.values_list("kind", flat=True)) == set(
        PropertyType.values
    )
    for record in TypeSpecificRecord.objects.all():
        assert_record_shape(record)
    # The listings' copies of their record's kind and bedrooms, which the filters read.
    copies = Property.objects.values_list(
        "kind", "type_record__kind", "bedrooms", "type_record__bedrooms"
    )
    assert all(kind == record_kind for kind, record_kind, _, _ in copies)
    assert all(bedrooms == record_bedrooms for _, _, bedrooms, record_bedrooms in copies)
    assert any(bedrooms for _, _, bedrooms, _ in copies)


def test_bulk_mode_writes_rows_the_orm_reads_back():
    # given
    now = timezone.now()

    # when
    seed("--properties", "200", "--images-per-property", "2", "--batch-size", "64")

    # then
    assert Property.objects.count() == 200
    assert (
        Property.objects.filter(
            created_at__gte=now - datetime.timedelta(days=731), created_at__lte=now
        ).count()
        == 200
    )
    assert Property.objects.filter(status=PropertyStatus.AVAILABLE).count() > 150
    assert Property.objects.values("municipality").distinct().count() > 20
    assert Property.objects.filter(transaction_type=TransactionType.RENT).exists()
    assert Property.objects.filter(transaction_type=TransactionType.SALE).exists()
    newest = Property.objects.select_related("type_record").first()
    assert newest.price > 0
    assert newest.type == newest.type_record.kind
    for listing in Property.objects.prefetch_related("images")[:20]:
        assert [image.position for image in listing.images.all()] == [0, 1]
    pool = set(Image.objects.values_list("file", flat=True))
    assert len(pool) <= 24
    assert all(name.startswith("demo/pool/") and default_storage.exists(name) for name in pool)


def test_bulk_mode_generates_the_listings_oldest_first_over_two_years():
    # given a run of 200 listings in batches of 64
    now = timezone.now()
    plan = BulkPlan(
        seed=7,
        owner_ids=["owner"],
        category_ids=dict.fromkeys(KIND_CATEGORY.values(), "category"),
        pool={kind: [PoolPhoto("photo.jpg", kind, 4, 3, {})] for kind in KINDS},
        images_per_property=1,
        now=now,
        listings=200,
    )

    # when worker processes generate the batches
    batches = generated_batches(plan=plan, tasks=batch_tasks(total=200, size=64), workers=2)
    dates = [row[1] for batch in batches for row in batch.properties]

    # then they come, to be written, in the order they were created, as a portal's table
    # fills: over the two years before the run
    stored = datetime_formatter()
    assert len(dates) == 200
    assert dates == sorted(dates)
    assert len(set(dates)) == 200
    assert stored(now - datetime.timedelta(days=730)) <= dates[0]
    assert dates[0] < stored(now - datetime.timedelta(days=720))
    assert stored(now - datetime.timedelta(days=10)) < dates[-1] <= stored(now)


def test_bulk_mode_generates_the_same_rows_in_worker_processes():
    # given the same run generated in this process
    seed("--properties", "200", "--batch-size", "64", "--workers", "0")
    in_process = sorted(Property.objects.values_list("title", "price", "municipality", "area"))
    Property.objects.all().delete()

    # when
    output = seed("--properties", "200", "--batch-size", "64", "--workers", "2")

    # then
    assert "Added 200 listings" in output
    assert Property.objects.count() == 200
    assert TypeSpecificRecord.objects.count() == 200
    assert Image.objects.count() == 600
    in_workers = sorted(Property.objects.values_list("title", "price", "municipality", "area"))
    assert in_workers == in_process


def test_bulk_mode_adds_to_an_existing_demo_set():
    # given
    seed()
    before = counts()

    # when
    seed("--properties", "200", "--images-per-property", "2")

    # then
    after = counts()
    assert after["Property"] - before["Property"] == 200
    assert after["TypeSpecificRecord"] - before["TypeSpecificRecord"] == 200
    assert after["Image"] - before["Image"] == 400
    assert after["Owner"] - before["Owner"] == 1
    assert after["PropertyCategory"] == before["PropertyCategory"]


def listing_tables_schema() -> list[tuple[str, str]]:
    """Indexes, constraints and triggers of the three tables the bulk mode writes, as
    PostgreSQL has them."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT indexrelid::regclass::text, pg_get_indexdef(indexrelid) FROM pg_index
            WHERE indrelid = ANY(%(tables)s::regclass[])
            UNION ALL
            SELECT conname, pg_get_constraintdef(oid) || ' ' || convalidated FROM pg_constraint
            WHERE conrelid = ANY(%(tables)s::regclass[])
            UNION ALL
            SELECT tgname, pg_get_triggerdef(oid) || ' ' || tgenabled::text FROM pg_trigger
            WHERE tgrelid = ANY(%(tables)s::regclass[]) AND NOT tgisinternal
            ORDER BY 1, 2
            """,
            {"tables": ["listings_property", "listings_type_specific_record", "media_app_image"]},
        )
        return cursor.fetchall()


@pytest.mark.postgres_only
def test_bulk_mode_restores_every_index_foreign_key_and_trigger_it_set_aside():
    # given the listings' triggers among what the bulk mode sets aside
    schema_before = listing_tables_schema()
    assert "listings_map_cells_insert" in [name for name, _definition in schema_before]

    # when
    bulk_seed(
        count=120,
        images_per_property=1,
        batch_size=50,
        workers=0,
        set_aside_indexes=True,
        progress=False,
    )

    # then
    assert listing_tables_schema() == schema_before
    assert Property.objects.count() == 120
    assert TypeSpecificRecord.objects.count() == 120
    assert Image.objects.count() == 120


def test_approving_the_demo_customers_pending_match_writes_her_an_email_file(settings, tmp_path):
    # given the demo set, with email written as files (as `make run` does without EMAIL_URL)
    mail_folder = tmp_path / "mail"
    settings.MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.filebased.EmailBackend",
            "OPTIONS": {"file_path": str(mail_folder)},
        }
    }
    seed()
    # (the worker's first tasks alert of listings approved while seeding, as `make run`'s)
    run_ready_tasks()
    before = set(mail_folder.iterdir()) if mail_folder.exists() else set()
    ana = User.objects.get(email="ana.torres@example.com")
    [search] = SavedSearch.objects.filter(user=ana)
    assert ana.email_verified is not None
    assert search.frequency == AlertFrequency.INSTANT

    # when the admin approves the pending listing of her search's town, and the worker runs
    admin = User.objects.get(email=DEMO_ADMIN_EMAIL)
    listing = Property.objects.filter(
        status=PropertyStatus.PENDING, municipality=search.criteria["municipality"]
    ).first()
    property_change_status(property=listing, by=admin, status=PropertyStatus.AVAILABLE)
    run_ready_tasks()

    # then a file holds her email about it
    written = [
        message_from_string(path.read_text(), policy=default_policy)
        for path in set(mail_folder.iterdir()) - before
    ]
    [alert] = [message for message in written if message["To"] == "ana.torres@example.com"]
    assert alert["Subject"] == f"Estate: New listing: {listing.title}"
    assert f"/en/listings/{listing.pk}/" in alert.get_body(preferencelist=("plain",)).get_content()
