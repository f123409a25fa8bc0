"""GET /notifications: one user's notifications, paginated, newest first (interface, D7, D8)."""

import datetime
import json

import pytest
from djangorestframework_camel_case.render import CamelCaseJSONRenderer

from config.api.renderers import CamelCasedJSONRenderer
from listings.models import PropertyStatus
from notifications import selectors
from notifications.api.serializers import NotificationSerializer, notification_items
from notifications.models import Notification, NotificationStatus
from tests.api.support import assert_problem
from tests.factories import ImageFactory, ListingFactory, NotificationFactory
from tests.notifications.support import (
    ITEM_KEYS,
    ITEM_PROPERTY_KEYS,
    LIST_KEYS,
    NOTIFICATIONS_URL,
    PAGINATION_KEYS,
    UNKNOWN_ID,
    ids,
    item_body,
    spread_creation_times,
)

pytestmark = pytest.mark.django_db

NOT_YOURS = {
    "field": "userId",
    "message": "You may list only your own notifications.",
    "code": "permission_denied",
}


def test_list_envelope_and_item_have_exactly_the_documented_keys(customer_client, customer):
    # given a notification about a listing with two photos
    listing = ListingFactory(title="Loft by the river")
    cover = ImageFactory(property=listing, position=0)
    second = ImageFactory(property=listing, position=1)
    notification = NotificationFactory(
        user=customer, property=listing, status=NotificationStatus.WARNING
    )

    # when
    response = customer_client.get(NOTIFICATIONS_URL)

    # then
    assert response.status_code == 200
    body = response.json()
    assert set(body) == LIST_KEYS
    assert set(body["pagination"]) == PAGINATION_KEYS
    assert body["pagination"] == {"total": 1, "page": 1, "limit": 20, "pages": 1}
    [item] = body["data"]
    assert set(item) == ITEM_KEYS
    assert set(item["property"]) == ITEM_PROPERTY_KEYS
    assert item == item_body(notification, images=[cover, second])
    assert item["read"] is False
    assert item["createdAt"].endswith("Z")


def test_list_is_newest_first(customer_client, customer):
    # given three notifications sent in a known order
    oldest, middle, newest = NotificationFactory.create_batch(3, user=customer)
    spread_creation_times(oldest, middle, newest)

    # when
    response = customer_client.get(NOTIFICATIONS_URL)

    # then
    assert ids(response) == [newest.id, middle.id, oldest.id]


def test_list_breaks_ties_of_creation_time_by_id_descending(customer_client, customer):
    # given notifications sent at the very same moment
    notifications = NotificationFactory.create_batch(3, user=customer)
    moment = datetime.datetime(2026, 1, 2, 3, 4, 5, tzinfo=datetime.UTC)
    Notification.objects.update(created_at=moment)

    # when
    response = customer_client.get(NOTIFICATIONS_URL)

    # then
    assert ids(response) == sorted((item.id for item in notifications), reverse=True)


def test_list_defaults_to_pages_of_20(customer_client, customer):
    # given
    notifications = NotificationFactory.create_batch(25, user=customer)
    spread_creation_times(*notifications)

    # when
    first = customer_client.get(NOTIFICATIONS_URL)
    second = customer_client.get(NOTIFICATIONS_URL, {"page": 2})

    # then
    newest_first = [item.id for item in reversed(notifications)]
    assert ids(first) == newest_first[:20]
    assert first.json()["pagination"] == {"total": 25, "page": 1, "limit": 20, "pages": 2}
    assert ids(second) == newest_first[20:]
    assert second.json()["pagination"] == {"total": 25, "page": 2, "limit": 20, "pages": 2}


def test_list_takes_page_and_limit(customer_client, customer):
    # given
    notifications = NotificationFactory.create_batch(5, user=customer)
    spread_creation_times(*notifications)

    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"page": 2, "limit": 2})

    # then
    assert ids(response) == [notifications[2].id, notifications[1].id]
    assert response.json()["pagination"] == {"total": 5, "page": 2, "limit": 2, "pages": 3}


def test_a_page_past_the_end_is_empty(customer_client, customer):
    # given
    NotificationFactory.create_batch(2, user=customer)

    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"page": 3})

    # then
    assert response.status_code == 200
    assert response.json() == {
        "data": [],
        "pagination": {"total": 2, "page": 3, "limit": 20, "pages": 1},
    }


