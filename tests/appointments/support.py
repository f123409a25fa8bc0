"""Shapes, payloads and assertions shared by the Appointments API tests."""

import datetime

from appointments.models import Appointment
from notifications.models import Notification

APPOINTMENTS_URL = "/api/v1/appointments"
PROBLEM_CONTENT_TYPE = "application/problem+json"
PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}

# A list item (interface: "List items expose") and the whole resource (D4).
LIST_ITEM_KEYS = {"id", "date", "duration", "status", "notes", "property", "user", "owner"}
RESOURCE_KEYS = LIST_ITEM_KEYS | {
    "propertyId",
    "userId",
    "ownerId",
    "adminId",
    "createdAt",
    "updatedAt",
}

# A fixed moment well in the future, so that dates and UTC days are known in advance.
FUTURE = datetime.datetime(2031, 5, 14, 10, 0, tzinfo=datetime.UTC)


def appointment_url(appointment_id: str) -> str:
    return f"{APPOINTMENTS_URL}/{appointment_id}"


def iso(moment: datetime.datetime) -> str:
    """A timestamp as the API writes it: ISO 8601 in UTC with Z."""
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def at(minutes: int) -> datetime.datetime:
    """FUTURE shifted by some minutes."""
    return FUTURE + datetime.timedelta(minutes=minutes)


def list_item(appointment: Appointment) -> dict[str, object]:
    """An appointment as a list item shows it, read fresh from the database."""
    appointment.refresh_from_db()
    return {
        "id": appointment.id,
        "date": iso(appointment.date),
        "duration": appointment.duration,
        "status": appointment.status,
        "notes": appointment.notes,
        "property": {
            "id": appointment.property.id,
            "title": appointment.property.title,
            "type": appointment.property.kind,
        },
        "user": {"id": appointment.user.id, "name": appointment.user.name},
        "owner": {"id": appointment.owner.id, "userId": appointment.owner.user_id},
    }


def resource(appointment: Appointment) -> dict[str, object]:
    """The whole appointment as POST, PATCH, DELETE and GET /:id show it, read fresh."""
    return {
        **list_item(appointment),
        "propertyId": appointment.property_id,
        "userId": appointment.user_id,
        "ownerId": appointment.owner_id,
        "adminId": appointment.admin_id,
        "createdAt": iso(appointment.created_at),
        "updatedAt": iso(appointment.updated_at),
    }


def appointment_row(appointment_id: str) -> dict[str, object]:
    """Every column of an appointment, to show that a refused request changed nothing."""
    return Appointment.objects.values().get(pk=appointment_id)


def notifications_of(user) -> list[tuple[str, str]]:
    """(title, property id) of each notification of a user, oldest first."""
    return list(
        Notification.objects.filter(user=user)
        .order_by("created_at", "id")
        .values_list("title", "property_id")
    )


def assert_problem(
    response, *, status: int, code: str, errors: list[dict[str, str]] | None = None
) -> dict:
    """An RFC 9457 problem document (D5) with this status and code; returns its body.

    With `errors`, its field errors equal them exactly; without, it carries no `errors`.
    """
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert set(body) == PROBLEM_KEYS | ({"errors"} if errors is not None else set())
    assert body["type"] == "about:blank"
    assert body["status"] == status
    assert body["code"] == code
    assert body["title"]
    assert body["detail"]
    if errors is not None:
        assert body["errors"] == errors
    return body


def assert_field_problem(response, *, status: int, code: str, field: str) -> dict:
    """A problem document whose one field error names `field`; returns its body."""
    assert response.status_code == status, response.content
    errors = response.json().get("errors", [])
    assert [error["field"] for error in errors] == [field], errors
    return assert_problem(response, status=status, code=code, errors=errors)


def ids(response) -> list[str]:
    """The ids of a GET /appointments answer, in order."""
    return [item["id"] for item in response.json()]
