"""POST /appointments: who may book, which listing and slot, and the owner's notification (D10)."""

import datetime

import pytest
from django.utils import timezone

from appointments.models import Appointment, AppointmentStatus
from listings.models import PropertyStatus
from notifications.models import Notification
from tests.appointments.support import (
    APPOINTMENTS_URL,
    appointment_url,
    assert_field_problem,
    assert_problem,
    at,
    iso,
    notifications_of,
    resource,
)
from tests.factories import AppointmentFactory, ListingFactory

pytestmark = pytest.mark.django_db


def booking(listing, minutes: int = 0, **fields) -> dict[str, object]:
    """A POST /appointments body for `listing` at at(minutes)."""
    return {"date": iso(at(minutes)), "propertyId": listing.id, **fields}


def assert_nothing_booked() -> None:
    """No appointment and no notification were written."""
    assert Appointment.objects.count() == 0
    assert Notification.objects.count() == 0


def test_customer_books_a_visit_and_the_owner_is_notified_once(
    customer_client, customer, owner, listing
):
    # when
    response = customer_client.post(APPOINTMENTS_URL, booking(listing), format="json")

    # then
    assert response.status_code == 201, response.content
    appointment = Appointment.objects.get()
    assert response.json() == resource(appointment)
    assert (appointment.user_id, appointment.owner_id, appointment.status) == (
        customer.id,
        listing.owner_id,
        AppointmentStatus.PENDING,
    )
    notification = Notification.objects.get()
    assert (notification.user_id, notification.property_id, notification.title) == (
        owner.id,
        listing.id,
        "New visit request",
    )
    assert notification.message == (
        "Carla Customer asked to visit “Sunny flat near the park” on Wednesday, May 14, 2031,"
        " 10:00\u202fAM UTC."
    )
    assert notification.read is False


def test_an_owner_user_books_a_visit_of_another_owners_listing(
    other_owner_client, other_owner, listing
):
    # when
    response = other_owner_client.post(APPOINTMENTS_URL, booking(listing), format="json")

    # then
    assert response.status_code == 201, response.content
    assert response.json()["userId"] == other_owner.id
    assert response.json()["ownerId"] == listing.owner_id


def test_date_in_the_past_is_400_naming_date(customer_client, listing):
    # given
    past = timezone.now() - datetime.timedelta(minutes=1)

    # when
    response = customer_client.post(
        APPOINTMENTS_URL, {"date": iso(past), "propertyId": listing.id}, format="json"
    )

    # then
    assert_problem(
        response,
        status=400,
        code="validation_error",
        errors=[{"field": "date", "message": "A visit must be in the future.", "code": "invalid"}],
    )
    assert_nothing_booked()


@pytest.mark.parametrize("body", [{}, {"date": None}, {"date": "next Tuesday"}])
def test_missing_or_invalid_date_is_400_naming_date(customer_client, listing, body):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, {"propertyId": listing.id, **body}, format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="date")
    assert_nothing_booked()


@pytest.mark.parametrize(
    "date", ["9999-12-31T23:50:00Z", "9999-12-31T16:01:00Z", "9999-12-31T23:59:59.999999Z"]
)
def test_date_whose_end_is_past_the_last_representable_moment_is_400(
    customer_client, listing, date
):
    # when a visit would end after 9999-12-31T23:59:59.999999Z
    response = customer_client.post(
        APPOINTMENTS_URL, {"date": date, "propertyId": listing.id, "duration": 480}, format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="date")
    assert_nothing_booked()


def test_visit_on_the_last_representable_day_is_booked(customer_client, listing):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL,
        {"date": "9999-12-31T23:00:00Z", "propertyId": listing.id, "duration": 30},
        format="json",
    )

    # then
    assert response.status_code == 201, response.content
    assert response.json()["date"] == "9999-12-31T23:00:00Z"


@pytest.mark.parametrize("duration", [15, 480])
def test_duration_bounds_are_accepted(customer_client, listing, duration):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, duration=duration), format="json"
    )

    # then
    assert response.status_code == 201, response.content
    appointment = Appointment.objects.get()
    assert appointment.duration == duration
    assert appointment.ends_at == at(duration)


