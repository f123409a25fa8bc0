"""PATCH and DELETE /appointments/:id: the appointment state machine of D10, per row and role."""

import datetime

import pytest
from django.utils import timezone

from appointments.models import Appointment, AppointmentStatus
from notifications.models import Notification
from tests.appointments.support import (
    APPOINTMENTS_URL,
    appointment_row,
    appointment_url,
    assert_field_problem,
    at,
    iso,
    notifications_of,
    resource,
)
from tests.factories import AppointmentFactory

pytestmark = pytest.mark.django_db

PENDING = AppointmentStatus.PENDING
CONFIRMED = AppointmentStatus.CONFIRMED
CANCELLED = AppointmentStatus.CANCELLED
COMPLETED = AppointmentStatus.COMPLETED

# (from, to, role): every move of the D10 table for each role it names; admins make them all.
ALLOWED_MOVES = [
    (PENDING, CONFIRMED, "owner"),
    (PENDING, CONFIRMED, "admin"),
    (PENDING, CANCELLED, "customer"),
    (PENDING, CANCELLED, "owner"),
    (PENDING, CANCELLED, "admin"),
    (CONFIRMED, CANCELLED, "customer"),
    (CONFIRMED, CANCELLED, "owner"),
    (CONFIRMED, CANCELLED, "admin"),
    (CONFIRMED, COMPLETED, "owner"),
    (CONFIRMED, COMPLETED, "admin"),
]
# (from, to, role): a listed move that the role may not make.
ROLE_FORBIDDEN_MOVES = [
    (PENDING, CONFIRMED, "customer"),
    (CONFIRMED, COMPLETED, "customer"),
]
# (from, to, allowed next statuses as the detail names them): moves the table does not list.
UNLISTED_MOVES = [
    (PENDING, COMPLETED, "CONFIRMED, CANCELLED"),
    (CONFIRMED, PENDING, "CANCELLED, COMPLETED"),
    (CANCELLED, PENDING, "none (it is final)"),
    (CANCELLED, CONFIRMED, "none (it is final)"),
    (CANCELLED, COMPLETED, "none (it is final)"),
    (COMPLETED, PENDING, "none (it is final)"),
    (COMPLETED, CONFIRMED, "none (it is final)"),
    (COMPLETED, CANCELLED, "none (it is final)"),
]
PARTIES = ["customer", "owner", "admin"]

# Who is told about each move made by each role (D12: the other party; an admin is no
# party, so both hear of the move).
TITLES = {CONFIRMED: "Visit confirmed", CANCELLED: "Visit cancelled", COMPLETED: "Visit completed"}
TOLD = {"customer": ["owner"], "owner": ["customer"], "admin": ["customer", "owner"]}


@pytest.fixture
def make_visit(listing, customer):
    """A visit of `listing` by `customer` at at(0), in a given status, made a while ago."""

    def make(status: str = PENDING, **fields) -> Appointment:
        appointment = AppointmentFactory(
            property=listing, user=customer, date=at(0), status=status, **fields
        )
        # an old updated_at, so that a change of it cannot go unseen
        earlier = timezone.now() - datetime.timedelta(days=1)
        Appointment.objects.filter(pk=appointment.pk).update(updated_at=earlier)
        appointment.refresh_from_db()
        return appointment

    return make


def admin_record_id(users, role: str) -> str | None:
    """An administrator who changes a visit is recorded as involved in it; others are not."""
    return users["admin"].admin.id if role == "admin" else None


