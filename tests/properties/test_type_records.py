"""The seven type-specific resources: /houses, /apartments, /lands, /offices, /commercials,
/hotels and /developments (decisions D7, D9)."""

import pytest

from listings.models import PropertyStatus, PropertyType, TypeSpecificRecord
from tests.factories import ListingFactory, TypeSpecificRecordFactory
from tests.properties.support import (
    ACTIVITY_TYPES,
    COUNT_FIELDS,
    LAND_TYPES,
    PROPERTIES_URL,
    RECORD_BODIES,
    RECORD_FIELDS,
    SNAKE_NAMES,
    assert_problem,
    assert_validation_error,
    property_url,
    record_payload,
    record_url,
    records_payload,
)

pytestmark = pytest.mark.django_db

KINDS = PropertyType.values
REQUIRED_CASES = [(kind, field) for kind in KINDS for field in sorted(RECORD_FIELDS[kind])]
COUNT_CASES = [
    (kind, field) for kind in KINDS for field in sorted(RECORD_FIELDS[kind] & COUNT_FIELDS)
]
ACTIVITY_KINDS = [PropertyType.OFFICE, PropertyType.COMMERCIAL, PropertyType.DEVELOPMENT]
# A kind, and another kind, for "a second record of another kind" cases.
OTHER_KIND = dict(zip(KINDS, KINDS[1:] + KINDS[:1], strict=True))


def record_row(record_id: str) -> dict[str, object]:
    return TypeSpecificRecord.objects.values().get(pk=record_id)


def column(name: str) -> str:
    return SNAKE_NAMES.get(name, name)


# --- POST -------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
def test_create_by_the_owner_is_201_with_the_record(owner_client, owner_record, kind):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)

    # when
    response = owner_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )

    # then
    assert response.status_code == 201, response.content
    record = TypeSpecificRecord.objects.get()
    assert record.kind == kind
    assert record.property_id == listing.id
    assert response.json() == {"id": record.id, "propertyId": listing.id, **RECORD_BODIES[kind]}
    assert set(response.json()) == {"id", "propertyId"} | RECORD_FIELDS[kind]
    for name, value in RECORD_BODIES[kind].items():
        assert getattr(record, column(name)) == value


def test_the_listings_copy_of_the_bedrooms_follows_its_record(owner_client, owner_record):
    # given a listing, and what minBedrooms=3 finds
    listing = ListingFactory(owner=owner_record)

    def found_with_three_bedrooms() -> list[str]:
        page = owner_client.get(PROPERTIES_URL, {"minBedrooms": 3}).json()
        return [item["id"] for item in page["properties"]]

    # when its house record with 4 bedrooms is added, then it is found
    created = owner_client.post(
        record_url(PropertyType.HOUSE),
        {"propertyId": listing.id, **RECORD_BODIES[PropertyType.HOUSE]},
        format="json",
    )
    assert created.status_code == 201
    listing.refresh_from_db()
    assert listing.bedrooms == 4
    assert found_with_three_bedrooms() == [listing.id]

    # when the record says 2, then it is not
    record_id = created.json()["id"]
    changed = owner_client.patch(
        record_url(PropertyType.HOUSE, record_id), {"bedrooms": 2}, format="json"
    )
    assert changed.status_code == 200
    listing.refresh_from_db()
    assert listing.bedrooms == 2
    assert found_with_three_bedrooms() == []

    # when the record goes, then the copy goes with it
    assert owner_client.delete(record_url(PropertyType.HOUSE, record_id)).status_code == 204
    listing.refresh_from_db()
    assert listing.bedrooms is None


