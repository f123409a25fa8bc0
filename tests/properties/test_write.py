"""POST, PATCH and DELETE /properties (decisions D2, D3, D5, D7, D14)."""

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from appointments.models import Appointment
from favorites.models import Favorite
from listings.models import (
    Property,
    PropertyStatus,
    PropertyType,
    TransactionType,
    TypeSpecificRecord,
)
from media_app.models import Image, Video
from notifications.models import Notification
from tests.factories import (
    AppointmentFactory,
    CategoryFactory,
    FavoriteFactory,
    ImageFactory,
    ListingFactory,
    NotificationFactory,
    TypeSpecificRecordFactory,
    VideoFactory,
)
from tests.properties.support import (
    PROPERTIES_URL,
    WRITE_RESPONSE_KEYS,
    assert_problem,
    assert_validation_error,
    common_fields,
    listing_row,
    property_url,
)

pytestmark = pytest.mark.django_db

REQUIRED_FIELDS = [
    "title",
    "description",
    "price",
    "latitude",
    "longitude",
    "transactionType",
    "municipality",
    "address",
    "area",
    "categoryId",
]


@pytest.fixture
def new_listing_body(category) -> dict[str, object]:
    """A valid POST /properties body without ownerId."""
    return {
        "title": "Flat with a terrace",
        "description": "Two bedrooms, a terrace and a view of the park.",
        "price": 325000.5,
        "latitude": 40.4201,
        "longitude": -3.6885,
        "transactionType": "SALE",
        "municipality": "Madrid",
        "address": "14 Calle de Alcala",
        "area": 84.75,
        "categoryId": category.id,
    }


def backdate(listing: Property) -> Property:
    """Move the listing's timestamps an hour back, so that a change shows in updatedAt."""
    earlier = timezone.now() - datetime.timedelta(hours=1)
    Property.objects.filter(pk=listing.pk).update(created_at=earlier, updated_at=earlier)
    listing.refresh_from_db()
    return listing


# --- POST /properties -------------------------------------------------------------------


def test_create_by_an_owner_is_201_with_the_pending_listing(
    owner_client, owner_record, new_listing_body
):
    # given a valid body without ownerId

    # when
    response = owner_client.post(PROPERTIES_URL, new_listing_body, format="json")

    # then
    assert response.status_code == 201
    body = response.json()
    assert set(body) == WRITE_RESPONSE_KEYS
    listing = Property.objects.get()
    assert body == {**common_fields(listing), "type": None}
    assert body["status"] == "PENDING"
    assert body["ownerId"] == owner_record.id
    assert body["price"] == 325000.5
    assert body["area"] == 84.75
    assert body["createdAt"].endswith("Z")
    assert listing.title == "Flat with a terrace"
    assert listing.price == Decimal("325000.50")
    assert listing.area == Decimal("84.75")
    assert listing.transaction_type == TransactionType.SALE
    assert listing.category_id == new_listing_body["categoryId"]


def test_create_ignores_status_id_and_timestamps_in_the_body(owner_client, new_listing_body):
    # given
    body = {
        **new_listing_body,
        "status": "AVAILABLE",
        "id": "aaaaaaaaaaaaaaaaaaaaaaaaa",
        "createdAt": "2001-01-01T00:00:00Z",
        "updatedAt": "2001-01-01T00:00:00Z",
        "type": "house",
        "unknownField": "ignored",
    }

    # when
    response = owner_client.post(PROPERTIES_URL, body, format="json")

    # then
    assert response.status_code == 201
    listing = Property.objects.get()
    assert listing.status == PropertyStatus.PENDING
    assert listing.id != "aaaaaaaaaaaaaaaaaaaaaaaaa"
    assert response.json()["id"] == listing.id
    assert listing.created_at.year == timezone.now().year
    assert response.json()["type"] is None