@pytest.mark.parametrize(("current", "target", "role"), ALLOWED_MOVES)
def test_allowed_move(clients, users, make_visit, listing, current, target, role):
    # given
    appointment = make_visit(current)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].patch(
        appointment_url(appointment.id), {"status": target}, format="json"
    )

    # then the status moved, and nothing else but updatedAt and, for an admin, adminId
    assert response.status_code == 200, response.content
    after = appointment_row(appointment.id)
    assert after["status"] == target
    assert after["admin_id"] == admin_record_id(users, role)
    assert response.json() == resource(Appointment.objects.get(pk=appointment.id))
    assert after["updated_at"] > before["updated_at"]
    unchanged = {"status": current, "updated_at": before["updated_at"], "admin_id": None}
    assert {**after, **unchanged} == before
    # and the other party is told
    told = {name: notifications_of(users[name]) for name in ("customer", "owner", "admin")}
    assert told == {
        name: ([(TITLES[target], listing.id)] if name in TOLD[role] else [])
        for name in ("customer", "owner", "admin")
    }


@pytest.mark.parametrize(("current", "target", "role"), ROLE_FORBIDDEN_MOVES)
def test_move_the_role_may_not_make_is_403(clients, make_visit, current, target, role):
    # given
    appointment = make_visit(current)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].patch(
        appointment_url(appointment.id), {"status": target}, format="json"
    )

    # then
    assert_field_problem(response, status=403, code="permission_denied", field="status")
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("role", PARTIES)
@pytest.mark.parametrize(("current", "target", "allowed"), UNLISTED_MOVES)
def test_unlisted_move_is_409_naming_the_allowed_next_statuses(
    clients, make_visit, current, target, allowed, role
):
    # given
    appointment = make_visit(current)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].patch(
        appointment_url(appointment.id), {"status": target}, format="json"
    )

    # then
    body = assert_field_problem(response, status=409, code="invalid_transition", field="status")
    assert body["detail"] == (
        f"An appointment cannot move from {current} to {target}. Allowed next statuses: {allowed}."
    )
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("role", PARTIES)
@pytest.mark.parametrize("status", AppointmentStatus.values)
def test_move_to_the_current_status_is_a_200_no_op(clients, make_visit, status, role):
    # given
    appointment = make_visit(status)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].patch(
        appointment_url(appointment.id), {"status": status}, format="json"
    )

    # then
    assert response.status_code == 200, response.content
    assert response.json() == resource(appointment)
    assert response.json()["updatedAt"] == iso(before["updated_at"])
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


def test_unknown_status_is_400_naming_status(owner_client, make_visit):
    # given
    appointment = make_visit(PENDING)
    before = appointment_row(appointment.id)

    # when
    response = owner_client.patch(
        appointment_url(appointment.id), {"status": "ACCEPTED"}, format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="status")
    assert appointment_row(appointment.id) == before


# Rescheduling: PATCH with date and/or duration.
NEW_DATE = at(24 * 60)


@pytest.mark.parametrize("role", PARTIES)
@pytest.mark.parametrize("current", [PENDING, CONFIRMED])
@pytest.mark.parametrize(
    ("change", "date", "duration"),
    [
        ({"date": iso(NEW_DATE)}, NEW_DATE, 30),
        ({"duration": 90}, at(0), 90),
        ({"date": iso(NEW_DATE), "duration": 45}, NEW_DATE, 45),
    ],
    ids=["date", "duration", "date-and-duration"],
)
def test_reschedule_goes_back_to_pending_and_tells_the_other_party(
    clients, users, make_visit, listing, current, role, change, date, duration
):
    # given
    appointment = make_visit(current)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].patch(appointment_url(appointment.id), change, format="json")

    # then
    assert response.status_code == 200, response.content
    assert response.json() == resource(appointment)
    after = appointment_row(appointment.id)
    assert (after["status"], after["date"], after["duration"], after["ends_at"]) == (
        PENDING,
        date,
        duration,
        date + datetime.timedelta(minutes=duration),
    )
    assert after["updated_at"] > before["updated_at"]
    told = {name: notifications_of(users[name]) for name in ("customer", "owner", "admin")}
    assert told == {
        name: ([("Visit rescheduled", listing.id)] if name in TOLD[role] else [])
        for name in ("customer", "owner", "admin")
    }


