"""The moderation log: one row per status change, whoever made it, kept after its actor goes."""

from decimal import Decimal

import pytest
from rest_framework.test import APIClient

from accounts.models import UserType
from accounts.services import access_token_issue, user_delete
from config.errors import InvalidTransition
from listings import services
from listings.models import ModerationLog, PriceChange, PropertyStatus
from listings.services import property_change_status, property_update
from notifications.models import Notification
from tests.admin.support import MODERATION_LOG_URL, change_url
from tests.factories import ListingFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_the_log_keeps_the_actors_email_after_the_actor_is_deleted(moderator):
    # given a move made by the moderator
    listing = ListingFactory(status=PropertyStatus.PENDING)
    property_change_status(
        property=listing, by=moderator, status=PropertyStatus.SUSPENDED, reason="Spam"
    )

    # when the moderator's account is deleted (another administrator stays)
    UserFactory(user_type=UserType.ADMIN)
    user_delete(user=moderator, by=moderator)

    # then the row stays, with no actor and the email copied at write time
    assert list(
        ModerationLog.objects.values_list(
            "property_id", "actor_id", "actor_email", "from_status", "to_status", "reason"
        )
    ) == [(listing.pk, None, "mia.moderator@example.com", "PENDING", "SUSPENDED", "Spam")]


def test_a_status_change_through_the_api_is_logged_too():
    # given an owner's available listing and their API token
    listing = ListingFactory(status=PropertyStatus.AVAILABLE)
    owner_user = listing.owner.user
    token, _access_token = access_token_issue(user=owner_user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")

    # when the owner marks it sold
    response = client.patch(f"/api/v1/properties/{listing.pk}", {"status": "SOLD"}, format="json")

    # then the move is logged with the owner as actor, and no moderation notice is sent
    assert response.status_code == 200
    assert list(
        ModerationLog.objects.values_list(
            "property_id", "actor_id", "actor_email", "from_status", "to_status", "reason"
        )
    ) == [(listing.pk, owner_user.pk, owner_user.email, "AVAILABLE", "SOLD", "")]
    assert Notification.objects.count() == 0


def test_a_move_to_the_current_status_logs_nothing(moderator):
    # given an available listing
    listing = ListingFactory(status=PropertyStatus.AVAILABLE)

    # when it is "moved" to AVAILABLE
    property_change_status(property=listing, by=moderator, status=PropertyStatus.AVAILABLE)

    # then
    assert ModerationLog.objects.count() == 0
    assert Notification.objects.count() == 0


def test_a_refused_move_logs_nothing(moderator):
    # given a sold listing
    listing = ListingFactory(status=PropertyStatus.SOLD)

    # when a forbidden move is tried
    with pytest.raises(InvalidTransition, match="cannot move from SOLD to PENDING"):
        property_change_status(property=listing, by=moderator, status=PropertyStatus.PENDING)

    # then
    assert ModerationLog.objects.count() == 0


def test_the_move_its_log_and_the_notice_are_one_transaction(moderator, monkeypatch):
    # given a pending listing, and a notice that fails to be written
    listing = ListingFactory(status=PropertyStatus.PENDING)

    def failing_send(**_arguments):
        raise RuntimeError("notifications are down")

    monkeypatch.setattr(services, "notification_send", failing_send)

    # when it is approved
    with pytest.raises(RuntimeError):
        property_change_status(property=listing, by=moderator, status=PropertyStatus.AVAILABLE)

    # then neither the move nor its log is kept
    listing.refresh_from_db()
    assert listing.status == PropertyStatus.PENDING
    assert ModerationLog.objects.count() == 0


def test_the_log_is_shown_on_the_listing_page_and_as_its_own_list(back_office, moderator):
    # given two moves of one listing
    listing = ListingFactory(status=PropertyStatus.PENDING, title="Duplex")
    property_change_status(
        property=listing, by=moderator, status=PropertyStatus.SUSPENDED, reason="Blurry photos"
    )
    property_change_status(property=listing, by=moderator, status=PropertyStatus.PENDING)

    # when the listing's page and the log's list are opened
    page = back_office.get(change_url(listing.pk))
    log_list = back_office.get(MODERATION_LOG_URL)

    # then both show the moves, newest first
    [inline] = [
        inline
        for inline in page.context["inline_admin_formsets"]
        if inline.formset.model is ModerationLog
    ]
    assert [
        (form.instance.from_status, form.instance.to_status, form.instance.reason)
        for form in inline.formset.forms
    ] == [("SUSPENDED", "PENDING", ""), ("PENDING", "SUSPENDED", "Blurry photos")]
    assert "Blurry photos" in page.content.decode()
    assert [(row.from_status, row.to_status) for row in log_list.context["cl"].result_list] == [
        ("SUSPENDED", "PENDING"),
        ("PENDING", "SUSPENDED"),
    ]


def test_the_log_cannot_be_written_by_hand(back_office, moderator):
    # given a log row
    listing = ListingFactory(status=PropertyStatus.PENDING)
    property_change_status(property=listing, by=moderator, status=PropertyStatus.AVAILABLE)
    row = ModerationLog.objects.get()

    # then its admin pages are read only
    assert back_office.get(f"{MODERATION_LOG_URL}add/").status_code == 403
    assert back_office.get(f"{MODERATION_LOG_URL}{row.pk}/delete/").status_code == 403
    page = back_office.get(f"{MODERATION_LOG_URL}{row.pk}/change/")
    assert page.status_code == 200
    assert page.context["title"] == "View moderation log"


def test_the_price_history_is_shown_read_only_on_the_listing_page(back_office, moderator):
    # given a listing whose price an admin lowered, then raised
    listing = ListingFactory(status=PropertyStatus.AVAILABLE, price=Decimal("200000"))
    property_update(property=listing, by=moderator, changes={"price": Decimal("180000")})
    property_update(property=listing, by=moderator, changes={"price": Decimal("190000")})

    # when the listing's page is opened
    page = back_office.get(change_url(listing.pk))

    # then its price history is an inline, newest first, that adds and changes nothing
    [inline] = [
        inline
        for inline in page.context["inline_admin_formsets"]
        if inline.formset.model is PriceChange
    ]
    assert [
        (form.instance.previous_price, form.instance.price) for form in inline.formset.forms
    ] == [
        (Decimal("180000.00"), Decimal("190000.00")),
        (Decimal("200000.00"), Decimal("180000.00")),
    ]
    assert inline.has_add_permission is False and inline.has_change_permission is False
