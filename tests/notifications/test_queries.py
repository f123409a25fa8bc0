"""GET /notifications and the detail cost the same few queries whatever the number of rows."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import ImageFactory, ListingFactory, NotificationFactory
from tests.notifications.support import NOTIFICATIONS_URL, notification_url

pytestmark = pytest.mark.django_db

# One to authenticate the token, then: the count, the page with its listings, the photos.
MAX_LIST_QUERIES = 1 + 3
# One to authenticate, then the notification with listing and user, and the photos.
MAX_DETAIL_QUERIES = 1 + 2


def send_notifications(user, count: int) -> None:
    """`count` notifications to the user, each about its own listing with two photos."""
    for _number in range(count):
        listing = ListingFactory()
        ImageFactory.create_batch(2, property=listing)
        NotificationFactory(user=user, property=listing)


def queries_of(client, url: str, parameters: dict | None = None) -> int:
    """How many queries one GET costs."""
    with CaptureQueriesContext(connection) as context:
        response = client.get(url, parameters or {})
    assert response.status_code == 200, response.content
    return len(context.captured_queries)


@pytest.mark.parametrize("viewer", ["customer", "admin"])
def test_list_costs_the_same_for_1_and_for_30_notifications(
    clients, customer, django_assert_num_queries, viewer
):
    # given one notification, and the query count of its page
    parameters = {"limit": 50, "userId": customer.id}
    send_notifications(customer, 1)
    queries_for_one = queries_of(clients[viewer], NOTIFICATIONS_URL, parameters)
    send_notifications(customer, 29)

    # when
    with django_assert_num_queries(queries_for_one):
        response = clients[viewer].get(NOTIFICATIONS_URL, parameters)

    # then
    assert queries_for_one <= MAX_LIST_QUERIES
    body = response.json()
    assert body["pagination"]["total"] == 30
    assert len(body["data"]) == 30
    assert all(len(item["property"]["images"]) == 2 for item in body["data"])


def test_filtered_list_costs_no_more(customer_client, customer, django_assert_max_num_queries):
    # given
    send_notifications(customer, 10)

    # when
    with django_assert_max_num_queries(MAX_LIST_QUERIES):
        response = customer_client.get(NOTIFICATIONS_URL, {"status": "INFO", "read": "false"})

    # then
    assert response.json()["pagination"]["total"] == 10


def test_detail_costs_a_fixed_few_queries(customer_client, customer, django_assert_max_num_queries):
    # given a notification about a listing with five photos
    listing = ListingFactory()
    ImageFactory.create_batch(5, property=listing)
    notification = NotificationFactory(user=customer, property=listing)

    # when
    with django_assert_max_num_queries(MAX_DETAIL_QUERIES):
        response = customer_client.get(notification_url(notification.id))

    # then
    assert len(response.json()["property"]["images"]) == 5