def test_an_empty_list_has_zero_pages(customer_client):
    # when
    response = customer_client.get(NOTIFICATIONS_URL)

    # then
    assert response.json() == {
        "data": [],
        "pagination": {"total": 0, "page": 1, "limit": 20, "pages": 0},
    }


@pytest.mark.parametrize(
    ("parameters", "field", "message", "code"),
    [
        ({"page": 0}, "page", "Ensure this value is greater than or equal to 1.", "min_value"),
        ({"page": "first"}, "page", "A valid integer is required.", "invalid"),
        # Past 64 bits: once a 500 (the page could not be written back as JSON).
        (
            {"page": "30900562627009093632"},
            "page",
            "Ensure this value is less than or equal to 2147483647.",
            "max_value",
        ),
        ({"limit": 0}, "limit", "Ensure this value is greater than or equal to 1.", "min_value"),
        ({"limit": 101}, "limit", "Ensure this value is less than or equal to 100.", "max_value"),
        ({"limit": "many"}, "limit", "A valid integer is required.", "invalid"),
    ],
)
def test_invalid_page_or_limit_is_400(customer_client, parameters, field, message, code):
    # when
    response = customer_client.get(NOTIFICATIONS_URL, parameters)

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": field, "message": message, "code": code}],
    )


def test_limit_100_is_allowed(customer_client, customer):
    # given
    NotificationFactory.create_batch(3, user=customer)

    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"limit": 100})

    # then
    assert response.json()["pagination"] == {"total": 3, "page": 1, "limit": 100, "pages": 1}


# --- Filters -------------------------------------------------------------------------------


def test_filter_by_property_id(customer_client, customer):
    # given
    listing = ListingFactory()
    about_it = NotificationFactory(user=customer, property=listing)
    NotificationFactory(user=customer)

    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"propertyId": listing.id})

    # then
    assert ids(response) == [about_it.id]
    assert response.json()["pagination"]["total"] == 1


def test_filter_by_an_unknown_property_id_is_empty(customer_client, customer):
    # given
    NotificationFactory(user=customer)

    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"propertyId": UNKNOWN_ID})

    # then
    assert response.status_code == 200
    assert ids(response) == []


@pytest.mark.parametrize("status", NotificationStatus.values)
def test_filter_by_status(customer_client, customer, status):
    # given one notification of each status
    made = {value: NotificationFactory(user=customer, status=value) for value in NotificationStatus}

    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"status": status})

    # then
    assert ids(response) == [made[status].id]


@pytest.mark.parametrize("status", ["success", "DONE"])
def test_filter_by_an_unknown_status_is_400(customer_client, status):
    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"status": status})

    # then
    message = f"Select a valid choice. {status} is not one of the available choices."
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "status", "message": message, "code": "invalid_choice"}],
    )


def test_empty_filters_are_no_filters(customer_client, customer):
    # given
    notification = NotificationFactory(user=customer)

    # when
    response = customer_client.get(f"{NOTIFICATIONS_URL}?status=&read=&propertyId=&userId=")

    # then
    assert ids(response) == [notification.id]


@pytest.mark.parametrize(("value", "expected_read"), [("true", True), ("false", False)])
def test_filter_by_read(customer_client, customer, value, expected_read):
    # given
    read = NotificationFactory(user=customer, read=True)
    unread = NotificationFactory(user=customer, read=False)

    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"read": value})

    # then
    assert ids(response) == [read.id if expected_read else unread.id]


@pytest.mark.parametrize("value", ["yes", "1", "True", "maybe"])
def test_filter_by_read_other_than_true_or_false_is_400(customer_client, value):
    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"read": value})

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "read", "message": "Use true or false.", "code": "invalid"}],
    )


def test_filters_combine(customer_client, customer):
    # given
    listing = ListingFactory()
    wanted = NotificationFactory(
        user=customer, property=listing, status=NotificationStatus.ERROR, read=False
    )
    NotificationFactory(user=customer, property=listing, status=NotificationStatus.ERROR, read=True)
    NotificationFactory(user=customer, property=listing, status=NotificationStatus.INFO, read=False)
    NotificationFactory(user=customer, status=NotificationStatus.ERROR, read=False)

    # when
    response = customer_client.get(
        NOTIFICATIONS_URL, {"propertyId": listing.id, "status": "ERROR", "read": "false"}
    )

    # then
    assert ids(response) == [wanted.id]
    assert response.json()["pagination"]["total"] == 1


