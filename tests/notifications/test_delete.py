"""DELETE /notifications/:id: the recipient and admins; anyone else gets 404 (D4, D7)."""

import pytest

from notifications.models import Notification
from tests.api.support import assert_problem
from tests.factories import NotificationFactory
from tests.notifications.support import UNKNOWN_ID, notification_rows, notification_url

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path_end", ["", "/"])
def test_the_recipient_deletes_their_notification(customer_client, customer, path_end):
    # given
    notification = NotificationFactory(user=customer)
    kept = NotificationFactory(user=customer)

    # when
    response = customer_client.delete(f"{notification_url(notification.id)}{path_end}")

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert list(Notification.objects.values_list("id", flat=True)) == [kept.id]


def test_an_admin_deletes_anyones_notification(admin_client, customer):
    # given
    notification = NotificationFactory(user=customer)

    # when
    response = admin_client.delete(notification_url(notification.id))

    # then
    assert response.status_code == 204
    assert Notification.objects.count() == 0


@pytest.mark.parametrize("viewer", ["other_customer", "other_owner"])
def test_another_users_notification_is_404_and_stays(clients, customer, viewer):
    # given
    NotificationFactory(user=customer)
    notification = NotificationFactory(user=customer)
    before = notification_rows()

    # when
    response = clients[viewer].delete(notification_url(notification.id))

    # then
    assert_problem(response, 404, "not_found")
    assert notification_rows() == before


def test_an_unknown_notification_is_404(customer_client, customer):
    # given
    NotificationFactory(user=customer)
    before = notification_rows()

    # when
    response = customer_client.delete(notification_url(UNKNOWN_ID))

    # then
    assert_problem(response, 404, "not_found")
    assert notification_rows() == before


def test_anonymous_delete_is_401_and_deletes_nothing(anonymous_client, customer):
    # given
    notification = NotificationFactory(user=customer)
    before = notification_rows()

    # when
    response = anonymous_client.delete(notification_url(notification.id))

    # then
    assert_problem(response, 401, "not_authenticated")
    assert notification_rows() == before
