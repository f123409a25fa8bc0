"""POST /notifications/bulk: one notification to many users, in one insert (D4, D7)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import User
from notifications.models import Notification
from tests.api.support import assert_problem
from tests.factories import ImageFactory, ListingFactory, UserFactory
from tests.notifications.support import BULK_URL, DETAIL_KEYS, UNKNOWN_ID, detail_body

pytestmark = pytest.mark.django_db


@pytest.fixture
def listing():
    """The listing the notifications of a test are about."""
    return ListingFactory(title="Loft by the river")


def bulk_body(listing, users: list[User], **changes) -> dict[str, object]:
    """A valid POST /notifications/bulk body naming these users."""
    return {
        "status": "INFO",
        "title": "Open day",
        "message": "Visit the listing on Saturday.",
        "propertyId": listing.id,
        "userIds": [user.id for user in users],
        **changes,
    }


def test_an_admin_sends_one_notification_to_each_user(
    admin_client, customer, other_customer, owner, listing
):
    # given
    photo = ImageFactory(property=listing)
    recipients = [other_customer, customer, owner]

    # when
    response = admin_client.post(BULK_URL, bulk_body(listing, recipients), format="json")

    # then
    assert response.status_code == 201
    body = response.json()
    assert set(body) == {"count", "notifications"}
    assert body["count"] == 3
    assert [item["userId"] for item in body["notifications"]] == [user.id for user in recipients]
    stored = {item.user_id: item for item in Notification.objects.all()}
    assert set(stored) == {user.id for user in recipients}
    for item in body["notifications"]:
        assert set(item) == DETAIL_KEYS
        assert item == detail_body(stored[item["userId"]], images=[photo])
    for notification in stored.values():
        assert (notification.status, notification.title, notification.read) == (
            "INFO",
            "Open day",
            False,
        )
        assert notification.message == "Visit the listing on Saturday."
        assert notification.property_id == listing.id


def test_the_status_defaults_to_success(admin_client, customer, listing):
    # given
    body = bulk_body(listing, [customer])
    del body["status"]

    # when
    response = admin_client.post(BULK_URL, body, format="json")

    # then
    assert response.status_code == 201
    assert response.json()["notifications"][0]["status"] == "SUCCESS"
    assert Notification.objects.get().status == "SUCCESS"


def test_a_user_named_twice_gets_one_notification(admin_client, customer, other_customer, listing):
    # given
    body = bulk_body(listing, [customer, other_customer, customer, customer])

    # when
    response = admin_client.post(BULK_URL, body, format="json")

    # then
    assert response.status_code == 201
    assert response.json()["count"] == 2
    assert [item["userId"] for item in response.json()["notifications"]] == [
        customer.id,
        other_customer.id,
    ]
    assert Notification.objects.filter(user=customer).count() == 1
    assert Notification.objects.count() == 2


def inserts_of(context: CaptureQueriesContext) -> list[str]:
    """The INSERT statements a block of code ran."""
    return [
        query["sql"]
        for query in context.captured_queries
        if query["sql"].lstrip().upper().startswith("INSERT")
    ]


@pytest.mark.parametrize("count", [5, 1000])
def test_the_notifications_are_written_with_one_insert(admin_client, listing, count):
    # given up to the most users one call may name
    users = UserFactory.create_batch(count, password=None)

    # when
    with CaptureQueriesContext(connection) as context:
        response = admin_client.post(BULK_URL, bulk_body(listing, users), format="json")

    # then
    assert response.status_code == 201
    assert response.json()["count"] == count
    inserts = inserts_of(context)
    # one insert for the notifications, one for their notification.created events (D12)
    assert len(inserts) == 2
    assert ["notifications_notification" in sql for sql in inserts] == [True, False]
    assert ["notifications_event" in sql for sql in inserts] == [False, True]
    assert Notification.objects.count() == count
    assert set(Notification.objects.values_list("user_id", flat=True)) == {
        user.id for user in users
    }


def test_more_than_a_thousand_user_ids_is_400(admin_client, customer, listing):
    # given a thousand and one ids (checked before any lookup)
    body = bulk_body(listing, [customer], userIds=[customer.id] * 1001)

    # when
    response = admin_client.post(BULK_URL, body, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {
                "field": "userIds",
                "message": "Ensure this field has no more than 1000 elements.",
                "code": "max_length",
            }
        ],
    )
    assert Notification.objects.count() == 0


def test_unknown_user_ids_are_400_and_nobody_is_notified(admin_client, customer, listing):
    # given one known and one unknown id
    body = bulk_body(listing, [customer], userIds=[customer.id, UNKNOWN_ID])

    # when
    response = admin_client.post(BULK_URL, body, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {
                "field": "userIds",
                "message": f"No user has these ids: {UNKNOWN_ID}.",
                "code": "invalid",
            }
        ],
    )
    assert Notification.objects.count() == 0


def test_many_unknown_user_ids_are_named_up_to_ten(admin_client, listing):
    # given twelve unknown ids
    unknown = [f"unknown{number:018d}" for number in range(12)]

    # when
    response = admin_client.post(BULK_URL, bulk_body(listing, [], userIds=unknown), format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {
                "field": "userIds",
                "message": f"No user has these ids: {', '.join(unknown[:10])} and 2 more.",
                "code": "invalid",
            }
        ],
    )


@pytest.mark.parametrize(
    ("user_ids", "message", "code"),
    [
        ([], "This list may not be empty.", "empty"),
        ("abc", 'Expected a list of items but got type "str".', "not_a_list"),
        (None, "This field may not be null.", "null"),
    ],
)
def test_user_ids_must_be_a_non_empty_list(admin_client, listing, user_ids, message, code):
    # when
    response = admin_client.post(BULK_URL, bulk_body(listing, [], userIds=user_ids), format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "userIds", "message": message, "code": code}],
    )
    assert Notification.objects.count() == 0


@pytest.mark.parametrize(
    ("changes", "field", "message", "code"),
    [
        ({"title": ""}, "title", "This field may not be blank.", "blank"),
        (
            {"message": "m" * 5001},
            "message",
            "Ensure this field has no more than 5000 characters.",
            "max_length",
        ),
        ({"status": "LOUD"}, "status", '"LOUD" is not a valid choice.', "invalid_choice"),
        (
            {"propertyId": UNKNOWN_ID},
            "propertyId",
            f'Invalid pk "{UNKNOWN_ID}" - object does not exist.',
            "does_not_exist",
        ),
    ],
)
def test_invalid_content_is_400_naming_the_field(
    admin_client, customer, listing, changes, field, message, code
):
    # when
    response = admin_client.post(BULK_URL, bulk_body(listing, [customer], **changes), format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": field, "message": message, "code": code}],
    )
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("viewer", ["customer", "owner"])
def test_non_admins_may_not_send_in_bulk(clients, customer, listing, viewer):
    # when
    response = clients[viewer].post(BULK_URL, bulk_body(listing, [customer]), format="json")

    # then
    assert_problem(response, 403, "permission_denied")
    assert Notification.objects.count() == 0


def test_anonymous_bulk_is_401(anonymous_client, customer, listing):
    # when
    response = anonymous_client.post(BULK_URL, bulk_body(listing, [customer]), format="json")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert Notification.objects.count() == 0