# --- Whose notifications --------------------------------------------------------------------


def test_list_shows_only_the_callers_own(customer_client, customer, other_customer):
    # given
    own = NotificationFactory(user=customer)
    NotificationFactory(user=other_customer)

    # when
    response = customer_client.get(NOTIFICATIONS_URL)

    # then
    assert ids(response) == [own.id]


def test_user_id_of_the_caller_lists_their_own(customer_client, customer):
    # given
    own = NotificationFactory(user=customer)

    # when
    response = customer_client.get(NOTIFICATIONS_URL, {"userId": customer.id})

    # then
    assert ids(response) == [own.id]


@pytest.mark.parametrize("viewer", ["customer", "other_owner"])
@pytest.mark.parametrize("named", ["other_customer", "unknown"])
def test_user_id_of_anyone_else_is_403_for_non_admins(clients, other_customer, viewer, named):
    # given
    NotificationFactory(user=other_customer)
    user_id = other_customer.id if named == "other_customer" else UNKNOWN_ID

    # when
    response = clients[viewer].get(NOTIFICATIONS_URL, {"userId": user_id})

    # then
    assert_problem(response, 403, "permission_denied", errors=[NOT_YOURS])


def test_an_admin_lists_another_users_notifications(admin_client, customer, other_customer):
    # given
    theirs = NotificationFactory(user=customer)
    NotificationFactory(user=other_customer)

    # when
    response = admin_client.get(NOTIFICATIONS_URL, {"userId": customer.id})

    # then
    assert ids(response) == [theirs.id]


def test_an_admin_without_user_id_lists_their_own(admin_client, admin, customer):
    # given
    own = NotificationFactory(user=admin)
    NotificationFactory(user=customer)

    # when
    response = admin_client.get(NOTIFICATIONS_URL)

    # then
    assert ids(response) == [own.id]


def test_an_admin_naming_an_unknown_user_gets_an_empty_page(admin_client):
    # when
    response = admin_client.get(NOTIFICATIONS_URL, {"userId": UNKNOWN_ID})

    # then
    assert response.status_code == 200
    assert ids(response) == []


@pytest.mark.parametrize("status", [PropertyStatus.PENDING, PropertyStatus.SUSPENDED])
def test_notifications_about_hidden_listings_are_still_listed(customer_client, customer, status):
    # given a notification about a listing the recipient can no longer see
    notification = NotificationFactory(user=customer, property=ListingFactory(status=status))

    # when
    response = customer_client.get(NOTIFICATIONS_URL)

    # then
    assert ids(response) == [notification.id]


@pytest.mark.parametrize("path", [NOTIFICATIONS_URL, f"{NOTIFICATIONS_URL}/"])
def test_list_answers_with_and_without_a_trailing_slash(customer_client, customer, path):
    # given
    own = NotificationFactory(user=customer)

    # when
    response = customer_client.get(path)

    # then
    assert ids(response) == [own.id]


def test_anonymous_list_is_401(anonymous_client):
    # when
    response = anonymous_client.get(NOTIFICATIONS_URL)

    # then
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


def test_list_items_equal_what_the_model_serializer_makes(rf, customer):
    # given notifications about listings with photos in a chosen order, one read
    for title in ("Sunny flat", "Quiet house"):
        listing = ListingFactory(title=title)
        ImageFactory(property=listing, position=2)
        ImageFactory(property=listing, position=0)
        NotificationFactory(user=customer, property=listing)
    NotificationFactory(user=customer, read=True, status=NotificationStatus.SUCCESS)
    request = rf.get("/api/v1/notifications")
    notifications = selectors.notification_list(viewer=customer)

    # when the page is built from rows and by the model serializer
    rows = selectors.notification_list_page(notifications, offset=0, limit=20)
    fast = notification_items(rows, request=request)
    slow = NotificationSerializer(
        selectors.notification_list_loading(notifications),
        many=True,
        context={"request": request},
    ).data

    # then both render to the same JSON
    assert len(fast) == 3
    assert json.loads(CamelCasedJSONRenderer().render(fast)) == json.loads(
        CamelCaseJSONRenderer().render(slow)
    )