def test_create_trims_strings(owner_client, new_listing_body):
    # given
    body = {
        **new_listing_body,
        "title": "  Flat with a terrace  ",
        "municipality": " Madrid ",
        "address": " 14 Calle de Alcala\n",
    }

    # when
    response = owner_client.post(PROPERTIES_URL, body, format="json")

    # then
    assert response.status_code == 201
    listing = Property.objects.get()
    assert listing.title == "Flat with a terrace"
    assert listing.municipality == "Madrid"
    assert listing.address == "14 Calle de Alcala"
    assert response.json()["title"] == "Flat with a terrace"


def test_create_rounds_the_price_to_cents(owner_client, new_listing_body):
    # given a valid body

    # when
    response = owner_client.post(
        PROPERTIES_URL, {**new_listing_body, "price": 1234.567}, format="json"
    )

    # then
    assert response.status_code == 201
    assert response.json()["price"] == 1234.57
    assert Property.objects.get().price == Decimal("1234.57")


def test_create_with_own_owner_id(owner_client, owner_record, new_listing_body):
    # given a valid body

    # when
    response = owner_client.post(
        PROPERTIES_URL, {**new_listing_body, "ownerId": owner_record.id}, format="json"
    )

    # then
    assert response.status_code == 201
    assert Property.objects.get().owner_id == owner_record.id


def test_create_for_another_owner_is_403(owner_client, other_owner_record, new_listing_body):
    # given a valid body

    # when
    response = owner_client.post(
        PROPERTIES_URL, {**new_listing_body, "ownerId": other_owner_record.id}, format="json"
    )

    # then
    body = assert_problem(response, status=403, code="permission_denied")
    assert [error["field"] for error in body["errors"]] == ["ownerId"]
    assert Property.objects.count() == 0


def test_create_by_a_customer_is_403(customer_client, new_listing_body):
    # given a valid body

    # when
    response = customer_client.post(PROPERTIES_URL, new_listing_body, format="json")

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert Property.objects.count() == 0


def test_create_by_an_anonymous_user_is_401(anonymous_client, new_listing_body):
    # given a valid body

    # when
    response = anonymous_client.post(PROPERTIES_URL, new_listing_body, format="json")

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"
    assert Property.objects.count() == 0


def test_create_with_an_invalid_token_is_401(anonymous_client, new_listing_body):
    # given
    anonymous_client.credentials(HTTP_AUTHORIZATION="Bearer est_not-a-real-token")

    # when
    response = anonymous_client.post(PROPERTIES_URL, new_listing_body, format="json")

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert Property.objects.count() == 0


def test_create_by_an_admin_needs_an_owner_id(admin_client, new_listing_body):
    # given a valid body without ownerId

    # when
    response = admin_client.post(PROPERTIES_URL, new_listing_body, format="json")

    # then
    assert_validation_error(response, "ownerId")
    assert Property.objects.count() == 0


def test_create_by_an_admin_for_any_owner(admin_client, other_owner_record, new_listing_body):
    # given a valid body

    # when
    response = admin_client.post(
        PROPERTIES_URL, {**new_listing_body, "ownerId": other_owner_record.id}, format="json"
    )

    # then
    assert response.status_code == 201
    listing = Property.objects.get()
    assert listing.owner_id == other_owner_record.id
    assert listing.status == PropertyStatus.PENDING
    assert response.json() == {**common_fields(listing), "type": None}


@pytest.mark.parametrize("client_name", ["owner", "admin"])
def test_create_with_an_unknown_owner_id_is_400(clients, new_listing_body, client_name):
    # given a valid body

    # when
    response = clients[client_name].post(
        PROPERTIES_URL, {**new_listing_body, "ownerId": "zzzzzzzzzzzzzzzzzzzzzzzzz"}, format="json"
    )

    # then
    assert_validation_error(response, "ownerId")
    assert Property.objects.count() == 0