@pytest.mark.parametrize("kind", KINDS)
def test_create_sets_the_type_of_the_listing(owner_client, owner_record, kind):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    owner_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )
    detail = owner_client.get(property_url(listing.id))

    # then
    assert detail.json()["type"] == kind
    record = TypeSpecificRecord.objects.get()
    assert {key: detail.json()[key] for key in records_payload(None)} == records_payload(record)
    # and the listing's copy of the kind, which the `type` filter reads, follows
    listing.refresh_from_db()
    assert listing.kind == kind
    found = owner_client.get(PROPERTIES_URL, {"type": kind}).json()["properties"]
    assert [item["id"] for item in found] == [listing.id]


@pytest.mark.parametrize("kind", KINDS)
def test_create_by_an_admin_for_any_listing(admin_client, owner_record, kind):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)

    # when
    response = admin_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )

    # then
    assert response.status_code == 201
    assert TypeSpecificRecord.objects.get().property_id == listing.id


def test_create_ignores_an_id_and_fields_of_other_kinds(owner_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record)
    body = {
        "propertyId": listing.id,
        **RECORD_BODIES[PropertyType.LAND],
        "id": "aaaaaaaaaaaaaaaaaaaaaaaaa",
        "rooms": 4,
        "typeOfActivity": "RETAIL",
    }

    # when
    response = owner_client.post(record_url(PropertyType.LAND), body, format="json")

    # then
    assert response.status_code == 201
    record = TypeSpecificRecord.objects.get()
    assert record.id != "aaaaaaaaaaaaaaaaaaaaaaaaa"
    assert (record.rooms, record.type_of_activity) == (None, None)
    assert set(response.json()) == {"id", "propertyId", "serviced", "landType"}


@pytest.mark.parametrize(("kind", "field"), REQUIRED_CASES)
def test_create_without_a_required_field_is_400_naming_it(owner_client, owner_record, kind, field):
    # given
    listing = ListingFactory(owner=owner_record)
    body = {"propertyId": listing.id, **RECORD_BODIES[kind]}
    del body[field]

    # when
    response = owner_client.post(record_url(kind), body, format="json")

    # then
    body = assert_validation_error(response, field)
    assert body["errors"][0]["code"] == "required"
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize(("kind", "field"), REQUIRED_CASES)
def test_create_with_a_null_field_is_400_naming_it(owner_client, owner_record, kind, field):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.post(
        record_url(kind),
        {"propertyId": listing.id, **RECORD_BODIES[kind], field: None},
        format="json",
    )

    # then
    assert_validation_error(response, field)
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize("kind", KINDS)
def test_create_without_property_id_is_400_naming_it(owner_client, kind):
    # given a valid body without propertyId

    # when
    response = owner_client.post(record_url(kind), RECORD_BODIES[kind], format="json")

    # then
    assert_validation_error(response, "propertyId")
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize("kind", KINDS)
def test_create_with_an_empty_body_names_every_field(owner_client, kind):
    # given nothing but a signed-in owner

    # when
    response = owner_client.post(record_url(kind), {}, format="json")

    # then
    assert_validation_error(response, "propertyId", *RECORD_FIELDS[kind])
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize(("kind", "field"), COUNT_CASES)
def test_create_with_a_negative_count_is_400_naming_it(owner_client, owner_record, kind, field):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.post(
        record_url(kind),
        {"propertyId": listing.id, **RECORD_BODIES[kind], field: -1},
        format="json",
    )

    # then
    body = assert_validation_error(response, field)
    assert body["errors"][0]["code"] == "min_value"
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize(("kind", "field"), COUNT_CASES)
def test_create_with_a_count_of_zero_is_allowed(owner_client, owner_record, kind, field):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind], field: 0}, format="json"
    )

    # then
    assert response.status_code == 201
    assert getattr(TypeSpecificRecord.objects.get(), column(field)) == 0