@pytest.mark.parametrize("role", PARTIES)
@pytest.mark.parametrize("current", [CANCELLED, COMPLETED])
def test_reschedule_of_a_final_visit_is_409(clients, make_visit, current, role):
    # given
    appointment = make_visit(current)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].patch(
        appointment_url(appointment.id), {"date": iso(NEW_DATE)}, format="json"
    )

    # then
    body = assert_field_problem(response, status=409, code="invalid_transition", field="date")
    assert body["detail"] == f"A {current} visit cannot be rescheduled."
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("role", ["customer", "owner"])
def test_reschedule_to_the_same_time_is_a_no_op(clients, make_visit, role):
    # given
    appointment = make_visit(CONFIRMED)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].patch(
        appointment_url(appointment.id), {"date": iso(at(0)), "duration": 30}, format="json"
    )

    # then the visit stays CONFIRMED, untouched
    assert response.status_code == 200, response.content
    assert response.json()["status"] == CONFIRMED
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


def test_reschedule_into_the_past_is_400_naming_date(customer_client, make_visit):
    # given
    appointment = make_visit(PENDING)
    before = appointment_row(appointment.id)
    past = timezone.now() - datetime.timedelta(hours=1)

    # when
    response = customer_client.patch(
        appointment_url(appointment.id), {"date": iso(past)}, format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="date")
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


def test_reschedule_past_the_last_representable_moment_is_400(customer_client, make_visit):
    # given
    appointment = make_visit(PENDING)
    before = appointment_row(appointment.id)

    # when
    response = customer_client.patch(
        appointment_url(appointment.id), {"date": "9999-12-31T23:50:00Z"}, format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="date")
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("duration", [14, 481])
def test_reschedule_to_a_duration_out_of_range_is_400(customer_client, make_visit, duration):
    # given
    appointment = make_visit(PENDING)
    before = appointment_row(appointment.id)

    # when
    response = customer_client.patch(
        appointment_url(appointment.id), {"duration": duration}, format="json"
    )

    # then
    assert_field_problem(response, status=400, code="validation_error", field="duration")
    assert appointment_row(appointment.id) == before


def test_reschedule_onto_another_visit_is_409(customer_client, make_visit, listing, other_customer):
    # given
    appointment = make_visit(PENDING)
    AppointmentFactory(property=listing, user=other_customer, date=NEW_DATE)
    before = appointment_row(appointment.id)

    # when
    response = customer_client.patch(
        appointment_url(appointment.id),
        {"date": iso(NEW_DATE - datetime.timedelta(minutes=15))},
        format="json",
    )

    # then
    assert_field_problem(response, status=409, code="conflict", field="date")
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


def test_reschedule_overlapping_only_its_own_old_slot_is_allowed(customer_client, make_visit):
    # given
    appointment = make_visit(PENDING)

    # when the visit moves by ten minutes
    response = customer_client.patch(
        appointment_url(appointment.id), {"date": iso(at(10))}, format="json"
    )

    # then
    assert response.status_code == 200, response.content
    assert appointment_row(appointment.id)["date"] == at(10)


def test_owner_reschedules_and_confirms_in_one_call(owner_client, make_visit, customer, listing):
    # given
    appointment = make_visit(PENDING)

    # when
    response = owner_client.patch(
        appointment_url(appointment.id),
        {"date": iso(NEW_DATE), "status": "CONFIRMED"},
        format="json",
    )

    # then the visit is confirmed at its new time
    assert response.status_code == 200, response.content
    assert response.json() == resource(appointment)
    after = appointment_row(appointment.id)
    assert (after["status"], after["date"]) == (CONFIRMED, NEW_DATE)
    assert notifications_of(customer) == [
        ("Visit rescheduled", listing.id),
        ("Visit confirmed", listing.id),
    ]