@pytest.mark.parametrize("duration", [14, 481, 0, -30, "long"])
def test_duration_out_of_range_is_400_naming_duration(customer_client, listing, duration):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, duration=duration), format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="duration")
    assert_nothing_booked()


@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
def test_someone_elses_hidden_listing_is_400_naming_property_id(
    customer_client, owner_record, status
):
    # given a listing the customer cannot see
    hidden = ListingFactory(owner=owner_record, status=status)

    # when
    response = customer_client.post(APPOINTMENTS_URL, booking(hidden), format="json")

    # then it is treated as unknown
    assert_field_problem(response, status=400, code="validation_error", field="propertyId")
    assert response.json()["errors"][0]["code"] == "does_not_exist"
    assert_nothing_booked()


@pytest.mark.parametrize("status", [PropertyStatus.SOLD, PropertyStatus.RENTED])
def test_sold_or_rented_listing_is_409(customer_client, owner_record, status):
    # given
    gone = ListingFactory(owner=owner_record, status=status)

    # when
    response = customer_client.post(APPOINTMENTS_URL, booking(gone), format="json")

    # then
    assert_problem(
        response,
        status=409,
        code="conflict",
        errors=[
            {
                "field": "propertyId",
                "message": "Only AVAILABLE listings can be visited.",
                "code": "conflict",
            }
        ],
    )
    assert_nothing_booked()


@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
def test_hidden_listing_the_caller_can_see_is_409(admin_client, customer, owner_record, status):
    # given a hidden listing, which an admin can see
    hidden = ListingFactory(owner=owner_record, status=status)

    # when the admin books it for a customer
    response = admin_client.post(
        APPOINTMENTS_URL, booking(hidden, userId=customer.id), format="json"
    )

    # then
    assert_field_problem(response, status=409, code="conflict", field="propertyId")
    assert_nothing_booked()


@pytest.mark.parametrize("status", [PropertyStatus.AVAILABLE, PropertyStatus.PENDING])
def test_owner_booking_their_own_listing_is_403(owner_client, owner_record, status):
    # given one of the owner's listings, public or still hidden
    own = ListingFactory(owner=owner_record, status=status)

    # when
    response = owner_client.post(APPOINTMENTS_URL, booking(own), format="json")

    # then
    assert_problem(
        response,
        status=403,
        code="permission_denied",
        errors=[
            {
                "field": "propertyId",
                "message": "You cannot book a visit of your own listing.",
                "code": "permission_denied",
            }
        ],
    )
    assert_nothing_booked()


def test_owner_id_equal_to_the_listings_owner_is_accepted(customer_client, listing):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, ownerId=listing.owner_id), format="json"
    )

    # then
    assert response.status_code == 201, response.content
    assert Appointment.objects.get().owner_id == listing.owner_id


def test_another_owner_id_is_400_naming_owner_id(customer_client, listing, other_owner_record):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, ownerId=other_owner_record.id), format="json"
    )

    # then
    assert_problem(
        response,
        status=400,
        code="validation_error",
        errors=[
            {
                "field": "ownerId",
                "message": "ownerId must be the listing's owner.",
                "code": "invalid",
            }
        ],
    )
    assert_nothing_booked()


def test_unknown_owner_id_is_400_naming_owner_id(customer_client, listing):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, ownerId="zzzzzzzzzzzzzzzzzzzzzzzzz"), format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="ownerId")
    assert_nothing_booked()


@pytest.mark.parametrize("property_id", ["zzzzzzzzzzzzzzzzzzzzzzzzz", "", None])
def test_unknown_or_missing_property_id_is_400_naming_property_id(customer_client, property_id):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, {"date": iso(at(0)), "propertyId": property_id}, format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="propertyId")
    assert_nothing_booked()