@pytest.mark.parametrize(
    ("kind", "field", "value"),
    [
        (PropertyType.HOUSE, "rooms", "many"),
        (PropertyType.HOUSE, "rooms", 2.5),
        (PropertyType.HOUSE, "swimmingPool", "perhaps"),
        (PropertyType.APARTMENT, "elevator", "sometimes"),
        (PropertyType.LAND, "serviced", 7),
        (PropertyType.HOTEL, "floors", "ten"),
    ],
)
def test_create_with_a_value_of_the_wrong_type_is_400_naming_it(
    owner_client, owner_record, kind, field, value
):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.post(
        record_url(kind),
        {"propertyId": listing.id, **RECORD_BODIES[kind], field: value},
        format="json",
    )

    # then
    assert_validation_error(response, field)
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize("value", ["SWAMP", "buildable", ""])
def test_create_land_with_an_invalid_land_type_is_400_naming_it(owner_client, owner_record, value):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.post(
        record_url(PropertyType.LAND),
        {"propertyId": listing.id, "serviced": True, "landType": value},
        format="json",
    )

    # then
    assert_validation_error(response, "landType")
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize("kind", ACTIVITY_KINDS)
@pytest.mark.parametrize("value", ["FARMING", "retail", ""])
def test_create_with_an_invalid_type_of_activity_is_400_naming_it(
    owner_client, owner_record, kind, value
):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.post(
        record_url(kind),
        {"propertyId": listing.id, **RECORD_BODIES[kind], "typeOfActivity": value},
        format="json",
    )

    # then
    assert_validation_error(response, "typeOfActivity")
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize("land_type", LAND_TYPES)
def test_create_land_accepts_every_land_type(owner_client, owner_record, land_type):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.post(
        record_url(PropertyType.LAND),
        {"propertyId": listing.id, "serviced": True, "landType": land_type},
        format="json",
    )

    # then
    assert response.status_code == 201
    assert response.json()["landType"] == land_type
    assert TypeSpecificRecord.objects.get().land_type == land_type


@pytest.mark.parametrize("kind", ACTIVITY_KINDS)
@pytest.mark.parametrize("activity", ACTIVITY_TYPES)
def test_create_accepts_every_type_of_activity(owner_client, owner_record, kind, activity):
    # given
    listing = ListingFactory(owner=owner_record)

    # when
    response = owner_client.post(
        record_url(kind),
        {"propertyId": listing.id, **RECORD_BODIES[kind], "typeOfActivity": activity},
        format="json",
    )

    # then
    assert response.status_code == 201
    assert response.json()["typeOfActivity"] == activity
    assert TypeSpecificRecord.objects.get().type_of_activity == activity


@pytest.mark.parametrize("kind", KINDS)
def test_create_a_second_record_of_the_same_kind_is_409(owner_client, owner_record, kind):
    # given
    listing = ListingFactory(owner=owner_record)
    existing = TypeSpecificRecordFactory(property=listing, kind=kind)
    before = record_row(existing.id)

    # when
    response = owner_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )

    # then
    assert_problem(response, status=409, code="conflict")
    assert TypeSpecificRecord.objects.count() == 1
    assert record_row(existing.id) == before


@pytest.mark.parametrize("kind", KINDS)
def test_create_a_second_record_of_another_kind_is_409(owner_client, owner_record, kind):
    # given
    listing = ListingFactory(owner=owner_record)
    existing = TypeSpecificRecordFactory(property=listing, kind=OTHER_KIND[kind])
    before = record_row(existing.id)

    # when
    response = owner_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )

    # then
    body = assert_problem(response, status=409, code="conflict")
    assert [error["field"] for error in body["errors"]] == ["propertyId"]
    assert TypeSpecificRecord.objects.count() == 1
    assert record_row(existing.id) == before


