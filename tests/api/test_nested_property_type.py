"""Every response that carries a listing carries its `type` (D9), nested ones included: a
favorite's, a notification's (list and detail), a visit's, and an owner's listings in their
user detail. Null before step 2, the record's kind after it."""

import pytest

from listings.models import PropertyType
from tests.factories import (
    AppointmentFactory,
    FavoriteFactory,
    NotificationFactory,
    PropertyFactory,
    TypeSpecificRecordFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def house(owner):
    """A listing of the owner with its house record."""
    return TypeSpecificRecordFactory(property__owner=owner.owner, kind=PropertyType.HOUSE).property


@pytest.fixture
def without_record(owner):
    """A listing of the owner still in step 1 (no record, no type)."""
    return PropertyFactory(owner=owner.owner)


def nested_types(listings: list[dict]) -> dict[str, str | None]:
    return {listing["id"]: listing["type"] for listing in listings}


def test_favorites_carry_their_listings_type(customer, customer_api, house, without_record):
    FavoriteFactory(user=customer, property=house)
    FavoriteFactory(user=customer, property=without_record)

    response = customer_api.get("/api/v1/favorites")

    assert response.status_code == 200
    assert nested_types([item["property"] for item in response.json()]) == {
        house.pk: "house",
        without_record.pk: None,
    }


def test_a_new_favorite_carries_its_listings_type(customer_api, house):
    response = customer_api.post("/api/v1/favorites", {"propertyId": house.pk}, format="json")

    assert response.status_code == 201
    assert response.json()["property"]["type"] == "house"


def test_notifications_carry_their_listings_type(customer, customer_api, house, without_record):
    first = NotificationFactory(user=customer, property=house)
    NotificationFactory(user=customer, property=without_record)

    listed = customer_api.get("/api/v1/notifications")
    detail = customer_api.get(f"/api/v1/notifications/{first.pk}")

    assert listed.status_code == 200
    assert nested_types([item["property"] for item in listed.json()["data"]]) == {
        house.pk: "house",
        without_record.pk: None,
    }
    assert detail.status_code == 200
    assert detail.json()["property"]["type"] == "house"


def test_visits_carry_their_listings_type(customer, customer_api, house):
    AppointmentFactory(user=customer, property=house)

    response = customer_api.get("/api/v1/appointments")

    assert response.status_code == 200
    assert [item["property"] for item in response.json()] == [
        {"id": house.pk, "title": house.title, "type": "house"}
    ]


def test_an_owners_listings_carry_their_type(owner, owner_api, house, without_record):
    response = owner_api.get(f"/api/v1/users/{owner.pk}")

    assert response.status_code == 200
    assert nested_types(response.json()["owner"]["properties"]) == {
        house.pk: "house",
        without_record.pk: None,
    }