def test_create_with_an_unknown_category_id_is_400(owner_client, new_listing_body):
    # given a valid body

    # when
    response = owner_client.post(
        PROPERTIES_URL,
        {**new_listing_body, "categoryId": "zzzzzzzzzzzzzzzzzzzzzzzzz"},
        format="json",
    )

    # then
    assert_validation_error(response, "categoryId")
    assert Property.objects.count() == 0


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("latitude", 91),
        ("latitude", -90.0001),
        ("latitude", "north"),
        ("latitude", "NaN"),
        ("longitude", "Infinity"),
        ("longitude", -181),
        ("longitude", 180.0001),
        ("price", -1),
        ("price", -0.01),
        ("price", "cheap"),
        ("price", "NaN"),
        ("price", 1e15),
        ("area", 0),
        ("area", -5),
        ("area", 0.001),
        ("title", ""),
        ("title", "   "),
        ("title", "x" * 201),
        ("title", None),
        ("description", ""),
        ("description", "d" * 10_001),
        ("transactionType", "LEASE"),
        ("transactionType", "sale"),
        ("municipality", ""),
        ("address", ""),
        ("categoryId", None),
    ],
)
def test_create_with_an_invalid_field_is_400_naming_it(
    owner_client, new_listing_body, field, value
):
    # given a valid body

    # when
    response = owner_client.post(PROPERTIES_URL, {**new_listing_body, field: value}, format="json")

    # then
    assert_validation_error(response, field)
    assert Property.objects.count() == 0


@pytest.mark.parametrize(
    ("field", "value", "stored"),
    [
        ("latitude", 90, 90.0),
        ("latitude", -90, -90.0),
        ("longitude", 180, 180.0),
        ("longitude", -180, -180.0),
        ("price", 0, Decimal("0.00")),
        ("area", 0.01, Decimal("0.01")),
        ("title", "t" * 200, "t" * 200),
        ("description", "d" * 10_000, "d" * 10_000),
        ("transactionType", "RENT", "RENT"),
    ],
)
def test_create_accepts_the_bounds(owner_client, new_listing_body, field, value, stored):
    # given a valid body

    # when
    response = owner_client.post(PROPERTIES_URL, {**new_listing_body, field: value}, format="json")

    # then
    assert response.status_code == 201, response.content
    column = {"transactionType": "transaction_type"}.get(field, field)
    assert getattr(Property.objects.get(), column) == stored


@pytest.mark.parametrize("field", REQUIRED_FIELDS)
def test_create_without_a_required_field_is_400_naming_it(owner_client, new_listing_body, field):
    # given
    body = {key: value for key, value in new_listing_body.items() if key != field}

    # when
    response = owner_client.post(PROPERTIES_URL, body, format="json")

    # then
    body = assert_validation_error(response, field)
    assert body["errors"][0]["code"] == "required"
    assert Property.objects.count() == 0


def test_create_with_an_empty_body_names_every_required_field(owner_client):
    # given a signed-in owner

    # when
    response = owner_client.post(PROPERTIES_URL, {}, format="json")

    # then
    assert_validation_error(response, *REQUIRED_FIELDS)
    assert Property.objects.count() == 0


def test_create_with_malformed_json_is_400_parse_error(owner_client):
    # given a signed-in owner

    # when
    response = owner_client.post(
        PROPERTIES_URL, data='{"title": "broken', content_type="application/json"
    )

    # then
    assert_problem(response, status=400, code="parse_error")
    assert Property.objects.count() == 0


# --- PATCH /properties/:id --------------------------------------------------------------


