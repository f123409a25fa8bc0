"""The notifications services on their own: the rules hold for every caller, not only the API."""

import pytest

from config.errors import PermissionRefused
from notifications import services
from notifications.models import Notification, NotificationStatus
from tests.factories import ListingFactory, NotificationFactory
from tests.notifications.support import notification_rows

pytestmark = pytest.mark.django_db


def test_notification_send_makes_an_unread_notification(customer):
    # given
    listing = ListingFactory()

    # when
    notification = services.notification_send(
        user=customer, property=listing, title="Price drop", message="Cheaper now."
    )

    # then
    stored = Notification.objects.get()
    assert stored.id == notification.id
    assert (stored.user_id, stored.property_id, stored.read) == (customer.id, listing.id, False)
    assert stored.status == NotificationStatus.SUCCESS


def test_notification_send_bulk_collapses_repeats_in_first_mention_order(customer, other_customer):
    # given
    listing = ListingFactory()

    # when
    notifications = services.notification_send_bulk(
        users=[other_customer, customer, other_customer],
        property=listing,
        title="Open day",
        message="Saturday.",
        status=NotificationStatus.INFO,
    )

    # then
    assert [item.user_id for item in notifications] == [other_customer.id, customer.id]
    assert all(item.created_at is not None for item in notifications)
    assert Notification.objects.count() == 2


@pytest.mark.parametrize("change", ["mark_read", "delete"])
def test_only_the_recipient_and_admins_change_a_notification(customer, other_customer, change):
    # given
    notification = NotificationFactory(user=customer, read=False)
    before = notification_rows()

    # when
    with pytest.raises(PermissionRefused):
        if change == "mark_read":
            services.notification_mark_read(notification=notification, by=other_customer)
        else:
            services.notification_delete(notification=notification, by=other_customer)

    # then
    assert notification_rows() == before


def test_mark_all_read_refuses_another_user(customer, other_customer):
    # given
    NotificationFactory(user=customer, read=False)
    before = notification_rows()

    # when
    with pytest.raises(PermissionRefused) as raised:
        services.notification_mark_all_read(user=customer, by=other_customer)

    # then
    assert raised.value.field == "userId"
    assert notification_rows() == before


def test_mark_all_read_by_an_admin_counts_only_changed_rows(customer, admin):
    # given
    NotificationFactory.create_batch(2, user=customer, read=False)
    NotificationFactory(user=customer, read=True)

    # when
    updated = services.notification_mark_all_read(user=customer, by=admin)

    # then
    assert updated == 2
    assert set(Notification.objects.values_list("read", flat=True)) == {True}