@pytest.mark.parametrize("kind", KINDS)
def test_create_for_an_unknown_property_is_400_naming_property_id(owner_client, kind):
    # given no listing with that id

    # when
    response = owner_client.post(
        record_url(kind),
        {"propertyId": "zzzzzzzzzzzzzzzzzzzzzzzzz", **RECORD_BODIES[kind]},
        format="json",
    )

    # then
    assert_validation_error(response, "propertyId")
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize("kind", KINDS)
def test_create_for_a_hidden_listing_of_another_owner_is_400_naming_property_id(
    other_owner_client, owner_record, kind
):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)

    # when
    response = other_owner_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )

    # then
    assert_validation_error(response, "propertyId")
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize("client_name", ["other_owner", "customer"])
@pytest.mark.parametrize("kind", KINDS)
def test_create_for_a_visible_listing_of_someone_else_is_403(
    clients, owner_record, kind, client_name
):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.AVAILABLE)

    # when
    response = clients[client_name].post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert TypeSpecificRecord.objects.count() == 0


@pytest.mark.parametrize("kind", KINDS)
def test_create_by_an_anonymous_user_is_401(anonymous_client, owner_record, kind):
    # given
    listing = ListingFactory(owner=owner_record)

    # given a valid body

    # when
    response = anonymous_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert TypeSpecificRecord.objects.count() == 0


# --- GET /:id ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(
    "status", [PropertyStatus.AVAILABLE, PropertyStatus.SOLD, PropertyStatus.RENTED]
)
def test_get_through_a_visible_listing_is_200_for_anyone(anonymous_client, kind, status):
    # given
    record = TypeSpecificRecordFactory(property=ListingFactory(status=status), kind=kind)

    # when
    response = anonymous_client.get(record_url(kind, record.id))

    # then
    assert response.status_code == 200
    assert response.json() == record_payload(record)
    assert set(response.json()) == {"id", "propertyId"} | RECORD_FIELDS[kind]


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("client_name", ["anonymous", "customer", "other_owner"])
@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
def test_get_through_a_hidden_listing_is_404_for_others(
    clients, owner_record, kind, client_name, status
):
    # given
    record = TypeSpecificRecordFactory(
        property=ListingFactory(owner=owner_record, status=status), kind=kind
    )

    # when
    response = clients[client_name].get(record_url(kind, record.id))

    # then
    assert_problem(response, status=404, code="not_found")


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("client_name", ["owner", "admin"])
def test_get_through_a_hidden_listing_is_200_for_its_owner_and_admins(
    clients, owner_record, kind, client_name
):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)
    record = TypeSpecificRecordFactory(property=listing, kind=kind)

    # when
    response = clients[client_name].get(record_url(kind, record.id))

    # then
    assert response.status_code == 200
    assert response.json() == record_payload(record)


@pytest.mark.parametrize("kind", KINDS)
def test_get_a_record_at_the_path_of_another_kind_is_404(anonymous_client, kind):
    # given
    record = TypeSpecificRecordFactory(property=ListingFactory(), kind=OTHER_KIND[kind])

    # when
    response = anonymous_client.get(record_url(kind, record.id))

    # then
    assert_problem(response, status=404, code="not_found")


@pytest.mark.parametrize("kind", KINDS)
def test_get_an_unknown_record_is_404(anonymous_client, kind):
    # given no record with that id

    # when
    response = anonymous_client.get(record_url(kind, "zzzzzzzzzzzzzzzzzzzzzzzzz"))

    # then
    assert_problem(response, status=404, code="not_found")


# --- PATCH /:id -------------------------------------------------------------------------


# One changed value per kind, each different from the factory's.
PATCHES = {
    PropertyType.HOUSE: {"rooms": 9, "swimmingPool": False},
    PropertyType.APARTMENT: {"balcony": False, "floors": 3},
    PropertyType.LAND: {"landType": "FOREST"},
    PropertyType.OFFICE: {"typeOfActivity": "INDUSTRIAL", "elevators": False},
    PropertyType.COMMERCIAL: {"floors": 4},
    PropertyType.HOTEL: {"rooms": 120},
    PropertyType.DEVELOPMENT: {"numberOfUnits": 60, "typeOfActivity": "HOSPITALITY"},
}


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("client_name", ["owner", "admin"])
def test_patch_by_the_owner_or_an_admin_changes_the_given_fields(
    clients, owner_record, kind, client_name
):
    # given
    record = TypeSpecificRecordFactory(property=ListingFactory(owner=owner_record), kind=kind)

    # when
    response = clients[client_name].patch(record_url(kind, record.id), PATCHES[kind], format="json")

    # then
    assert response.status_code == 200, response.content
    record.refresh_from_db()
    assert response.json() == record_payload(record)
    for name, value in PATCHES[kind].items():
        assert getattr(record, column(name)) == value