@pytest.mark.parametrize("current", [PENDING, CONFIRMED])
def test_customer_rescheduling_and_confirming_is_403_and_changes_nothing(
    customer_client, make_visit, current
):
    # given
    appointment = make_visit(current, notes="Ring twice")
    before = appointment_row(appointment.id)

    # when
    response = customer_client.patch(
        appointment_url(appointment.id),
        {"date": iso(NEW_DATE), "status": "CONFIRMED", "notes": "New notes"},
        format="json",
    )

    # then all or nothing: not the date, not the notes, no notification
    assert_field_problem(response, status=403, code="permission_denied", field="status")
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("role", PARTIES)
def test_notes_change_alone_keeps_the_status(clients, make_visit, role):
    # given
    appointment = make_visit(CONFIRMED)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].patch(
        appointment_url(appointment.id), {"notes": "Bring the keys"}, format="json"
    )

    # then
    assert response.status_code == 200, response.content
    assert response.json() == resource(appointment)
    after = appointment_row(appointment.id)
    assert (after["notes"], after["status"]) == ("Bring the keys", CONFIRMED)
    assert {**after, "notes": before["notes"], "updated_at": before["updated_at"]} == before
    assert Notification.objects.count() == 0


# DELETE /appointments/:id cancels (D4).


@pytest.mark.parametrize("role", PARTIES)
@pytest.mark.parametrize("current", [PENDING, CONFIRMED])
def test_delete_cancels_and_keeps_the_record(clients, users, make_visit, listing, current, role):
    # given
    appointment = make_visit(current)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].delete(appointment_url(appointment.id))

    # then
    assert response.status_code == 200, response.content
    after = appointment_row(appointment.id)
    assert after["status"] == CANCELLED
    assert after["admin_id"] == admin_record_id(users, role)
    assert response.json() == resource(Appointment.objects.get(pk=appointment.id))
    unchanged = {"status": current, "updated_at": before["updated_at"], "admin_id": None}
    assert {**after, **unchanged} == before
    told = {name: notifications_of(users[name]) for name in ("customer", "owner", "admin")}
    assert told == {
        name: ([("Visit cancelled", listing.id)] if name in TOLD[role] else [])
        for name in ("customer", "owner", "admin")
    }


@pytest.mark.parametrize("role", PARTIES)
def test_delete_of_a_completed_visit_is_409(clients, make_visit, role):
    # given
    appointment = make_visit(COMPLETED)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].delete(appointment_url(appointment.id))

    # then
    body = assert_field_problem(response, status=409, code="invalid_transition", field="status")
    assert body["detail"] == (
        "An appointment cannot move from COMPLETED to CANCELLED. "
        "Allowed next statuses: none (it is final)."
    )
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("role", PARTIES)
def test_delete_of_a_cancelled_visit_is_a_200_no_op(clients, make_visit, role):
    # given
    appointment = make_visit(CANCELLED)
    before = appointment_row(appointment.id)

    # when
    response = clients[role].delete(appointment_url(appointment.id))

    # then
    assert response.status_code == 200, response.content
    assert response.json() == resource(appointment)
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


def test_a_full_visit_lifecycle(customer_client, owner_client, customer, owner, listing):
    # given a booking by the customer
    created = customer_client.post(
        APPOINTMENTS_URL, {"date": iso(at(0)), "propertyId": listing.id}, format="json"
    )
    assert created.status_code == 201
    url = appointment_url(created.json()["id"])

    # when the owner confirms, the customer moves it, the owner confirms again and completes
    statuses = [
        owner_client.patch(url, {"status": "CONFIRMED"}, format="json").json()["status"],
        customer_client.patch(url, {"date": iso(NEW_DATE)}, format="json").json()["status"],
        owner_client.patch(url, {"status": "CONFIRMED"}, format="json").json()["status"],
        owner_client.patch(url, {"status": "COMPLETED"}, format="json").json()["status"],
    ]

    # then
    assert statuses == [CONFIRMED, PENDING, CONFIRMED, COMPLETED]
    assert notifications_of(owner) == [
        ("New visit request", listing.id),
        ("Visit rescheduled", listing.id),
    ]
    assert notifications_of(customer) == [
        ("Visit confirmed", listing.id),
        ("Visit confirmed", listing.id),
        ("Visit completed", listing.id),
    ]