def test_patch_by_the_owner_changes_the_given_fields_only(owner_client, owner_record):
    # given
    listing = backdate(ListingFactory(owner=owner_record, status=PropertyStatus.AVAILABLE))
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(
        property_url(listing.id), {"title": "  New title ", "price": 199000}, format="json"
    )

    # then
    assert response.status_code == 200
    body = response.json()
    assert set(body) == WRITE_RESPONSE_KEYS
    assert body == {**common_fields(listing), "type": None}
    after = listing_row(listing.id)
    assert after["title"] == "New title"
    assert after["price"] == Decimal("199000.00")
    assert after["updated_at"] > before["updated_at"]
    # The searched text and the address's slug follow the title.
    assert "new" in after["search_document"].lower()
    assert after["slug"] == "new-title"
    unchanged = set(before) - {"title", "price", "updated_at", "search_document", "slug"}
    assert {name: after[name] for name in unchanged} == {name: before[name] for name in unchanged}


@pytest.mark.parametrize(
    ("field", "value", "column", "stored"),
    [
        ("title", "Renovated loft", "title", "Renovated loft"),
        ("description", "Now with a new kitchen.", "description", "Now with a new kitchen."),
        ("price", 123456.789, "price", Decimal("123456.79")),
        ("latitude", -33.8688, "latitude", -33.8688),
        ("longitude", 151.2093, "longitude", 151.2093),
        ("transactionType", "RENT", "transaction_type", "RENT"),
        ("municipality", "Sevilla", "municipality", "Sevilla"),
        ("address", "5 Calle Sierpes", "address", "5 Calle Sierpes"),
        ("area", 75.5, "area", Decimal("75.50")),
    ],
)
def test_patch_each_common_field(owner_client, owner_record, field, value, column, stored):
    # given
    listing = backdate(ListingFactory(owner=owner_record))
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(property_url(listing.id), {field: value}, format="json")

    # then
    assert response.status_code == 200, response.content
    after = listing_row(listing.id)
    assert after[column] == stored
    assert after["updated_at"] > before["updated_at"]
    assert response.json() == {**common_fields(listing), "type": None}


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"title": "Listing as it was"},
        {"price": 250000, "municipality": "Madrid"},
        {"colour": "red"},
    ],
)
def test_patch_that_changes_nothing_leaves_updated_at_alone(owner_client, owner_record, body):
    # given
    listing = backdate(
        ListingFactory(owner=owner_record, title="Listing as it was", price="250000.00")
    )
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(property_url(listing.id), body, format="json")

    # then
    assert response.status_code == 200
    assert response.json() == {**common_fields(listing), "type": None}
    assert listing_row(listing.id) == before


def test_patch_category(owner_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record)
    offices = CategoryFactory(name="Offices")

    # when
    response = owner_client.patch(
        property_url(listing.id), {"categoryId": offices.id}, format="json"
    )

    # then
    assert response.status_code == 200
    assert response.json()["categoryId"] == offices.id
    assert listing_row(listing.id)["category_id"] == offices.id


def test_patch_answers_with_the_type(owner_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record)
    TypeSpecificRecordFactory(property=listing, kind=PropertyType.LAND)

    # when
    response = owner_client.patch(property_url(listing.id), {"title": "Plot"}, format="json")

    # then
    assert response.status_code == 200
    assert response.json()["type"] == "land"


def test_patch_of_a_pending_listing_by_its_owner(owner_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)

    # when
    response = owner_client.patch(property_url(listing.id), {"title": "Fixed typo"}, format="json")

    # then
    assert response.status_code == 200
    assert listing_row(listing.id)["title"] == "Fixed typo"
    assert listing_row(listing.id)["status"] == PropertyStatus.PENDING