def test_patch_ignores_property_id_and_fields_of_other_kinds(owner_client, owner_record):
    # given
    listing = ListingFactory(owner=owner_record)
    record = TypeSpecificRecordFactory(property=listing, kind=PropertyType.HOUSE)
    elsewhere = ListingFactory(owner=owner_record)

    # when
    response = owner_client.patch(
        record_url(PropertyType.HOUSE, record.id),
        {"propertyId": elsewhere.id, "landType": "FOREST", "bedrooms": 5},
        format="json",
    )

    # then
    assert response.status_code == 200
    row = record_row(record.id)
    assert (row["property_id"], row["land_type"], row["bedrooms"]) == (listing.id, None, 5)


@pytest.mark.parametrize(
    ("kind", "field", "value"),
    [
        (PropertyType.HOUSE, "rooms", -1),
        (PropertyType.HOUSE, "bedrooms", None),
        (PropertyType.APARTMENT, "floors", -3),
        (PropertyType.LAND, "landType", "SWAMP"),
        (PropertyType.LAND, "landType", ""),
        (PropertyType.OFFICE, "typeOfActivity", "FARMING"),
        (PropertyType.DEVELOPMENT, "typeOfActivity", ""),
        (PropertyType.COMMERCIAL, "elevators", None),
        (PropertyType.HOTEL, "swimmingPool", "maybe"),
        (PropertyType.DEVELOPMENT, "numberOfUnits", -10),
    ],
)
def test_patch_with_an_invalid_value_is_400_and_changes_nothing(
    owner_client, owner_record, kind, field, value
):
    # given
    record = TypeSpecificRecordFactory(property=ListingFactory(owner=owner_record), kind=kind)
    before = record_row(record.id)

    # when
    response = owner_client.patch(record_url(kind, record.id), {field: value}, format="json")

    # then
    assert_validation_error(response, field)
    assert record_row(record.id) == before


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("client_name", ["other_owner", "customer"])
def test_patch_through_a_visible_listing_of_someone_else_is_403(
    clients, owner_record, kind, client_name
):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.AVAILABLE)
    record = TypeSpecificRecordFactory(property=listing, kind=kind)
    before = record_row(record.id)

    # when
    response = clients[client_name].patch(record_url(kind, record.id), PATCHES[kind], format="json")

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert record_row(record.id) == before


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("client_name", ["other_owner", "customer"])
def test_patch_through_a_hidden_listing_of_someone_else_is_404(
    clients, owner_record, kind, client_name
):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.PENDING)
    record = TypeSpecificRecordFactory(property=listing, kind=kind)
    before = record_row(record.id)

    # when
    response = clients[client_name].patch(record_url(kind, record.id), PATCHES[kind], format="json")

    # then
    assert_problem(response, status=404, code="not_found")
    assert record_row(record.id) == before


@pytest.mark.parametrize("kind", KINDS)
def test_patch_by_an_anonymous_user_is_401(anonymous_client, owner_record, kind):
    # given
    record = TypeSpecificRecordFactory(property=ListingFactory(owner=owner_record), kind=kind)
    before = record_row(record.id)

    # when
    response = anonymous_client.patch(record_url(kind, record.id), PATCHES[kind], format="json")

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert record_row(record.id) == before