def test_customer_naming_themselves_as_user_id_books(customer_client, customer, listing):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, userId=customer.id), format="json"
    )

    # then
    assert response.status_code == 201, response.content
    assert Appointment.objects.get().user_id == customer.id


def test_unknown_user_id_is_400_naming_user_id(customer_client, listing):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, userId="zzzzzzzzzzzzzzzzzzzzzzzzz"), format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="userId")
    assert_nothing_booked()


def test_customer_naming_another_user_id_is_403(customer_client, other_customer, listing):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, userId=other_customer.id), format="json"
    )

    # then
    assert_problem(
        response,
        status=403,
        code="permission_denied",
        errors=[
            {
                "field": "userId",
                "message": "You may book visits only for yourself.",
                "code": "permission_denied",
            }
        ],
    )
    assert_nothing_booked()


def test_admin_books_a_visit_for_a_customer(admin_client, admin, customer, owner, listing):
    # when
    response = admin_client.post(
        APPOINTMENTS_URL, booking(listing, userId=customer.id), format="json"
    )

    # then
    assert response.status_code == 201, response.content
    appointment = Appointment.objects.get()
    assert response.json() == resource(appointment)
    assert appointment.user_id == customer.id
    # the administrator who booked is recorded as involved
    assert appointment.admin_id == admin.admin.id
    assert notifications_of(owner) == [("New visit request", listing.id)]


def test_admin_cannot_book_for_the_listings_own_owner(admin_client, owner, listing):
    # when
    response = admin_client.post(APPOINTMENTS_URL, booking(listing, userId=owner.id), format="json")

    # then
    assert_field_problem(response, status=403, code="permission_denied", field="propertyId")
    assert_nothing_booked()


def test_anonymous_booking_is_401(anonymous_client, listing):
    # when
    response = anonymous_client.post(APPOINTMENTS_URL, booking(listing), format="json")

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"
    assert_nothing_booked()


def test_server_controlled_fields_in_the_body_are_ignored(customer_client, listing):
    # when
    response = customer_client.post(
        APPOINTMENTS_URL,
        booking(
            listing,
            id="aaaaaaaaaaaaaaaaaaaaaaaaa",
            status="CONFIRMED",
            createdAt="2020-01-01T00:00:00Z",
        ),
        format="json",
    )

    # then
    assert response.status_code == 201, response.content
    appointment = Appointment.objects.get()
    assert appointment.id != "aaaaaaaaaaaaaaaaaaaaaaaaa"
    assert appointment.status == AppointmentStatus.PENDING
    assert appointment.created_at.year != 2020


# Overlap: an existing visit from 10:00 to 10:30 (at(0) for 30 minutes) on `listing`;
# (start, duration) of a second request, in minutes from at(0).
OVERLAPPING = [
    (0, 30),  # the same slot
    (15, 30),  # starts inside
    (-15, 30),  # ends inside
    (-60, 120),  # contains it
    (10, 15),  # inside it
    (29, 15),  # its last minute
]
TOUCHING = [
    (30, 30),  # starts exactly when it ends
    (-30, 30),  # ends exactly when it starts
    (-15, 15),  # ends exactly when it starts, shortest visit
]


@pytest.mark.parametrize("status", [AppointmentStatus.PENDING, AppointmentStatus.CONFIRMED])
@pytest.mark.parametrize(("start", "duration"), OVERLAPPING)
def test_overlapping_visit_of_the_same_listing_is_409(
    customer_client, other_customer, listing, status, start, duration
):
    # given
    existing = AppointmentFactory(property=listing, user=other_customer, date=at(0), status=status)

    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, start, duration=duration), format="json"
    )

    # then
    assert_problem(
        response,
        status=409,
        code="conflict",
        errors=[
            {
                "field": "date",
                "message": "The listing already has a visit at that time.",
                "code": "conflict",
            }
        ],
    )
    assert list(Appointment.objects.values_list("id", flat=True)) == [existing.id]
    assert Notification.objects.count() == 0