def test_patch_ignores_server_controlled_and_unknown_fields(owner_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record)
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(
        property_url(listing.id),
        {"id": "aaaaaaaaaaaaaaaaaaaaaaaaa", "createdAt": "2001-01-01T00:00:00Z", "colour": "red"},
        format="json",
    )

    # then
    assert response.status_code == 200
    after = listing_row(listing.id)
    assert after["id"] == listing.id
    assert after["created_at"] == before["created_at"]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", ""),
        ("title", "x" * 201),
        ("description", "d" * 10_001),
        ("price", -1),
        ("area", 0),
        ("latitude", 91),
        ("longitude", -181),
        ("transactionType", "LEASE"),
        ("status", "DELETED"),
        ("categoryId", "zzzzzzzzzzzzzzzzzzzzzzzzz"),
        ("ownerId", "zzzzzzzzzzzzzzzzzzzzzzzzz"),
    ],
)
def test_patch_with_an_invalid_field_is_400_and_changes_nothing(
    owner_client, owner_record, field, value
):
    # given
    listing = ListingFactory(owner=owner_record)
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(
        property_url(listing.id), {"title": "Changed", field: value}, format="json"
    )

    # then
    assert_validation_error(response, field)
    assert listing_row(listing.id) == before


@pytest.mark.parametrize("status", [PropertyStatus.AVAILABLE, PropertyStatus.SOLD])
def test_patch_by_another_owner_of_a_visible_listing_is_403(
    other_owner_client, owner_record, status
):
    # given
    listing = ListingFactory(owner=owner_record, status=status)
    before = listing_row(listing.id)

    # when
    response = other_owner_client.patch(
        property_url(listing.id), {"title": "Hijacked"}, format="json"
    )

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert listing_row(listing.id) == before


@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
def test_patch_by_another_owner_of_a_hidden_listing_is_404(
    other_owner_client, owner_record, status
):
    # given
    listing = ListingFactory(owner=owner_record, status=status)
    before = listing_row(listing.id)

    # when
    response = other_owner_client.patch(
        property_url(listing.id), {"title": "Hijacked"}, format="json"
    )

    # then
    assert_problem(response, status=404, code="not_found")
    assert listing_row(listing.id) == before


def test_patch_by_a_customer_of_a_visible_listing_is_403(customer_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.AVAILABLE)
    before = listing_row(listing.id)

    # when
    response = customer_client.patch(property_url(listing.id), {"price": 1}, format="json")

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert listing_row(listing.id) == before


def test_patch_by_a_customer_of_a_hidden_listing_is_404(customer_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)
    before = listing_row(listing.id)

    # when
    response = customer_client.patch(property_url(listing.id), {"price": 1}, format="json")

    # then
    assert_problem(response, status=404, code="not_found")
    assert listing_row(listing.id) == before


def test_patch_by_an_anonymous_user_is_401(anonymous_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record)
    before = listing_row(listing.id)

    # when
    response = anonymous_client.patch(property_url(listing.id), {"price": 1}, format="json")

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert listing_row(listing.id) == before


@pytest.mark.parametrize("status", [PropertyStatus.AVAILABLE, PropertyStatus.PENDING])
def test_patch_by_an_admin(admin_client, owner_record, status):
    # given
    listing = backdate(ListingFactory(owner=owner_record, status=status))

    # when
    response = admin_client.patch(
        property_url(listing.id), {"title": "Moderated title"}, format="json"
    )

    # then
    assert response.status_code == 200
    assert listing_row(listing.id)["title"] == "Moderated title"
    assert response.json() == {**common_fields(listing), "type": None}


def test_patch_of_an_unknown_listing_is_404(owner_client):
    # given no listing with that id

    # when
    response = owner_client.patch(
        property_url("zzzzzzzzzzzzzzzzzzzzzzzzz"), {"title": "Ghost"}, format="json"
    )

    # then
    assert_problem(response, status=404, code="not_found")


def test_patch_owner_id_to_another_owner_by_the_owner_is_403(
    owner_client, owner_record, other_owner_record
):
    # given
    listing = ListingFactory(owner=owner_record)
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(
        property_url(listing.id), {"ownerId": other_owner_record.id, "title": "Gift"}, format="json"
    )

    # then
    body = assert_problem(response, status=403, code="permission_denied")
    assert [error["field"] for error in body["errors"]] == ["ownerId"]
    assert listing_row(listing.id) == before