@pytest.mark.parametrize("kind", KINDS)
def test_patch_at_the_path_of_another_kind_is_404(owner_client, owner_record, kind):
    # given
    record = TypeSpecificRecordFactory(
        property=ListingFactory(owner=owner_record), kind=OTHER_KIND[kind]
    )
    before = record_row(record.id)

    # when
    response = owner_client.patch(record_url(kind, record.id), PATCHES[kind], format="json")

    # then
    assert_problem(response, status=404, code="not_found")
    assert record_row(record.id) == before


# --- DELETE /:id ------------------------------------------------------------------------


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("client_name", ["owner", "admin"])
def test_delete_by_the_owner_or_an_admin_clears_the_type_of_the_listing(
    clients, owner_record, kind, client_name
):
    # given
    listing = ListingFactory(owner=owner_record)
    record = TypeSpecificRecordFactory(property=listing, kind=kind)

    # when
    response = clients[client_name].delete(record_url(kind, record.id))
    detail = clients[client_name].get(property_url(listing.id))

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert TypeSpecificRecord.objects.count() == 0
    assert detail.json()["type"] is None
    assert {key: detail.json()[key] for key in records_payload(None)} == records_payload(None)
    listing.refresh_from_db()
    assert listing.kind is None
    found = clients[client_name].get(PROPERTIES_URL, {"type": kind}).json()["properties"]
    assert found == []


@pytest.mark.parametrize("kind", KINDS)
def test_delete_then_a_record_of_another_kind_can_be_added(owner_client, owner_record, kind):
    # given
    listing = ListingFactory(owner=owner_record)
    record = TypeSpecificRecordFactory(property=listing, kind=OTHER_KIND[kind])

    # when
    owner_client.delete(record_url(OTHER_KIND[kind], record.id))
    response = owner_client.post(
        record_url(kind), {"propertyId": listing.id, **RECORD_BODIES[kind]}, format="json"
    )

    # then
    assert response.status_code == 201
    assert TypeSpecificRecord.objects.get().kind == kind


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("client_name", ["other_owner", "customer"])
def test_delete_through_a_visible_listing_of_someone_else_is_403(
    clients, owner_record, kind, client_name
):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.SOLD)
    record = TypeSpecificRecordFactory(property=listing, kind=kind)

    # when
    response = clients[client_name].delete(record_url(kind, record.id))

    # then
    assert_problem(response, status=403, code="permission_denied")
    assert TypeSpecificRecord.objects.filter(pk=record.id).exists()


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("client_name", ["other_owner", "customer"])
def test_delete_through_a_hidden_listing_of_someone_else_is_404(
    clients, owner_record, kind, client_name
):
    # given
    listing = ListingFactory(owner=owner_record, status=PropertyStatus.SUSPENDED)
    record = TypeSpecificRecordFactory(property=listing, kind=kind)

    # when
    response = clients[client_name].delete(record_url(kind, record.id))

    # then
    assert_problem(response, status=404, code="not_found")
    assert TypeSpecificRecord.objects.filter(pk=record.id).exists()


@pytest.mark.parametrize("kind", KINDS)
def test_delete_by_an_anonymous_user_is_401(anonymous_client, owner_record, kind):
    # given
    record = TypeSpecificRecordFactory(property=ListingFactory(owner=owner_record), kind=kind)

    # given the furnished listing

    # when
    response = anonymous_client.delete(record_url(kind, record.id))

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert TypeSpecificRecord.objects.filter(pk=record.id).exists()


@pytest.mark.parametrize("kind", KINDS)
def test_delete_at_the_path_of_another_kind_is_404(owner_client, owner_record, kind):
    # given
    record = TypeSpecificRecordFactory(
        property=ListingFactory(owner=owner_record), kind=OTHER_KIND[kind]
    )

    # when
    response = owner_client.delete(record_url(kind, record.id))

    # then
    assert_problem(response, status=404, code="not_found")
    assert TypeSpecificRecord.objects.filter(pk=record.id).exists()
