"""The Approve and Suspend bulk actions of the listings changelist (issue 8, D10, D12)."""

import pytest

from listings.admin import SUSPEND_REASON_REQUIRED
from listings.models import ModerationLog, PropertyStatus, TransactionType
from notifications.models import Event, EventType, Notification, NotificationStatus
from tests.admin.support import LISTINGS_URL, action_data, messages_of
from tests.factories import ListingFactory

pytestmark = pytest.mark.django_db

PENDING = PropertyStatus.PENDING
AVAILABLE = PropertyStatus.AVAILABLE
SOLD = PropertyStatus.SOLD
SUSPENDED = PropertyStatus.SUSPENDED
REASON = "The photos show another building."


def log_rows(listing) -> list[tuple]:
    return list(
        ModerationLog.objects.filter(property=listing).values_list(
            "actor_id", "actor_email", "from_status", "to_status", "reason"
        )
    )


def notification_rows(listing) -> list[tuple]:
    return list(
        Notification.objects.filter(property=listing).values_list(
            "user_id", "status", "title", "message", "read"
        )
    )


def test_approve_moves_pending_listings_to_available_with_log_and_owner_notice(
    back_office, moderator
):
    # given two pending listings
    loft = ListingFactory(title="Loft in Chamberi", status=PENDING)
    house = ListingFactory(title="House in Toledo", status=PENDING)

    # when the moderator approves both from the changelist
    response = back_office.post(LISTINGS_URL, action_data("approve", loft.pk, house.pk))

    # then both are public, each move is logged and each owner is told
    assert response.status_code == 302
    assert response["Location"] == LISTINGS_URL
    for listing in (loft, house):
        listing.refresh_from_db()
        assert listing.status == AVAILABLE
        assert log_rows(listing) == [(moderator.pk, moderator.email, PENDING, AVAILABLE, "")]
        assert notification_rows(listing) == [
            (
                listing.owner.user_id,
                NotificationStatus.SUCCESS,
                "Listing approved",
                f"Your listing “{listing.title}” was approved and is now public.",
                False,
            )
        ]
    assert messages_of(response) == [
        "Available: 2 listings: “Loft in Chamberi”, “House in Toledo”."
    ]
    # and each move is recorded as a property.status_changed event for webhooks (D12)
    events = Event.objects.filter(type=EventType.PROPERTY_STATUS_CHANGED)
    assert sorted(events.values_list("listing_id", flat=True)) == sorted([loft.pk, house.pk])
    assert {event.payload["status"] for event in events} == {AVAILABLE}


def test_approve_leaves_listings_that_are_not_pending_as_they_are(back_office):
    # given a suspended listing and a pending one
    suspended = ListingFactory(title="Suspended flat", status=SUSPENDED)
    pending = ListingFactory(title="Pending flat", status=PENDING)

    # when both are approved
    response = back_office.post(LISTINGS_URL, action_data("approve", suspended.pk, pending.pk))

    # then only the pending one moves; the other is reported
    suspended.refresh_from_db()
    pending.refresh_from_db()
    assert (suspended.status, pending.status) == (SUSPENDED, AVAILABLE)
    assert ModerationLog.objects.filter(property=suspended).count() == 0
    assert sorted(messages_of(response)) == sorted(
        [
            "“Suspended flat” is Suspended, not pending: left as it is.",
            "Available: 1 listing: “Pending flat”.",
        ]
    )


def test_suspend_first_asks_for_a_reason_and_changes_nothing(back_office):
    # given an available listing
    listing = ListingFactory(title="Sea view", status=AVAILABLE)

    # when the Suspend action is chosen
    response = back_office.post(LISTINGS_URL, action_data("suspend", listing.pk))

    # then the confirmation page asks for the reason, re-posting the selected id
    assert response.status_code == 200
    assert response.templates[0].name == "admin/listings/property/suspend_confirmation.html"
    body = response.content.decode()
    assert f'<input type="hidden" name="_selected_action" value="{listing.pk}">' in body
    assert '<input type="hidden" name="post" value="yes">' in body
    assert 'name="reason"' in body
    listing.refresh_from_db()
    assert listing.status == AVAILABLE


@pytest.mark.parametrize("reason", ["", "   "])
def test_suspend_without_a_reason_is_refused_and_nothing_changes(back_office, reason):
    # given an available listing
    listing = ListingFactory(title="Sea view", status=AVAILABLE)

    # when the confirmation is posted with an empty reason (the page posts no index)
    body = {"action": "suspend", "_selected_action": [listing.pk], "post": "yes"}
    response = back_office.post(LISTINGS_URL, {**body, "reason": reason})

    # then the page is shown again with the refusal, and nothing was written
    assert response.status_code == 200
    assert response.context["form"].errors == {"reason": ["This field is required."]}
    assert messages_of(response) == [SUSPEND_REASON_REQUIRED]
    listing.refresh_from_db()
    assert listing.status == AVAILABLE
    assert ModerationLog.objects.count() == 0
    assert Notification.objects.count() == 0