def test_patch_owner_id_to_oneself_is_allowed(owner_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.patch(
        property_url(listing.id), {"ownerId": owner_record.id, "title": "Mine"}, format="json"
    )

    # then
    assert response.status_code == 200
    assert listing_row(listing.id)["owner_id"] == owner_record.id
    assert listing_row(listing.id)["title"] == "Mine"


def test_patch_owner_id_by_an_admin_moves_the_listing(
    admin_client, owner_record, other_owner_record
):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = admin_client.patch(
        property_url(listing.id), {"ownerId": other_owner_record.id}, format="json"
    )

    # then
    assert response.status_code == 200
    assert response.json()["ownerId"] == other_owner_record.id
    assert listing_row(listing.id)["owner_id"] == other_owner_record.id


def test_patch_with_a_field_and_an_invalid_transition_is_409_and_changes_nothing(
    owner_client, owner_record
):
    # given
    listing = ListingFactory(
        owner=owner_record, status=PropertyStatus.AVAILABLE, transaction_type=TransactionType.SALE
    )
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(
        property_url(listing.id), {"title": "Now rented", "status": "RENTED"}, format="json"
    )

    # then
    assert_problem(response, status=409, code="invalid_transition")
    assert listing_row(listing.id) == before


def test_patch_with_a_field_and_a_status_move_of_another_role_is_403_and_changes_nothing(
    owner_client, owner_record
):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)
    before = listing_row(listing.id)

    # when
    response = owner_client.patch(
        property_url(listing.id), {"title": "Approve me", "status": "AVAILABLE"}, format="json"
    )

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert listing_row(listing.id) == before


def test_patch_with_a_field_and_an_allowed_status_move_does_both(owner_client, owner_record):
    # given
    listing = ListingFactory(
        owner=owner_record, status=PropertyStatus.AVAILABLE, transaction_type=TransactionType.SALE
    )

    # when
    response = owner_client.patch(
        property_url(listing.id), {"price": 240000, "status": "SOLD"}, format="json"
    )

    # then
    assert response.status_code == 200
    row = listing_row(listing.id)
    assert (row["price"], row["status"]) == (Decimal("240000.00"), PropertyStatus.SOLD)
    assert response.json() == {**common_fields(listing), "type": None}


@pytest.mark.parametrize("status", [PropertyStatus.SOLD, PropertyStatus.RENTED])
def test_patch_transaction_type_of_a_closed_listing_is_409(owner_client, owner_record, status):
    # given
    transaction_type = TransactionType.SALE if status == PropertyStatus.SOLD else "RENT"
    listing = ListingFactory(owner=owner_record, status=status, transaction_type=transaction_type)
    before = listing_row(listing.id)
    other_type = "RENT" if transaction_type == TransactionType.SALE else "SALE"

    # when
    response = owner_client.patch(
        property_url(listing.id), {"transactionType": other_type}, format="json"
    )

    # then
    body = assert_problem(response, status=409, code="conflict")
    assert [error["field"] for error in body["errors"]] == ["transactionType"]
    assert listing_row(listing.id) == before


# --- DELETE /properties/:id -------------------------------------------------------------


@pytest.fixture
def furnished_listing(owner_record, customer):
    """A listing with everything that hangs on it, next to another listing that must survive."""
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.AVAILABLE)
    TypeSpecificRecordFactory(property=listing, kind=PropertyType.HOUSE)
    ImageFactory(property=listing)
    VideoFactory(property=listing)
    AppointmentFactory(property=listing, user=customer)
    FavoriteFactory(property=listing, user=customer)
    NotificationFactory(property=listing, user=customer)
    bystander = ListingFactory(owner=owner_record, status=PropertyStatus.AVAILABLE)
    TypeSpecificRecordFactory(property=bystander, kind=PropertyType.APARTMENT)
    ImageFactory(property=bystander)
    VideoFactory(property=bystander)
    AppointmentFactory(property=bystander, user=customer)
    FavoriteFactory(property=bystander, user=customer)
    NotificationFactory(property=bystander, user=customer)
    return listing


