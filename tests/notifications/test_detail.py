"""GET /notifications/:id: the recipient and admins read it; anyone else gets 404 (D2, D7)."""

import pytest

from tests.api.support import assert_problem
from tests.factories import ImageFactory, ListingFactory, NotificationFactory
from tests.notifications.support import (
    DETAIL_KEYS,
    DETAIL_PROPERTY_KEYS,
    DETAIL_USER_KEYS,
    UNKNOWN_ID,
    detail_body,
    notification_url,
)

pytestmark = pytest.mark.django_db


def test_detail_has_exactly_the_documented_keys(customer_client, customer):
    # given a notification about a listing with two photos
    listing = ListingFactory(price="1250.75", transaction_type="RENT")
    cover = ImageFactory(property=listing, position=0)
    second = ImageFactory(property=listing, position=1)
    notification = NotificationFactory(user=customer, property=listing)

    # when
    response = customer_client.get(notification_url(notification.id))

    # then
    assert response.status_code == 200
    body = response.json()
    assert set(body) == DETAIL_KEYS
    assert set(body["property"]) == DETAIL_PROPERTY_KEYS
    assert set(body["user"]) == DETAIL_USER_KEYS
    assert body == detail_body(notification, images=[cover, second])
    assert body["property"]["price"] == 1250.75
    assert body["property"]["transactionType"] == "RENT"
    assert body["user"] == {"id": customer.id, "name": "Carla Customer", "email": customer.email}


def test_an_admin_reads_anyones_notification(admin_client, customer):
    # given
    notification = NotificationFactory(user=customer)

    # when
    response = admin_client.get(f"{notification_url(notification.id)}/")

    # then
    assert response.status_code == 200
    assert response.json() == detail_body(notification)


@pytest.mark.parametrize("viewer", ["other_customer", "other_owner"])
def test_another_users_notification_is_404(clients, customer, viewer):
    # given
    notification = NotificationFactory(user=customer)

    # when
    response = clients[viewer].get(notification_url(notification.id))

    # then
    assert_problem(response, 404, "not_found")


def test_the_listings_owner_may_not_read_a_notification_to_someone_else(
    owner_client, owner, customer
):
    # given a notification to a customer about the owner's listing
    listing = ListingFactory(owner=owner.owner)
    notification = NotificationFactory(user=customer, property=listing)

    # when
    response = owner_client.get(notification_url(notification.id))

    # then
    assert_problem(response, 404, "not_found")


def test_an_unknown_notification_is_404(customer_client):
    # when
    response = customer_client.get(notification_url(UNKNOWN_ID))

    # then
    assert_problem(response, 404, "not_found")


def test_anonymous_detail_is_401(anonymous_client, customer):
    # given
    notification = NotificationFactory(user=customer)

    # when
    response = anonymous_client.get(notification_url(notification.id))

    # then
    assert_problem(response, 401, "not_authenticated")