def test_suspend_with_a_reason_suspends_logs_the_reason_and_warns_the_owner(back_office, moderator):
    # given a pending and an available listing
    pending = ListingFactory(title="New loft", status=PENDING)
    available = ListingFactory(title="Old loft", status=AVAILABLE)

    # when the confirmation is posted with a reason
    response = back_office.post(
        LISTINGS_URL,
        {
            "action": "suspend",
            "_selected_action": [pending.pk, available.pk],
            "post": "yes",
            "reason": f"  {REASON}  ",
        },
    )

    # then both are suspended, logged with the reason, and their owners warned with it
    assert response.status_code == 302
    for listing, previous in ((pending, PENDING), (available, AVAILABLE)):
        listing.refresh_from_db()
        assert listing.status == SUSPENDED
        assert log_rows(listing) == [(moderator.pk, moderator.email, previous, SUSPENDED, REASON)]
        assert notification_rows(listing) == [
            (
                listing.owner.user_id,
                NotificationStatus.WARNING,
                "Listing suspended",
                f"Your listing “{listing.title}” was suspended and is hidden. Reason: {REASON}",
                False,
            )
        ]
    assert messages_of(response) == ["Suspended: 2 listings: “New loft”, “Old loft”."]


def test_a_move_the_state_machine_forbids_is_reported_and_not_applied(back_office):
    # given a sold listing selected together with an available one
    sold = ListingFactory(title="Sold villa", status=SOLD, transaction_type=TransactionType.SALE)
    available = ListingFactory(title="Open villa", status=AVAILABLE)

    # when both are suspended
    response = back_office.post(
        LISTINGS_URL,
        {
            "action": "suspend",
            "_selected_action": [sold.pk, available.pk],
            "post": "yes",
            "reason": REASON,
        },
    )

    # then SOLD to SUSPENDED is reported and not applied, and the other listing still moves
    sold.refresh_from_db()
    available.refresh_from_db()
    assert (sold.status, available.status) == (SOLD, SUSPENDED)
    assert log_rows(sold) == []
    assert notification_rows(sold) == []
    assert sorted(messages_of(response)) == sorted(
        [
            "“Sold villa”: A SALE listing cannot move from SOLD to SUSPENDED. "
            "Allowed next statuses: AVAILABLE.",
            "Suspended: 1 listing: “Open villa”.",
        ]
    )


def test_suspending_a_suspended_listing_is_reported_and_writes_nothing(back_office):
    # given a suspended listing
    listing = ListingFactory(title="Hidden flat", status=SUSPENDED)

    # when it is suspended again
    response = back_office.post(
        LISTINGS_URL,
        {"action": "suspend", "_selected_action": [listing.pk], "post": "yes", "reason": REASON},
    )

    # then nothing is logged or sent
    assert messages_of(response) == ["“Hidden flat” is already Suspended."]
    assert ModerationLog.objects.count() == 0
    assert Notification.objects.count() == 0


def test_approve_from_the_listings_change_page(back_office, moderator):
    # given a pending listing's change page
    listing = ListingFactory(title="Chalet", status=PENDING)
    url = f"{LISTINGS_URL}{listing.pk}/change/"

    # when its Approve action is run there (Django 6.1 change-form actions)
    response = back_office.post(
        url, {"CHANGE_FORM-action": "approve", "_selected_action": [listing.pk]}
    )

    # then it is approved and the admin stays on the page
    assert response.status_code == 302
    assert response["Location"] == url
    listing.refresh_from_db()
    assert listing.status == AVAILABLE
    assert log_rows(listing) == [(moderator.pk, moderator.email, PENDING, AVAILABLE, "")]


def test_suspend_from_the_listings_change_page_asks_for_the_reason(back_office):
    # given an available listing's change page
    listing = ListingFactory(title="Chalet", status=AVAILABLE)
    url = f"{LISTINGS_URL}{listing.pk}/change/"

    # when its Suspend action is run there
    response = back_office.post(
        url, {"CHANGE_FORM-action": "suspend", "_selected_action": [listing.pk]}
    )

    # then the confirmation page asks for the reason and posts to the changelist
    assert response.status_code == 200
    assert response.templates[0].name == "admin/listings/property/suspend_confirmation.html"
    assert f'<form method="post" action="{LISTINGS_URL}">' in response.content.decode()
    listing.refresh_from_db()
    assert listing.status == AVAILABLE


def test_a_spanish_speaking_moderator_reads_the_actions_and_reports_in_spanish(back_office):
    # given a pending listing and a browser that asks for Spanish
    loft = ListingFactory(title="Loft in Chamberi", status=PENDING)
    spanish = {"accept-language": "es-ES,es;q=0.9"}

    # when the moderator opens the changelist and approves it
    page = back_office.get(LISTINGS_URL, headers=spanish)
    response = back_office.post(LISTINGS_URL, action_data("approve", loft.pk), headers=spanish)

    # then the actions are offered and reported in Spanish
    assert '<option value="approve">Aprobar los anuncios pendientes seleccionados</option>' in (
        page.text
    )
    assert (
        '<option value="suspend">Suspender los anuncios seleccionados (pide un motivo)</option>'
        in page.text
    )
    assert response.status_code == 302
    assert messages_of(response) == ["Disponible: 1 anuncio: «Loft in Chamberi»."]