def rows_hanging_on(listing_id: str) -> dict[str, int]:
    return {
        "property": Property.objects.filter(pk=listing_id).count(),
        "record": Property.objects.filter(pk=listing_id, type_record__isnull=False).count(),
        "images": Image.objects.filter(property_id=listing_id).count(),
        "videos": Video.objects.filter(property_id=listing_id).count(),
        "appointments": Appointment.objects.filter(property_id=listing_id).count(),
        "favorites": Favorite.objects.filter(property_id=listing_id).count(),
        "notifications": Notification.objects.filter(property_id=listing_id).count(),
    }


ALL_ROWS = {
    "property": 1,
    "record": 1,
    "images": 1,
    "videos": 1,
    "appointments": 1,
    "favorites": 1,
    "notifications": 1,
}
NO_ROWS = dict.fromkeys(ALL_ROWS, 0)


@pytest.mark.parametrize("client_name", ["owner", "admin"])
def test_delete_removes_the_listing_and_everything_on_it(clients, furnished_listing, client_name):
    # given
    records_before = TypeSpecificRecord.objects.count()

    # when
    response = clients[client_name].delete(property_url(furnished_listing.id))

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert rows_hanging_on(furnished_listing.id) == NO_ROWS
    assert TypeSpecificRecord.objects.count() == records_before - 1
    assert Property.objects.count() == 1
    survivor = Property.objects.get()
    assert rows_hanging_on(survivor.id) == ALL_ROWS


@pytest.mark.parametrize("client_name", ["other_owner", "customer"])
def test_delete_of_a_visible_listing_by_others_is_403(clients, furnished_listing, client_name):
    # given the furnished listing

    # when
    response = clients[client_name].delete(property_url(furnished_listing.id))

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert rows_hanging_on(furnished_listing.id) == ALL_ROWS


@pytest.mark.parametrize("client_name", ["other_owner", "customer"])
@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
def test_delete_of_a_hidden_listing_by_others_is_404(
    clients, furnished_listing, client_name, status
):
    # given
    Property.objects.filter(pk=furnished_listing.pk).update(status=status)

    # when
    response = clients[client_name].delete(property_url(furnished_listing.id))

    # then
    assert_problem(response, status=404, code="not_found")
    assert rows_hanging_on(furnished_listing.id) == ALL_ROWS


def test_delete_by_an_anonymous_user_is_401(anonymous_client, furnished_listing):
    # given the furnished listing

    # when
    response = anonymous_client.delete(property_url(furnished_listing.id))

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert rows_hanging_on(furnished_listing.id) == ALL_ROWS


def test_delete_of_an_unknown_listing_is_404(owner_client, furnished_listing):
    # given the furnished listing and its bystander

    # when
    response = owner_client.delete(property_url("zzzzzzzzzzzzzzzzzzzzzzzzz"))

    # then
    assert_problem(response, status=404, code="not_found")
    assert Property.objects.count() == 2


def test_deleted_listing_is_gone_from_detail_and_list(owner_client, anonymous_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    owner_client.delete(property_url(listing.id))

    # then
    assert_problem(anonymous_client.get(property_url(listing.id)), status=404, code="not_found")
    assert anonymous_client.get(PROPERTIES_URL).json()["totalItems"] == 0


@pytest.mark.parametrize("role", ["customer", "other_owner"])
def test_who_may_not_change_a_visible_listing_gets_403_before_any_validation(
    clients, owner_record, role
):
    # given an AVAILABLE listing of another owner and a body that is invalid as well
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.AVAILABLE)
    before = listing_row(listing.id)

    # when
    response = clients[role].patch(property_url(listing.id), {"price": -1}, format="json")

    # then the refusal is about permission, not about the body, and nothing changed
    assert_problem(response, status=403, code="permission_denied")
    assert listing_row(listing.id) == before