@pytest.mark.parametrize(("start", "duration"), TOUCHING)
def test_visit_touching_another_at_its_edge_is_allowed(
    customer_client, other_customer, listing, start, duration
):
    # given
    AppointmentFactory(property=listing, user=other_customer, date=at(0))

    # when
    response = customer_client.post(
        APPOINTMENTS_URL, booking(listing, start, duration=duration), format="json"
    )

    # then
    assert response.status_code == 201, response.content
    assert Appointment.objects.count() == 2


def test_completed_visit_still_holds_its_slot(customer_client, other_customer, listing):
    # given
    AppointmentFactory(
        property=listing,
        user=other_customer,
        date=at(0),
        status=AppointmentStatus.COMPLETED,
    )

    # when
    response = customer_client.post(APPOINTMENTS_URL, booking(listing), format="json")

    # then
    assert_field_problem(response, status=409, code="conflict", field="date")
    assert Appointment.objects.count() == 1


def test_cancelled_visit_frees_its_slot(
    customer_client, other_customer_client, other_customer, listing
):
    # given a visit that holds the slot
    first = other_customer_client.post(APPOINTMENTS_URL, booking(listing), format="json")
    assert first.status_code == 201, first.content
    refused = customer_client.post(APPOINTMENTS_URL, booking(listing), format="json")
    assert refused.status_code == 409

    # when its customer cancels it, and the other customer asks again
    cancelled = other_customer_client.delete(appointment_url(first.json()["id"]))
    response = customer_client.post(APPOINTMENTS_URL, booking(listing), format="json")

    # then
    assert cancelled.status_code == 200
    assert response.status_code == 201, response.content
    assert sorted(Appointment.objects.values_list("status", flat=True)) == [
        AppointmentStatus.CANCELLED,
        AppointmentStatus.PENDING,
    ]


def test_visits_of_different_listings_never_conflict(
    customer_client, other_customer, listing, owner_record
):
    # given a visit of a listing, and a second listing of the same owner
    AppointmentFactory(property=listing, user=other_customer, date=at(0))
    second_listing = ListingFactory(owner=owner_record)

    # when the customer books the second listing at the same time
    response = customer_client.post(APPOINTMENTS_URL, booking(second_listing), format="json")

    # then
    assert response.status_code == 201, response.content
    assert Appointment.objects.count() == 2


def test_one_customer_may_hold_two_visits_of_different_listings_at_once(
    customer_client, listing, owner_record
):
    # given
    second_listing = ListingFactory(owner=owner_record)
    first = customer_client.post(APPOINTMENTS_URL, booking(listing), format="json")

    # when
    response = customer_client.post(APPOINTMENTS_URL, booking(second_listing), format="json")

    # then
    assert first.status_code == 201
    assert response.status_code == 201, response.content


def test_refused_bookings_create_no_notification(
    customer_client, owner, other_customer, listing, other_owner_record
):
    # given a taken slot
    AppointmentFactory(property=listing, user=other_customer, date=at(0))
    refused_bodies = [
        booking(listing),  # overlap
        booking(listing, 60, duration=14),
        booking(listing, 60, ownerId=other_owner_record.id),
        booking(listing, 60, userId=other_customer.id),
        {"date": iso(timezone.now() - datetime.timedelta(hours=1)), "propertyId": listing.id},
    ]

    # when
    statuses = [
        customer_client.post(APPOINTMENTS_URL, body, format="json").status_code
        for body in refused_bodies
    ]

    # then
    assert statuses == [409, 400, 400, 403, 400]
    assert Appointment.objects.count() == 1
    assert Notification.objects.count() == 0
    assert notifications_of(owner) == []


def test_booking_and_its_notification_are_one_transaction(customer_client, listing, monkeypatch):
    # given a notification that cannot be written
    def refuse(*args, **kwargs):
        raise RuntimeError("the notifications table is unavailable")

    monkeypatch.setattr(Notification.objects, "create", refuse)

    # when
    response = customer_client.post(APPOINTMENTS_URL, booking(listing), format="json")

    # then the visit is not kept without its notification
    assert_problem(response, status=500, code="server_error")
    assert_nothing_booked()
