"""Shapes, payload builders and assertions shared by the Properties API tests."""

import datetime

from django.utils import timezone

from listings.models import Property, PropertyType, TypeSpecificRecord
from tests.factories import ListingFactory

PROPERTIES_URL = "/api/v1/properties"
PROBLEM_CONTENT_TYPE = "application/problem+json"

LIST_KEYS = {
    "properties",
    "totalItems",
    "totalItemsExact",
    "totalPages",
    "itemsPerPage",
    "currentPage",
}
COMMON_KEYS = {
    "id",
    "title",
    "description",
    "price",
    "latitude",
    "longitude",
    "transactionType",
    "municipality",
    "address",
    "area",
    "status",
    "ownerId",
    "categoryId",
    "createdAt",
    "updatedAt",
}
WRITE_RESPONSE_KEYS = COMMON_KEYS | {"type"}
RECORD_RESPONSE_KEYS = {
    "house",
    "apartment",
    "land",
    "office",
    "commercial",
    "hotels",
    "development",
}
LIST_ITEM_KEYS = WRITE_RESPONSE_KEYS | {"images"} | RECORD_RESPONSE_KEYS
DETAIL_KEYS = (
    WRITE_RESPONSE_KEYS
    | {"propertyCategory", "owner", "images", "videos", "priceHistory"}
    | RECORD_RESPONSE_KEYS
)

# Per kind: the resource path, the key of the record in a property response, and the
# camelCase fields of the record beyond id and propertyId.
KIND_PATHS = {
    PropertyType.HOUSE: "houses",
    PropertyType.APARTMENT: "apartments",
    PropertyType.LAND: "lands",
    PropertyType.OFFICE: "offices",
    PropertyType.COMMERCIAL: "commercials",
    PropertyType.HOTEL: "hotels",
    PropertyType.DEVELOPMENT: "developments",
}
KIND_RESPONSE_KEYS = {
    PropertyType.HOUSE: "house",
    PropertyType.APARTMENT: "apartment",
    PropertyType.LAND: "land",
    PropertyType.OFFICE: "office",
    PropertyType.COMMERCIAL: "commercial",
    PropertyType.HOTEL: "hotels",
    PropertyType.DEVELOPMENT: "development",
}
# Valid request bodies (without propertyId), in the API's camelCase.
RECORD_BODIES: dict[str, dict[str, object]] = {
    PropertyType.HOUSE: {
        "rooms": 6,
        "bedrooms": 4,
        "bathrooms": 2,
        "swimmingPool": True,
        "parkingSpace": False,
    },
    PropertyType.APARTMENT: {
        "rooms": 4,
        "bedrooms": 2,
        "bathrooms": 1,
        "swimmingPool": False,
        "parkingSpace": True,
        "floors": 1,
        "balcony": True,
        "elevator": False,
    },
    PropertyType.LAND: {"serviced": False, "landType": "AGRICULTURAL"},
    PropertyType.OFFICE: {
        "floors": 3,
        "parkingSpace": True,
        "elevators": True,
        "typeOfActivity": "OFFICE",
    },
    PropertyType.COMMERCIAL: {
        "floors": 2,
        "elevators": False,
        "parkingSpace": False,
        "typeOfActivity": "RETAIL",
    },
    PropertyType.HOTEL: {"rooms": 80, "floors": 7, "parkingSpace": True, "swimmingPool": False},
    PropertyType.DEVELOPMENT: {"numberOfUnits": 36, "typeOfActivity": "MIXED_USE"},
}
RECORD_FIELDS = {kind: set(body) for kind, body in RECORD_BODIES.items()}
COUNT_FIELDS = {"rooms", "bedrooms", "bathrooms", "floors", "numberOfUnits"}
SNAKE_NAMES = {
    "swimmingPool": "swimming_pool",
    "parkingSpace": "parking_space",
    "landType": "land_type",
    "typeOfActivity": "type_of_activity",
    "numberOfUnits": "number_of_units",
}
LAND_TYPES = ["BUILDABLE", "AGRICULTURAL", "FOREST", "INDUSTRIAL", "RECREATIONAL", "OTHER"]
ACTIVITY_TYPES = [
    "RESIDENTIAL",
    "COMMERCIAL",
    "RETAIL",
    "OFFICE",
    "INDUSTRIAL",
    "HOSPITALITY",
    "MIXED_USE",
    "OTHER",
]


def property_url(listing_id: str) -> str:
    return f"{PROPERTIES_URL}/{listing_id}"


def record_url(kind: str, record_id: str | None = None) -> str:
    base = f"/api/v1/{KIND_PATHS[kind]}"
    return base if record_id is None else f"{base}/{record_id}"


def iso(moment: datetime.datetime) -> str:
    """A timestamp as the API writes it: ISO 8601 in UTC with Z."""
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def common_fields(listing: Property) -> dict[str, object]:
    """The common fields of a listing as the API shows them, read fresh from the database."""
    listing.refresh_from_db()
    return {
        "id": listing.id,
        "title": listing.title,
        "description": listing.description,
        "price": float(listing.price),
        "latitude": listing.latitude,
        "longitude": listing.longitude,
        "transactionType": listing.transaction_type,
        "municipality": listing.municipality,
        "address": listing.address,
        "area": float(listing.area),
        "status": listing.status,
        "ownerId": listing.owner_id,
        "categoryId": listing.category_id,
        "createdAt": iso(listing.created_at),
        "updatedAt": iso(listing.updated_at),
    }


def record_payload(record: TypeSpecificRecord) -> dict[str, object]:
    """A type-specific record as the API shows it: id, propertyId and the kind's fields."""
    payload: dict[str, object] = {"id": record.id, "propertyId": record.property_id}
    for name in RECORD_FIELDS[record.kind]:
        payload[name] = getattr(record, SNAKE_NAMES.get(name, name))
    return payload


def records_payload(record: TypeSpecificRecord | None) -> dict[str, object]:
    """The seven record keys of a property response: its own record, the others null."""
    payload: dict[str, object] = dict.fromkeys(KIND_RESPONSE_KEYS.values())
    if record is not None:
        payload[KIND_RESPONSE_KEYS[record.kind]] = record_payload(record)
    return payload


def listing_row(listing_id: str) -> dict[str, object]:
    """Every column of a listing, to show that a refused request changed nothing."""
    return Property.objects.values().get(pk=listing_id)


def is_json_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def assert_problem(response, *, status: int, code: str) -> dict:
    """The response is an RFC 9457 problem document with this status and code."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == "about:blank"
    return body


def assert_validation_error(response, *fields: str) -> dict:
    """A 400 validation_error whose field errors name exactly these fields."""
    body = assert_problem(response, status=400, code="validation_error")
    assert {error["field"] for error in body["errors"]} == set(fields)
    return body


def ids(response) -> list[str]:
    """The ids of the listings of a GET /properties page, in order."""
    return [item["id"] for item in response.json()["properties"]]


def make_listings(count: int, **fields) -> list[Property]:
    """`count` listings created one second apart, the first the oldest; returned newest first."""
    start = timezone.now() - datetime.timedelta(days=1)
    listings = ListingFactory.create_batch(count, **fields)
    for offset, listing in enumerate(listings):
        Property.objects.filter(pk=listing.pk).update(
            created_at=start + datetime.timedelta(seconds=offset)
        )
    return list(reversed(listings))
