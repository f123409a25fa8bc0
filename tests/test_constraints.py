"""The database itself refuses rows that break a constraint, on SQLite and on PostgreSQL.

Every row is written through the ORM directly, bypassing the services and model
validation, because the point is that the database holds each rule on its own. A
refused write runs inside `transaction.atomic()`, so that the test can keep querying
afterwards on PostgreSQL, and each test then re-reads the database to show that
nothing changed.

Both databases name a CHECK constraint in their message ("CHECK constraint failed:
<name>" on SQLite, 'violates check constraint "<name>"' on PostgreSQL). For unique
constraints and some column checks they do not agree, and the tests branch on
`connection.vendor`.
"""

import datetime
from decimal import Decimal

import pytest
from django.db import DataError, IntegrityError, connection, transaction
from django.db.models import ProtectedError
from django.utils import timezone

from accounts.models import User, UserType
from appointments.models import Appointment, AppointmentStatus
from favorites.models import Favorite
from listings.models import (
    KIND_FIELDS,
    RECORD_FIELDS,
    ActivityType,
    LandType,
    Property,
    PropertyCategory,
    PropertyStatus,
    PropertyType,
    TransactionType,
    TypeSpecificRecord,
)
from media_app.models import Image, Video
from notifications.models import Notification, NotificationStatus
from tests.factories import (
    RECORD_VALUES,
    AppointmentFactory,
    CategoryFactory,
    FavoriteFactory,
    ImageFactory,
    NotificationFactory,
    OwnerFactory,
    PropertyFactory,
    TypeSpecificRecordFactory,
    UserFactory,
    VideoFactory,
)

HOUSE_VALUES = RECORD_VALUES[PropertyType.HOUSE]
# One valid value for every column of a type-specific record, whatever kind uses it.
ANY_RECORD_VALUES: dict[str, object] = {
    field: value for values in RECORD_VALUES.values() for field, value in values.items()
}


def is_postgresql() -> bool:
    return connection.vendor == "postgresql"


def visit_date(days_ahead: int = 3) -> datetime.datetime:
    return timezone.now() + datetime.timedelta(days=days_ahead)


@pytest.fixture
def owner():
    return OwnerFactory()


@pytest.fixture
def category():
    return CategoryFactory(name="Residential")


@pytest.fixture
def listing(owner, category):
    return PropertyFactory(owner=owner, category=category)


@pytest.fixture
def customer():
    return UserFactory()


# --- Property -----------------------------------------------------------------------------

