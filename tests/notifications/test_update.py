"""PATCH /notifications/:id (the read flag) and PATCH /notifications/mark-all-read (D4, D7)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from notifications.models import Notification
from tests.api.support import assert_problem
from tests.factories import NotificationFactory
from tests.notifications.support import (
    DETAIL_KEYS,
    MARK_ALL_READ_URL,
    UNKNOWN_ID,
    detail_body,
    notification_rows,
    notification_url,
)

pytestmark = pytest.mark.django_db

OUTSIDERS = ["other_customer", "other_owner"]
NOT_YOURS = {
    "field": "userId",
    "message": "You may mark only your own notifications.",
    "code": "permission_denied",
}


# --- PATCH /notifications/:id ------------------------------------------------------------


def test_the_recipient_marks_a_notification_read(customer_client, customer):
    # given
    notification = NotificationFactory(user=customer, read=False)

    # when
    response = customer_client.patch(
        notification_url(notification.id), {"read": True}, format="json"
    )

    # then
    assert response.status_code == 200
    body = response.json()
    assert set(body) == DETAIL_KEYS
    notification.refresh_from_db()
    assert notification.read is True
    assert body == detail_body(notification)


def test_the_recipient_marks_a_notification_unread_again(customer_client, customer):
    # given
    notification = NotificationFactory(user=customer, read=True)

    # when
    response = customer_client.patch(
        f"{notification_url(notification.id)}/", {"read": False}, format="json"
    )

    # then
    assert response.status_code == 200
    assert response.json()["read"] is False
    notification.refresh_from_db()
    assert notification.read is False


def test_marking_with_the_current_value_changes_nothing(customer_client, customer):
    # given
    notification = NotificationFactory(user=customer, read=True)
    before = notification_rows()

    # when
    response = customer_client.patch(
        notification_url(notification.id), {"read": True}, format="json"
    )

    # then
    assert response.status_code == 200
    assert response.json()["read"] is True
    assert notification_rows() == before


def test_patch_changes_only_the_read_flag(customer_client, customer):
    # given
    notification = NotificationFactory(user=customer, read=False, title="Visit requested")

    # when
    response = customer_client.patch(
        notification_url(notification.id),
        {"read": True, "title": "Changed", "status": "ERROR", "userId": UNKNOWN_ID},
        format="json",
    )

    # then
    assert response.status_code == 200
    notification.refresh_from_db()
    assert (notification.read, notification.title, notification.status) == (
        True,
        "Visit requested",
        "INFO",
    )
    assert notification.user_id == customer.id


def test_an_admin_marks_anyones_notification(admin_client, customer):
    # given
    notification = NotificationFactory(user=customer, read=False)

    # when
    response = admin_client.patch(notification_url(notification.id), {"read": True}, format="json")

    # then
    assert response.status_code == 200
    notification.refresh_from_db()
    assert notification.read is True


@pytest.mark.parametrize("viewer", OUTSIDERS)
def test_another_users_notification_is_404_and_unchanged(clients, customer, viewer):
    # given
    notification = NotificationFactory(user=customer, read=False)
    before = notification_rows()

    # when
    response = clients[viewer].patch(
        notification_url(notification.id), {"read": True}, format="json"
    )

    # then
    assert_problem(response, 404, "not_found")
    assert notification_rows() == before


def test_patch_of_an_unknown_notification_is_404(customer_client):
    # when
    response = customer_client.patch(notification_url(UNKNOWN_ID), {"read": True}, format="json")

    # then
    assert_problem(response, 404, "not_found")


@pytest.mark.parametrize(
    ("body", "message", "code"),
    [
        ({}, "This field is required.", "required"),
        ({"title": "Read me"}, "This field is required.", "required"),
        ({"read": None}, "This field may not be null.", "null"),
        ({"read": "yes"}, "Must be a valid boolean.", "invalid"),
        ({"read": "true"}, "Must be a valid boolean.", "invalid"),
        ({"read": 1}, "Must be a valid boolean.", "invalid"),
    ],
)
def test_patch_without_a_boolean_read_is_400_and_unchanged(
    customer_client, customer, body, message, code
):
    # given
    notification = NotificationFactory(user=customer, read=False)
    before = notification_rows()

    # when
    response = customer_client.patch(notification_url(notification.id), body, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "read", "message": message, "code": code}],
    )
    assert notification_rows() == before


def test_anonymous_patch_is_401_and_unchanged(anonymous_client, customer):
    # given
    notification = NotificationFactory(user=customer, read=False)
    before = notification_rows()

    # when
    response = anonymous_client.patch(
        notification_url(notification.id), {"read": True}, format="json"
    )

    # then
    assert_problem(response, 401, "not_authenticated")
    assert notification_rows() == before


# --- PATCH /notifications/mark-all-read --------------------------------------------------


def read_flags(user) -> dict[str, bool]:
    """The read flag of each notification of a user, by id."""
    return dict(Notification.objects.filter(user=user).values_list("id", "read"))


@pytest.mark.parametrize("path", [MARK_ALL_READ_URL, f"{MARK_ALL_READ_URL}/"])
def test_mark_all_read_marks_the_callers_unread_ones(
    customer_client, customer, other_customer, path
):
    # given two unread and one read notification, and someone else's unread one
    NotificationFactory.create_batch(2, user=customer, read=False)
    NotificationFactory(user=customer, read=True)
    others = NotificationFactory(user=other_customer, read=False)

    # when
    response = customer_client.patch(path, {}, format="json")

    # then only the two that changed are counted
    assert response.status_code == 200
    assert response.json() == {"updated": 2}
    assert set(read_flags(customer).values()) == {True}
    others.refresh_from_db()
    assert others.read is False


def test_mark_all_read_with_nothing_unread_is_zero(customer_client, customer):
    # given
    NotificationFactory(user=customer, read=True)

    # when
    response = customer_client.patch(MARK_ALL_READ_URL, {}, format="json")

    # then
    assert response.status_code == 200
    assert response.json() == {"updated": 0}


def test_mark_all_read_without_a_body_uses_the_caller(customer_client, customer):
    # given
    NotificationFactory(user=customer, read=False)

    # when
    response = customer_client.patch(MARK_ALL_READ_URL)

    # then
    assert response.status_code == 200
    assert response.json() == {"updated": 1}


def test_mark_all_read_with_the_callers_own_user_id(customer_client, customer):
    # given
    NotificationFactory(user=customer, read=False)

    # when
    response = customer_client.patch(MARK_ALL_READ_URL, {"userId": customer.id}, format="json")

    # then
    assert response.json() == {"updated": 1}


def test_an_admin_marks_all_of_another_users_notifications(admin_client, admin, customer):
    # given
    NotificationFactory.create_batch(3, user=customer, read=False)
    own = NotificationFactory(user=admin, read=False)

    # when
    response = admin_client.patch(MARK_ALL_READ_URL, {"userId": customer.id}, format="json")

    # then
    assert response.json() == {"updated": 3}
    assert set(read_flags(customer).values()) == {True}
    own.refresh_from_db()
    assert own.read is False


@pytest.mark.parametrize("viewer", OUTSIDERS)
@pytest.mark.parametrize("named", ["customer", "unknown"])
def test_mark_all_read_naming_anyone_else_is_403_and_changes_nothing(
    clients, customer, viewer, named
):
    # given
    NotificationFactory.create_batch(2, user=customer, read=False)
    before = notification_rows()
    user_id = customer.id if named == "customer" else UNKNOWN_ID

    # when
    response = clients[viewer].patch(MARK_ALL_READ_URL, {"userId": user_id}, format="json")

    # then
    assert_problem(response, 403, "permission_denied", errors=[NOT_YOURS])
    assert notification_rows() == before


def test_an_admin_naming_an_unknown_user_is_400(admin_client):
    # when
    response = admin_client.patch(MARK_ALL_READ_URL, {"userId": UNKNOWN_ID}, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "userId", "message": "No user has this id.", "code": "invalid"}],
    )


def test_mark_all_read_is_one_update_query(customer_client, customer):
    # given
    NotificationFactory.create_batch(5, user=customer, read=False)

    # when
    with CaptureQueriesContext(connection) as context:
        response = customer_client.patch(MARK_ALL_READ_URL, {}, format="json")

    # then
    assert response.json() == {"updated": 5}
    writes = [
        query["sql"]
        for query in context.captured_queries
        if query["sql"].lstrip().upper().startswith(("UPDATE", "INSERT", "DELETE"))
    ]
    assert len(writes) == 1
    assert writes[0].lstrip().upper().startswith("UPDATE")
    assert "notifications_notification" in writes[0]


def test_mark_all_read_is_not_taken_for_a_notification_id(customer_client, customer):
    # given the route shares its prefix with the detail route
    NotificationFactory(user=customer, read=False)

    # when
    response = customer_client.patch(MARK_ALL_READ_URL, {"read": False}, format="json")

    # then the collection action answered, not the detail
    assert response.status_code == 200
    assert response.json() == {"updated": 1}


@pytest.mark.parametrize("method", ["get", "post", "delete"])
def test_mark_all_read_takes_only_patch(customer_client, method):
    # when
    response = getattr(customer_client, method)(MARK_ALL_READ_URL)

    # then
    assert_problem(response, 405, "method_not_allowed")


def test_anonymous_mark_all_read_is_401(anonymous_client, customer):
    # given
    NotificationFactory(user=customer, read=False)
    before = notification_rows()

    # when
    response = anonymous_client.patch(MARK_ALL_READ_URL, {}, format="json")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert notification_rows() == before
