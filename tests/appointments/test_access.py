"""Object endpoints: only the customer, the listing's owner and admins reach a visit (D2, D7)."""

import pytest

from appointments.models import AppointmentStatus
from notifications.models import Notification
from tests.appointments.support import (
    appointment_row,
    appointment_url,
    assert_problem,
    at,
    iso,
    resource,
)
from tests.factories import AppointmentFactory

pytestmark = pytest.mark.django_db

OUTSIDERS = ["other_customer", "other_owner"]
# (method, body) of every request on /appointments/:id.
REQUESTS = [
    ("get", None),
    ("patch", {"status": "CONFIRMED"}),
    ("patch", {"status": "CANCELLED"}),
    ("patch", {"date": iso(at(24 * 60))}),
    ("patch", {"notes": "Changed by an outsider"}),
    ("delete", None),
]
REQUEST_IDS = ["get", "confirm", "cancel", "reschedule", "notes", "delete"]


@pytest.fixture
def appointment(listing, customer):
    return AppointmentFactory(property=listing, user=customer, date=at(0), notes="Gate B")


def send(client, method: str, url: str, body):
    if body is None:
        return getattr(client, method)(url)
    return getattr(client, method)(url, body, format="json")


@pytest.mark.parametrize("role", OUTSIDERS)
@pytest.mark.parametrize(("method", "body"), REQUESTS, ids=REQUEST_IDS)
@pytest.mark.parametrize("status", [AppointmentStatus.PENDING, AppointmentStatus.CONFIRMED])
def test_outsider_gets_404_and_nothing_changes(clients, appointment, role, method, body, status):
    # given
    appointment.status = status
    appointment.save()
    before = appointment_row(appointment.id)

    # when
    response = send(clients[role], method, appointment_url(appointment.id), body)

    # then
    assert_problem(response, status=404, code="not_found")
    assert appointment_row(appointment.id) == before
    assert Notification.objects.count() == 0


@pytest.mark.parametrize(("method", "body"), REQUESTS, ids=REQUEST_IDS)
def test_anonymous_gets_401_and_nothing_changes(anonymous_client, appointment, method, body):
    # given
    before = appointment_row(appointment.id)

    # when
    response = send(anonymous_client, method, appointment_url(appointment.id), body)

    # then
    assert_problem(response, status=401, code="not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"
    assert appointment_row(appointment.id) == before


@pytest.mark.parametrize("role", ["customer", "owner", "admin"])
@pytest.mark.parametrize(("method", "body"), REQUESTS, ids=REQUEST_IDS)
def test_unknown_id_is_404(clients, appointment, role, method, body):
    # when
    response = send(clients[role], method, appointment_url("zzzzzzzzzzzzzzzzzzzzzzzzz"), body)

    # then
    assert_problem(response, status=404, code="not_found")


@pytest.mark.parametrize("role", ["customer", "owner", "admin"])
def test_parties_and_admins_read_the_visit(clients, appointment, role):
    # when
    response = clients[role].get(appointment_url(appointment.id))

    # then
    assert response.status_code == 200
    assert response.json() == resource(appointment)


def test_put_is_405(customer_client, appointment):
    # given
    before = appointment_row(appointment.id)

    # when
    response = customer_client.put(
        appointment_url(appointment.id), {"status": "CANCELLED"}, format="json"
    )

    # then
    assert_problem(response, status=405, code="method_not_allowed")
    assert appointment_row(appointment.id) == before