PROPERTY_REFUSALS = [
    pytest.param({"latitude": 91.0}, "listings_property_latitude_range", id="latitude-91"),
    pytest.param({"latitude": -91.0}, "listings_property_latitude_range", id="latitude-minus-91"),
    pytest.param({"longitude": 181.0}, "listings_property_longitude_range", id="longitude-181"),
    pytest.param(
        {"longitude": -181.0}, "listings_property_longitude_range", id="longitude-minus-181"
    ),
    pytest.param(
        {"price": Decimal("-0.01")}, "listings_property_price_non_negative", id="price-negative"
    ),
    pytest.param({"area": Decimal("0.00")}, "listings_property_area_positive", id="area-zero"),
    pytest.param(
        {"area": Decimal("-12.50")}, "listings_property_area_positive", id="area-negative"
    ),
    pytest.param({"title": ""}, "listings_property_title_length", id="title-empty"),
    pytest.param(
        {"description": ""}, "listings_property_description_length", id="description-empty"
    ),
    pytest.param(
        {"description": "x" * 10_001},
        "listings_property_description_length",
        id="description-10001-characters",
    ),
    pytest.param(
        {"transaction_type": "LEAS"},
        "listings_property_transaction_type_valid",
        id="transaction-type-unknown",
    ),
    pytest.param(
        {"transaction_type": "sale"},
        "listings_property_transaction_type_valid",
        id="transaction-type-lower-case",
    ),
    pytest.param({"status": "ARCHIVED"}, "listings_property_status_valid", id="status-unknown"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("values", "constraint"), PROPERTY_REFUSALS)
def test_database_refuses_to_insert_a_property_that_breaks_a_check(
    owner, category, values, constraint
):
    # given an owner and a category, and no property yet
    assert Property.objects.count() == 0

    # when a property with a value out of bounds is inserted
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        PropertyFactory(owner=owner, category=category, **values)

    # then the database names the constraint and wrote no row
    assert constraint in str(error.value)
    assert Property.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(("values", "constraint"), PROPERTY_REFUSALS)
def test_database_refuses_to_update_a_property_so_that_it_breaks_a_check(
    listing, values, constraint
):
    # given a valid property
    columns = list(values)
    stored = Property.objects.values(*columns).get(pk=listing.pk)

    # when one of its columns is set out of bounds
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        Property.objects.filter(pk=listing.pk).update(**values)

    # then the database names the constraint and the stored values did not change
    assert constraint in str(error.value)
    assert Property.objects.values(*columns).get(pk=listing.pk) == stored


@pytest.mark.django_db
def test_database_refuses_a_201_character_title(owner, category):
    # given an owner and a category, and no property yet
    # when a property whose title has 201 characters is inserted
    # (the column is VARCHAR(200): PostgreSQL refuses the value itself with a DataError
    # before any check runs; SQLite ignores VARCHAR lengths, so the length check refuses it)
    expected_error = DataError if is_postgresql() else IntegrityError
    with pytest.raises(expected_error) as error, transaction.atomic():
        PropertyFactory(owner=owner, category=category, title="x" * 201)

    # then no row was written
    if is_postgresql():
        assert "value too long for type character varying(200)" in str(error.value)
    else:
        assert str(error.value) == "CHECK constraint failed: listings_property_title_length"
    assert Property.objects.count() == 0


PROPERTY_BOUNDARIES = [
    pytest.param({"latitude": 90.0, "longitude": 180.0}, id="north-east-corner"),
    pytest.param({"latitude": -90.0, "longitude": -180.0}, id="south-west-corner"),
    pytest.param({"price": Decimal("0.00")}, id="price-zero"),
    pytest.param({"area": Decimal("0.01")}, id="area-smallest-positive"),
    pytest.param({"title": "A"}, id="title-1-character"),
    pytest.param({"title": "x" * 200}, id="title-200-characters"),
    pytest.param({"description": "x"}, id="description-1-character"),
    pytest.param({"description": "x" * 10_000}, id="description-10000-characters"),
    pytest.param({"transaction_type": TransactionType.RENT}, id="transaction-type-rent"),
    *(
        pytest.param({"status": status}, id=f"status-{status.lower()}")
        for status in PropertyStatus.values
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize("values", PROPERTY_BOUNDARIES)
def test_database_accepts_a_property_at_the_bounds(owner, category, values):
    # given an owner and a category
    # when a property with values at the edge of what is allowed is inserted
    listing = PropertyFactory(owner=owner, category=category, **values)

    # then the row is stored with exactly those values
    assert Property.objects.values(*values).get(pk=listing.pk) == values


# --- Property categories ------------------------------------------------------------------


@pytest.mark.django_db
def test_deleting_a_category_in_use_is_refused(listing, category):
    # given a category that a property is filed under
    # when the category is deleted through the ORM
    with pytest.raises(ProtectedError) as error, transaction.atomic():
        category.delete()

    # then the property is named as the reason and both rows are still there
    assert error.value.protected_objects == {listing}
    assert PropertyCategory.objects.filter(pk=category.pk).exists()
    assert Property.objects.get(pk=listing.pk).category_id == category.pk


@pytest.mark.django_db
def test_database_refuses_a_raw_delete_of_a_category_in_use(listing, category):
    # given a category that a property is filed under
    # when its row is deleted in SQL, past the ORM's PROTECT, and the (deferred)
    # foreign keys are checked
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM listings_propertycategory WHERE id = %s", [category.pk])
        connection.check_constraints(table_names=[Property._meta.db_table])

    # then the foreign key of the property is named and the category is still there
    assert "category_id" in str(error.value)
    assert PropertyCategory.objects.filter(pk=category.pk).exists()
    assert Property.objects.get(pk=listing.pk).category_id == category.pk


@pytest.mark.django_db
def test_deleting_an_unused_category_works(listing):
    # given a category no property is filed under, beside one that is in use
    unused = CategoryFactory(name="Farmland")

    # when the unused category is deleted
    unused.delete()

    # then only that category is gone
    assert list(PropertyCategory.objects.values_list("pk", flat=True)) == [listing.category_id]


# --- Type-specific records ----------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    "second_kind", PropertyType.values, ids=lambda kind: f"second-record-{kind}"
)
def test_database_refuses_a_second_type_specific_record_for_a_property(listing, second_kind):
    # given a property that already has its house record
    house = TypeSpecificRecordFactory(property=listing, kind=PropertyType.HOUSE)

    # when a second record, of the same kind or of another kind, is inserted for it
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        TypeSpecificRecordFactory(property=listing, kind=second_kind)

    # then the unique property column is named and the house record is the only one
    if is_postgresql():
        assert "listings_type_specific_record_property_id_key" in str(error.value)
    else:
        assert str(error.value) == (
            "UNIQUE constraint failed: listings_type_specific_record.property_id"
        )
    assert list(TypeSpecificRecord.objects.values_list("pk", "kind", "rooms")) == [
        (house.pk, PropertyType.HOUSE, HOUSE_VALUES["rooms"])
    ]


RECORD_REFUSALS = [
    pytest.param(
        PropertyType.HOUSE,
        {**HOUSE_VALUES, "rooms": None},
        "listings_record_house_shape",
        id="house-without-rooms",
    ),
    pytest.param(
        PropertyType.HOUSE,
        {**HOUSE_VALUES, "land_type": LandType.BUILDABLE},
        "listings_record_house_shape",
        id="house-with-land-type",
    ),
    pytest.param(
        PropertyType.LAND,
        {**RECORD_VALUES[PropertyType.LAND], "land_type": None},
        "listings_record_land_shape",
        id="land-without-land-type",
    ),
    pytest.param("castle", HOUSE_VALUES, "listings_record_kind_valid", id="kind-unknown"),
    pytest.param("", HOUSE_VALUES, "listings_record_kind_valid", id="kind-empty"),
    pytest.param(
        PropertyType.LAND,
        {**RECORD_VALUES[PropertyType.LAND], "land_type": "SWAMP"},
        "listings_record_land_type_valid",
        id="land-type-unknown",
    ),
    pytest.param(
        PropertyType.OFFICE,
        {**RECORD_VALUES[PropertyType.OFFICE], "type_of_activity": "FARMING"},
        "listings_record_activity_valid",
        id="type-of-activity-unknown",
    ),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("kind", "values", "constraint"), RECORD_REFUSALS)
def test_database_refuses_a_type_specific_record_of_the_wrong_shape(
    listing, kind, values, constraint
):
    # given a property without its type-specific record
    # when a record of an unknown kind, a missing or foreign column, or an unknown value
    # is inserted
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        TypeSpecificRecord.objects.create(property=listing, kind=kind, **values)

    # then the database names the constraint and the property still has no record
    assert constraint in str(error.value)
    assert TypeSpecificRecord.objects.count() == 0
    assert Property.objects.get(pk=listing.pk).type is None


MISSING_COLUMN_CASES = [
    pytest.param(kind, field, id=f"{kind}-without-{field}")
    for kind, fields in KIND_FIELDS.items()
    for field in fields
]


@pytest.mark.django_db
@pytest.mark.parametrize(("kind", "field"), MISSING_COLUMN_CASES)
def test_database_refuses_a_record_missing_a_column_of_its_kind(listing, kind, field):
    # given a property and the valid values of a kind
    values = {**RECORD_VALUES[kind], field: None}

    # when a record of that kind is inserted without one of its columns
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        TypeSpecificRecord.objects.create(property=listing, kind=kind, **values)

    # then the shape check of that kind refuses it
    assert f"listings_record_{kind}_shape" in str(error.value)
    assert TypeSpecificRecord.objects.count() == 0


FOREIGN_COLUMN_CASES = [
    pytest.param(kind, field, id=f"{kind}-with-{field}")
    for kind, fields in KIND_FIELDS.items()
    for field in RECORD_FIELDS
    if field not in fields
]


@pytest.mark.django_db
@pytest.mark.parametrize(("kind", "field"), FOREIGN_COLUMN_CASES)
def test_database_refuses_a_record_with_a_column_of_another_kind(listing, kind, field):
    # given a property and the valid values of a kind
    values = {**RECORD_VALUES[kind], field: ANY_RECORD_VALUES[field]}

    # when a record of that kind is inserted with a valid value in a column it does not use
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        TypeSpecificRecord.objects.create(property=listing, kind=kind, **values)

    # then the shape check of that kind refuses it
    assert f"listings_record_{kind}_shape" in str(error.value)
    assert TypeSpecificRecord.objects.count() == 0


NEGATIVE_COUNT_CASES = [
    pytest.param(PropertyType.HOUSE, "rooms", id="house-rooms"),
    pytest.param(PropertyType.HOUSE, "bedrooms", id="house-bedrooms"),
    pytest.param(PropertyType.APARTMENT, "bathrooms", id="apartment-bathrooms"),
    pytest.param(PropertyType.HOTEL, "floors", id="hotel-floors"),
    pytest.param(PropertyType.DEVELOPMENT, "number_of_units", id="development-number-of-units"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("kind", "field"), NEGATIVE_COUNT_CASES)
def test_database_refuses_a_negative_count(listing, kind, field):
    # given a property and the valid values of a kind
    values = {**RECORD_VALUES[kind], field: -1}

    # when a record of that kind is inserted with a negative count
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        TypeSpecificRecord.objects.create(property=listing, kind=kind, **values)

    # then it is refused: PostgreSQL reports the named check (it tests checks in name
    # order); SQLite reports the column check of the PositiveIntegerField by column name
    if is_postgresql():
        assert f'violates check constraint "listings_record_{field}_non_negative"' in str(
            error.value
        )
    else:
        assert str(error.value) == f"CHECK constraint failed: {field}"
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("kind", PropertyType.values)
def test_database_accepts_a_valid_record_of_each_kind(listing, kind):
    # given a property without its type-specific record
    # when a record of the kind with valid values for its columns is inserted
    record = TypeSpecificRecordFactory(property=listing, kind=kind)

    # then it is stored with those values and every other column empty
    stored = TypeSpecificRecord.objects.values("kind", *RECORD_FIELDS).get(pk=record.pk)
    expected = {field: RECORD_VALUES[kind].get(field) for field in RECORD_FIELDS}
    assert stored == {"kind": kind, **expected}


@pytest.mark.django_db
def test_database_accepts_every_land_type_and_type_of_activity(owner, category):
    # given one property for each land type and each type of activity
    # when a land record is inserted for every land type, and an office record for every
    # type of activity
    for land_type in LandType.values:
        TypeSpecificRecordFactory(
            property=PropertyFactory(owner=owner, category=category),
            kind=PropertyType.LAND,
            land_type=land_type,
        )
    for activity in ActivityType.values:
        TypeSpecificRecordFactory(
            property=PropertyFactory(owner=owner, category=category),
            kind=PropertyType.OFFICE,
            type_of_activity=activity,
        )

    # then all of them are stored
    land_types = TypeSpecificRecord.objects.filter(kind=PropertyType.LAND)
    activities = TypeSpecificRecord.objects.filter(kind=PropertyType.OFFICE)
    assert sorted(land_types.values_list("land_type", flat=True)) == sorted(LandType.values)
    assert sorted(activities.values_list("type_of_activity", flat=True)) == sorted(
        ActivityType.values
    )


# --- Users --------------------------------------------------------------------------------


def insert_with_create(email: str) -> None:
    User.objects.create(email=email)


def insert_with_bulk_create(email: str) -> None:
    User.objects.bulk_create([User(email=email)])


@pytest.mark.django_db
@pytest.mark.parametrize(
    "insert",
    [
        pytest.param(insert_with_create, id="create"),
        pytest.param(insert_with_bulk_create, id="bulk-create"),
    ],
)
def test_database_refuses_an_email_that_differs_only_in_case(insert):
    # given a user with a lower-case email
    existing = UserFactory(email="ann@example.com")

    # when a user whose email differs only in case is inserted, bypassing the manager's
    # lower-casing
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        insert("Ann@Example.com")

    # then the functional unique constraint on lower(email) refuses it
    assert "accounts_user_email_ci_unique" in str(error.value)
    assert list(User.objects.values_list("pk", "email")) == [(existing.pk, "ann@example.com")]


@pytest.mark.django_db
def test_database_refuses_an_identical_email():
    # given a user
    existing = UserFactory(email="ann@example.com")

    # when a second user with the same email is inserted
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        insert_with_create("ann@example.com")

    # then it is refused and the first user is the only one
    assert "email" in str(error.value)
    assert list(User.objects.values_list("pk", flat=True)) == [existing.pk]


@pytest.mark.django_db
def test_database_refuses_an_unknown_user_type():
    # given no user
    # when a user with a user type outside CUSTOMER, OWNER, ADMIN is inserted
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        User.objects.create(email="ann@example.com", user_type="VISITOR")

    # then the database names the constraint and wrote no row
    assert "accounts_user_type_valid" in str(error.value)
    assert User.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("user_type", UserType.values)
def test_database_accepts_every_user_type(user_type):
    # given no user
    # when a user of the type is inserted
    user = User.objects.create(email="ann@example.com", user_type=user_type)

    # then it is stored with that type
    assert User.objects.get(pk=user.pk).user_type == user_type


# --- Favorites ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_database_refuses_a_second_favorite_of_the_same_user_and_property():
    # given a user who saved a property
    favorite = FavoriteFactory()

    # when the same pair is inserted again
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        Favorite.objects.create(property=favorite.property, user=favorite.user)

    # then the unique pair is named and the first favorite is the only one
    if is_postgresql():
        assert "favorites_property_user_unique" in str(error.value)
    else:
        assert str(error.value) == (
            "UNIQUE constraint failed: favorites_favorite.property_id, favorites_favorite.user_id"
        )
    assert list(Favorite.objects.values_list("pk", flat=True)) == [favorite.pk]


@pytest.mark.django_db
def test_database_accepts_favorites_that_share_only_the_user_or_only_the_property(listing):
    # given a user who saved a property
    favorite = FavoriteFactory(property=listing)
    other_listing = PropertyFactory(owner=listing.owner, category=listing.category)
    other_user = UserFactory()

    # when the same user saves another property, and another user the same property
    Favorite.objects.create(property=other_listing, user=favorite.user)
    Favorite.objects.create(property=listing, user=other_user)

    # then all three favorites are stored
    assert set(Favorite.objects.values_list("property_id", "user_id")) == {
        (listing.pk, favorite.user_id),
        (other_listing.pk, favorite.user_id),
        (listing.pk, other_user.pk),
    }


# --- Appointments -------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("duration", [14, 481, 0], ids=lambda minutes: f"{minutes}-minutes")
def test_database_refuses_an_appointment_duration_out_of_range(listing, customer, duration):
    # given a property and a customer
    # when an appointment lasting less than 15 or more than 480 minutes is inserted
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        AppointmentFactory(property=listing, user=customer, duration=duration)

    # then the database names the constraint and wrote no row
    assert "appointments_duration_range" in str(error.value)
    assert Appointment.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("duration", [15, 480], ids=lambda minutes: f"{minutes}-minutes")
def test_database_accepts_an_appointment_duration_at_the_bounds(listing, customer, duration):
    # given a property and a customer
    # when an appointment lasting exactly 15 or exactly 480 minutes is inserted
    appointment = AppointmentFactory(property=listing, user=customer, duration=duration)

    # then it is stored with that duration
    assert Appointment.objects.get(pk=appointment.pk).duration == duration


@pytest.mark.django_db
def test_database_refuses_to_update_an_appointment_duration_out_of_range(listing, customer):
    # given an appointment of 30 minutes
    appointment = AppointmentFactory(property=listing, user=customer, duration=30)

    # when its duration is set to 481 minutes
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        Appointment.objects.filter(pk=appointment.pk).update(duration=481)

    # then the database names the constraint and the duration is still 30
    assert "appointments_duration_range" in str(error.value)
    assert Appointment.objects.get(pk=appointment.pk).duration == 30


@pytest.mark.django_db
def test_database_refuses_an_unknown_appointment_status(listing, customer):
    # given a property and a customer
    # when an appointment with a status outside the state machine is inserted
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        AppointmentFactory(property=listing, user=customer, status="POSTPONED")

    # then the database names the constraint and wrote no row
    assert "appointments_status_valid" in str(error.value)
    assert Appointment.objects.count() == 0


@pytest.mark.django_db
def test_database_accepts_every_appointment_status(listing, customer):
    # given a property and a customer
    # when one appointment of each status is inserted, a day apart
    for days_ahead, status in enumerate(AppointmentStatus.values, start=1):
        AppointmentFactory(
            property=listing, user=customer, status=status, date=visit_date(days_ahead)
        )

    # then all of them are stored
    assert sorted(Appointment.objects.values_list("status", flat=True)) == sorted(
        AppointmentStatus.values
    )


# --- Notifications ------------------------------------------------------------------------


@pytest.mark.django_db
def test_database_refuses_an_unknown_notification_status(listing, customer):
    # given a property and a user
    # when a notification with a status outside SUCCESS, ERROR, WARNING, INFO is inserted
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        NotificationFactory(property=listing, user=customer, status="DEBUG")

    # then the database names the constraint and wrote no row
    assert "notifications_status_valid" in str(error.value)
    assert Notification.objects.count() == 0


@pytest.mark.django_db
def test_database_accepts_every_notification_status(listing, customer):
    # given a property and a user
    # when one notification of each status is inserted
    for status in NotificationStatus.values:
        NotificationFactory(property=listing, user=customer, status=status)

    # then all of them are stored
    assert sorted(Notification.objects.values_list("status", flat=True)) == sorted(
        NotificationStatus.values
    )


# --- Media --------------------------------------------------------------------------------

MEDIA_CASES = [
    pytest.param(ImageFactory, Image, id="image"),
    pytest.param(VideoFactory, Video, id="video"),
]


@pytest.mark.django_db
@pytest.mark.parametrize(("media_factory", "model"), MEDIA_CASES)
def test_database_refuses_a_negative_media_position(listing, media_factory, model):
    # given a property
    # when an image or video with position -1 is inserted (a stored name, so no file is written)
    with pytest.raises(IntegrityError) as error, transaction.atomic():
        media_factory(property=listing, position=-1, file="properties/x/media/x.bin")

    # then it is refused: the column check of the PositiveIntegerField fires first on
    # both databases (PostgreSQL tests checks in name order, "media_app_..." first)
    if is_postgresql():
        assert f'"{model._meta.db_table}_position_check"' in str(error.value)
    else:
        assert str(error.value) == "CHECK constraint failed: position"
    assert model.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize(("media_factory", "model"), MEDIA_CASES)
def test_database_accepts_media_position_zero(listing, media_factory, model):
    # given a property
    # when an image or video at position 0 is inserted
    media = media_factory(property=listing, position=0, file="properties/x/media/x.bin")

    # then it is stored at position 0
    assert model.objects.get(pk=media.pk).position == 0
