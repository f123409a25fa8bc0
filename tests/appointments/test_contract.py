"""The shapes of the appointments endpoints: exactly the documented keys (interface, D3, D4)."""

import pytest

from appointments.models import Appointment, AppointmentStatus
from tests.appointments.support import (
    APPOINTMENTS_URL,
    LIST_ITEM_KEYS,
    RESOURCE_KEYS,
    appointment_url,
    at,
    ids,
    iso,
    list_item,
    resource,
)
from tests.factories import AppointmentFactory, ListingFactory

pytestmark = pytest.mark.django_db


def test_list_is_a_json_array_of_items_with_exactly_the_documented_keys(
    customer_client, customer, listing
):
    # given two visits of the customer, one with notes
    first = AppointmentFactory(property=listing, user=customer, date=at(0), notes="Gate B")
    second = AppointmentFactory(property=listing, user=customer, date=at(60), notes=None)

    # when
    response = customer_client.get(APPOINTMENTS_URL)

    # then
    assert response.status_code == 200
    body = response.json()
    assert isinstance(body, list)
    assert [set(item) for item in body] == [LIST_ITEM_KEYS, LIST_ITEM_KEYS]
    assert [set(item["property"]) for item in body] == [{"id", "title", "type"}] * 2
    assert [set(item["user"]) for item in body] == [{"id", "name"}] * 2
    assert [set(item["owner"]) for item in body] == [{"id", "userId"}] * 2
    assert body == [list_item(first), list_item(second)]
    assert body[0] == {
        "id": first.id,
        "date": "2031-05-14T10:00:00Z",
        "duration": 30,
        "status": "PENDING",
        "notes": "Gate B",
        "property": {"id": listing.id, "title": "Sunny flat near the park", "type": None},
        "user": {"id": customer.id, "name": "Carla Customer"},
        "owner": {"id": listing.owner_id, "userId": listing.owner.user_id},
    }


def test_create_answers_201_with_the_whole_resource(customer_client, customer, listing):
    # given
    body = {
        "date": "2031-05-14T12:00:00+02:00",
        "duration": 45,
        "propertyId": listing.id,
        "notes": "I will come with my partner.",
    }

    # when
    response = customer_client.post(APPOINTMENTS_URL, body, format="json")

    # then the visit is stored, in UTC, with the owner derived from the listing
    assert response.status_code == 201, response.content
    created = response.json()
    assert set(created) == RESOURCE_KEYS
    appointment = Appointment.objects.get()
    assert created == resource(appointment)
    assert created["date"] == "2031-05-14T10:00:00Z"
    assert created["duration"] == 45
    assert created["status"] == "PENDING"
    assert created["notes"] == "I will come with my partner."
    assert created["propertyId"] == listing.id
    assert created["userId"] == customer.id
    assert created["ownerId"] == listing.owner_id
    assert created["adminId"] is None
    assert created["createdAt"].endswith("Z")
    assert created["updatedAt"].endswith("Z")
    assert appointment.ends_at == at(45)


def test_create_without_duration_books_the_default_30_minutes(customer_client, listing):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, {"date": iso(at(0)), "propertyId": listing.id}, format="json"
    )

    # then
    assert response.status_code == 201, response.content
    assert response.json()["duration"] == 30
    appointment = Appointment.objects.get()
    assert (appointment.duration, appointment.ends_at) == (30, at(30))
    assert appointment.notes is None


def test_detail_answers_the_whole_resource(owner_client, customer, listing):
    # given
    appointment = AppointmentFactory(property=listing, user=customer, date=at(0))

    # when
    response = owner_client.get(appointment_url(appointment.id))

    # then
    assert response.status_code == 200
    assert set(response.json()) == RESOURCE_KEYS
    assert response.json() == resource(appointment)


def test_patch_answers_200_with_the_whole_updated_resource(owner_client, customer, listing):
    # given
    appointment = AppointmentFactory(property=listing, user=customer, date=at(0))

    # when
    response = owner_client.patch(
        appointment_url(appointment.id), {"status": "CONFIRMED"}, format="json"
    )

    # then
    assert response.status_code == 200, response.content
    assert set(response.json()) == RESOURCE_KEYS
    assert response.json() == resource(appointment)
    assert response.json()["status"] == "CONFIRMED"


def test_delete_cancels_keeps_the_record_and_answers_200_with_it(
    customer_client, customer, listing
):
    # given
    appointment = AppointmentFactory(property=listing, user=customer, date=at(0))

    # when
    response = customer_client.delete(appointment_url(appointment.id))

    # then
    assert response.status_code == 200, response.content
    assert set(response.json()) == RESOURCE_KEYS
    assert response.json() == resource(appointment)
    assert response.json()["status"] == "CANCELLED"
    assert Appointment.objects.get(pk=appointment.id).status == AppointmentStatus.CANCELLED


def test_paths_answer_with_and_without_a_trailing_slash(customer_client, customer):
    # given
    appointment = AppointmentFactory(user=customer, property=ListingFactory(), date=at(0))

    # when
    list_response = customer_client.get(f"{APPOINTMENTS_URL}/")
    detail_response = customer_client.get(f"{appointment_url(appointment.id)}/")

    # then
    assert list_response.status_code == 200
    assert ids(list_response) == [appointment.id]
    assert detail_response.status_code == 200
    assert detail_response.json() == resource(appointment)
