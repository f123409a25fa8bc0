"""Requests racing on one listing or one visit: one consistent outcome, never 500 (D5, D10)."""

import datetime
from collections.abc import Callable
from functools import partial

import pytest
from rest_framework.response import Response

from appointments import services
from appointments.models import Appointment, AppointmentStatus
from notifications.models import Notification
from tests.appointments.support import (
    APPOINTMENTS_URL,
    appointment_url,
    assert_problem,
    at,
    iso,
)
from tests.concurrency import run_at_once
from tests.factories import AppointmentFactory, ListingFactory, UserFactory
from tests.support import signed_in_client

RACERS = 20
OVERLAP_ERROR = {
    "field": "date",
    "message": "The listing already has a visit at that time.",
    "code": "conflict",
}


def bookings(bodies: list[dict]) -> list[Callable[[], Response]]:
    """One POST /appointments per body, each from a distinct customer's own client."""
    clients = [signed_in_client(UserFactory(password=None)) for _ in bodies]
    return [
        partial(client.post, APPOINTMENTS_URL, body, format="json")
        for client, body in zip(clients, bodies, strict=True)
    ]


def overlapping_pairs(listing_id: str) -> list[tuple[str, str]]:
    """Pairs of non-cancelled visits of the listing that overlap in time."""
    visits = list(
        Appointment.objects.filter(property_id=listing_id)
        .exclude(status=AppointmentStatus.CANCELLED)
        .values_list("id", "date", "ends_at")
    )
    return [
        (first_id, second_id)
        for index, (first_id, first_start, first_end) in enumerate(visits)
        for second_id, second_start, second_end in visits[index + 1 :]
        if first_start < second_end and second_start < first_end
    ]


def assert_one_winner(responses, listing) -> None:
    """Exactly one 201, the rest 409 conflicts on date, one visit and one notification."""
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [201] + [409] * (RACERS - 1), [response.content for response in responses]
    for response in responses:
        if response.status_code == 409:
            assert_problem(response, status=409, code="conflict", errors=[OVERLAP_ERROR])
    assert Appointment.objects.filter(property=listing).count() == 1
    assert overlapping_pairs(listing.id) == []
    assert Notification.objects.filter(title="New visit request").count() == 1


@pytest.fixture
def race_ready(throttle_rates):
    """Rates well beyond the racers' number."""
    throttle_rates(anonymous="1000/min", signed_in="1000/min")


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_overlapping_bookings_make_one_visit(race_ready, owner_record):
    # given an AVAILABLE listing, and twenty slots that all overlap at(15)
    listing = ListingFactory(owner=owner_record)
    bodies = [
        {"date": iso(at(number)), "duration": 30, "propertyId": listing.id}
        for number in range(RACERS)
    ]

    # when twenty customers book at the same moment
    responses = run_at_once(bookings(bodies))

    # then
    assert_one_winner(responses, listing)


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_the_database_constraint_decides_when_the_service_does_not_check(
    race_ready, owner_record, monkeypatch
):
    # given a service whose own overlap check sees nothing, so that every racer reaches
    # the insert and only the exclusion constraint stands between them
    monkeypatch.setattr(services, "_check_no_overlap", lambda **kwargs: None)
    listing = ListingFactory(owner=owner_record)
    bodies = [{"date": iso(at(0)), "duration": 30, "propertyId": listing.id} for _ in range(RACERS)]

    # when
    responses = run_at_once(bookings(bodies))

    # then
    assert_one_winner(responses, listing)


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_bookings_of_separate_slots_all_succeed(race_ready, owner_record):
    # given twenty slots that do not overlap
    listing = ListingFactory(owner=owner_record)
    bodies = [
        {"date": iso(at(number * 30)), "duration": 30, "propertyId": listing.id}
        for number in range(RACERS)
    ]

    # when
    responses = run_at_once(bookings(bodies))

    # then
    assert [response.status_code for response in responses] == [201] * RACERS
    assert Appointment.objects.filter(property=listing).count() == RACERS
    assert overlapping_pairs(listing.id) == []
    assert at(0) + datetime.timedelta(minutes=30 * RACERS) == max(
        Appointment.objects.values_list("ends_at", flat=True)
    )


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("overlap_check", ["service", "database only"])
def test_concurrent_reschedules_onto_one_slot_leave_one(
    race_ready, owner_record, monkeypatch, overlap_check
):
    # given two visits of one listing, by two customers
    if overlap_check == "database only":
        monkeypatch.setattr(services, "_check_no_overlap", lambda **kwargs: None)
    listing = ListingFactory(owner=owner_record)
    customers = UserFactory.create_batch(2, password=None)
    visits = [
        AppointmentFactory(property=listing, user=customer, date=at(60 * number))
        for number, customer in enumerate(customers)
    ]

    # when both customers move their visit to the same new slot at the same moment
    requests = [
        partial(
            signed_in_client(customer).patch,
            appointment_url(visit.id),
            {"date": iso(at(240))},
            format="json",
        )
        for customer, visit in zip(customers, visits, strict=True)
    ]
    responses = run_at_once(requests)

    # then one moves, the other is refused and stays where it was
    assert sorted(response.status_code for response in responses) == [200, 409]
    refused = next(response for response in responses if response.status_code == 409)
    assert_problem(refused, status=409, code="conflict", errors=[OVERLAP_ERROR])
    assert sorted(Appointment.objects.values_list("date", flat=True)) == sorted(
        [at(240), at(0) if responses[1].status_code == 200 else at(60)]
    )
    assert overlapping_pairs(listing.id) == []
    assert Notification.objects.filter(title="Visit rescheduled").count() == 1


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_confirmations_move_once_and_notify_once(race_ready, owner_record, customer):
    # given a PENDING visit, and its owner signed in on many clients
    listing = ListingFactory(owner=owner_record)
    visit = AppointmentFactory(property=listing, user=customer, date=at(0))
    requests = [
        partial(
            signed_in_client(owner_record.user).patch,
            appointment_url(visit.id),
            {"status": "CONFIRMED"},
            format="json",
        )
        for _ in range(10)
    ]

    # when every client confirms at the same moment
    responses = run_at_once(requests)

    # then one confirms, the others find it confirmed (a no-op), and the customer hears once
    assert [response.status_code for response in responses] == [200] * 10
    assert {response.json()["status"] for response in responses} == {"CONFIRMED"}
    visit.refresh_from_db()
    assert visit.status == AppointmentStatus.CONFIRMED
    assert list(Notification.objects.values_list("user_id", "title")) == [
        (customer.id, "Visit confirmed")
    ]


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_confirm_and_cancel_end_cancelled(
    race_ready, owner_record, customer, customer_client, owner_client
):
    # given a PENDING visit
    listing = ListingFactory(owner=owner_record)
    visit = AppointmentFactory(property=listing, user=customer, date=at(0))
    url = appointment_url(visit.id)

    # when the owner confirms while the customer cancels
    confirm, cancel = run_at_once(
        [
            partial(owner_client.patch, url, {"status": "CONFIRMED"}, format="json"),
            partial(customer_client.delete, url),
        ]
    )

    # then whichever comes first, the visit ends CANCELLED: a confirmation that came second
    # is refused (CANCELLED is final), a cancellation that came second cancels it
    assert cancel.status_code == 200, cancel.content
    assert confirm.status_code in (200, 409), confirm.content
    visit.refresh_from_db()
    assert visit.status == AppointmentStatus.CANCELLED
    expected_titles = {"Visit cancelled"} | (
        {"Visit confirmed"} if confirm.status_code == 200 else set()
    )
    assert set(Notification.objects.values_list("title", flat=True)) == expected_titles
