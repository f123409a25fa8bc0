"""POST /notifications: administrators send a notification to one user (D2, D4, D7)."""

import pytest

from notifications.models import Notification
from tests.api.support import assert_problem
from tests.factories import ImageFactory, ListingFactory
from tests.notifications.support import (
    DETAIL_KEYS,
    NOTIFICATIONS_URL,
    UNKNOWN_ID,
    detail_body,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def listing():
    """The listing the notifications of a test are about."""
    return ListingFactory(title="Loft by the river")


@pytest.fixture
def new_notification_body(listing, customer) -> dict[str, object]:
    """A valid POST /notifications body without status."""
    return {
        "title": "Price drop",
        "message": "A listing you saved is now cheaper.",
        "propertyId": listing.id,
        "userId": customer.id,
    }


def test_an_admin_sends_a_notification(admin_client, customer, listing, new_notification_body):
    # given
    photo = ImageFactory(property=listing)

    # when
    response = admin_client.post(NOTIFICATIONS_URL, new_notification_body, format="json")

    # then
    assert response.status_code == 201
    body = response.json()
    assert set(body) == DETAIL_KEYS
    notification = Notification.objects.get()
    assert body == detail_body(notification, images=[photo])
    assert (notification.user_id, notification.property_id) == (customer.id, listing.id)
    assert (notification.title, notification.message) == (
        "Price drop",
        "A listing you saved is now cheaper.",
    )
    assert notification.status == "SUCCESS"
    assert notification.read is False


@pytest.mark.parametrize("status", ["SUCCESS", "ERROR", "WARNING", "INFO"])
def test_the_status_is_stored(admin_client, new_notification_body, status):
    # when
    response = admin_client.post(
        NOTIFICATIONS_URL, {**new_notification_body, "status": status}, format="json"
    )

    # then
    assert response.status_code == 201
    assert response.json()["status"] == status
    assert Notification.objects.get().status == status


def test_server_controlled_fields_are_ignored(admin_client, new_notification_body):
    # given
    body = {
        **new_notification_body,
        "id": "aaaaaaaaaaaaaaaaaaaaaaaaa",
        "read": True,
        "createdAt": "2001-01-01T00:00:00Z",
    }

    # when
    response = admin_client.post(NOTIFICATIONS_URL, body, format="json")

    # then
    assert response.status_code == 201
    notification = Notification.objects.get()
    assert notification.id != "aaaaaaaaaaaaaaaaaaaaaaaaa"
    assert notification.read is False
    assert notification.created_at.year > 2001


def test_title_and_message_are_trimmed(admin_client, new_notification_body):
    # when
    response = admin_client.post(
        NOTIFICATIONS_URL,
        {**new_notification_body, "title": "  Price drop ", "message": "\nCheaper now. "},
        format="json",
    )

    # then
    assert response.status_code == 201
    notification = Notification.objects.get()
    assert (notification.title, notification.message) == ("Price drop", "Cheaper now.")


def test_title_of_200_and_message_of_5000_characters_are_accepted(
    admin_client, new_notification_body
):
    # when
    response = admin_client.post(
        NOTIFICATIONS_URL,
        {**new_notification_body, "title": "t" * 200, "message": "m" * 5000},
        format="json",
    )

    # then
    assert response.status_code == 201


@pytest.mark.parametrize(
    ("changes", "field", "message", "code"),
    [
        ({"title": ""}, "title", "This field may not be blank.", "blank"),
        ({"title": "   "}, "title", "This field may not be blank.", "blank"),
        (
            {"title": "t" * 201},
            "title",
            "Ensure this field has no more than 200 characters.",
            "max_length",
        ),
        ({"message": ""}, "message", "This field may not be blank.", "blank"),
        (
            {"message": "m" * 5001},
            "message",
            "Ensure this field has no more than 5000 characters.",
            "max_length",
        ),
        ({"status": "DONE"}, "status", '"DONE" is not a valid choice.', "invalid_choice"),
        (
            {"propertyId": UNKNOWN_ID},
            "propertyId",
            f'Invalid pk "{UNKNOWN_ID}" - object does not exist.',
            "does_not_exist",
        ),
        (
            {"userId": UNKNOWN_ID},
            "userId",
            f'Invalid pk "{UNKNOWN_ID}" - object does not exist.',
            "does_not_exist",
        ),
    ],
)
def test_invalid_fields_are_400_naming_them(
    admin_client, new_notification_body, changes, field, message, code
):
    # when
    response = admin_client.post(
        NOTIFICATIONS_URL, {**new_notification_body, **changes}, format="json"
    )

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": field, "message": message, "code": code}],
    )
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("missing", ["title", "message", "propertyId", "userId"])
def test_a_missing_required_field_is_400_naming_it(admin_client, new_notification_body, missing):
    # given
    body = {key: value for key, value in new_notification_body.items() if key != missing}

    # when
    response = admin_client.post(NOTIFICATIONS_URL, body, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": missing, "message": "This field is required.", "code": "required"}],
    )
    assert Notification.objects.count() == 0


def test_an_admin_may_notify_about_a_hidden_listing(admin_client, new_notification_body):
    # given
    pending = ListingFactory(status="PENDING")

    # when
    response = admin_client.post(
        NOTIFICATIONS_URL, {**new_notification_body, "propertyId": pending.id}, format="json"
    )

    # then
    assert response.status_code == 201
    assert Notification.objects.get().property_id == pending.id


@pytest.mark.parametrize("viewer", ["customer", "owner"])
def test_non_admins_may_not_send_notifications(clients, new_notification_body, viewer):
    # when
    response = clients[viewer].post(NOTIFICATIONS_URL, new_notification_body, format="json")

    # then
    body = assert_problem(response, 403, "permission_denied")
    assert body["detail"] == "Only administrators may do this."
    assert Notification.objects.count() == 0


def test_anonymous_send_is_401(anonymous_client, new_notification_body):
    # when
    response = anonymous_client.post(NOTIFICATIONS_URL, new_notification_body, format="json")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert Notification.objects.count() == 0
