"""Who enters the back office (D6): ADMIN users only, on every page; and every page renders."""

import pytest
from django.contrib import admin
from django.urls import reverse
from django.utils import timezone

from accounts.models import UserType
from accounts.services import access_token_issue
from listings.models import (
    DeletedListing,
    MapCell,
    Place,
    PropertyDailyViews,
    PropertyStatus,
    PropertyViewsBatch,
    PublicListingDay,
    PublicListingGroup,
)
from listings.services import property_change_status, property_update
from media_app.models import Image
from notifications.alerts import alert_digest_schedule
from notifications.models import (
    Alert,
    AlertFrequency,
    DeliveryErrorKind,
    EmailPreferences,
    WebhookAttempt,
    WebhookDelivery,
)
from tests.factories import (
    AppointmentFactory,
    CategoryFactory,
    CustomerFactory,
    FavoriteFactory,
    ImageFactory,
    ListingFactory,
    NotificationFactory,
    SavedSearchFactory,
    TypeSpecificRecordFactory,
    UserFactory,
    VideoFactory,
    WebhookEndpointFactory,
)

pytestmark = pytest.mark.django_db


def admin_urls(name: str, *args) -> str:
    return reverse(f"admin:{name}", args=args)


def every_model_page() -> list[str]:
    """The changelist, add and change URLs of every registered model, and the indexes."""
    urls = [admin_urls("index")]
    for model in admin.site._registry:
        meta = model._meta
        prefix = f"{meta.app_label}_{meta.model_name}"
        urls += [
            admin_urls("app_list", meta.app_label),
            admin_urls(f"{prefix}_changelist"),
            admin_urls(f"{prefix}_add"),
            # Refused before the row is looked up: any id will do.
            admin_urls(f"{prefix}_change", "a000000000000000000000000"),
            admin_urls(f"{prefix}_delete", "a000000000000000000000000"),
        ]
    return sorted(set(urls))


@pytest.fixture
def every_kind_of_row(moderator):
    """At least one row of every registered model, a moderation log entry included."""
    record = TypeSpecificRecordFactory(kind="apartment", property__status=PropertyStatus.PENDING)
    # An admin's webhook for every event: the status change below gives it an event, a
    # delivery and the delivery's task row.
    WebhookEndpointFactory(user=moderator, events=["*"])
    property_change_status(
        property=record.property, by=moderator, status=PropertyStatus.AVAILABLE, reason=""
    )
    WebhookAttempt.objects.create(
        delivery=WebhookDelivery.objects.first(),
        attempted_at=timezone.now(),
        status_code=500,
        duration_ms=12,
        error_kind=DeliveryErrorKind.HTTP_ERROR,
    )
    CategoryFactory(name="Offices")
    ImageFactory(property=record.property)
    VideoFactory(property=record.property)
    AppointmentFactory(property=record.property)
    FavoriteFactory(property=record.property)
    NotificationFactory(property=record.property)
    saved_search = SavedSearchFactory()
    # A price change (its history row), an alert as the worker makes them, and the daily
    # digest the alert waits for.
    new_price = record.property.price + 1
    property_update(property=record.property, by=moderator, changes={"price": new_price})
    Alert.objects.create(saved_search=saved_search, property=record.property, digest_due=True)
    alert_digest_schedule(frequency=AlertFrequency.DAILY)
    EmailPreferences.objects.create(user=UserFactory(), visits=False)
    # A day of counted views, the batch that added it, and a deleted listing's id.
    PropertyDailyViews.objects.create(property=record.property, day=timezone.localdate(), views=3)
    PropertyViewsBatch.objects.create(id="batch00000000000000000001")
    DeletedListing.objects.create(id="gone000000000000000000001")
    WebhookEndpointFactory()
    CustomerFactory()
    access_token_issue(user=moderator)
    if not PublicListingGroup.objects.exists():
        # PostgreSQL's triggers group the public listing above; other databases keep no
        # groups (listings.search.groups), so one is written for the admin's pages to show.
        PublicListingGroup.objects.create(
            municipality_key="madrid",
            category_key="",
            bedrooms_key=-1,
            transaction_type="SALE",
            kind="apartment",
            price_band=67,
            listings=1,
        )
    if not PublicListingDay.objects.exists():
        # The same for the days of the deep pages (listings.search.days).
        PublicListingDay.objects.create(day=timezone.localdate(), listings=1)
    if not Place.objects.exists():
        # The same for the towns of the place suggestions (listings.places).
        Place.objects.create(key="madrid", name="Madrid", folded="madrid", listings=1)
    if not MapCell.objects.exists():
        # And for the cells of the map clusters (listings.search.cells).
        MapCell.objects.create(
            level=9,
            row=229,
            column=-22,
            transaction_type="SALE",
            kind="apartment",
            listings=1,
            latitude_sum=40.4168,
            longitude_sum=-3.7038,
            west=-3.7038,
            south=40.4168,
            east=-3.7038,
            north=40.4168,
            lowest_price="250000.00",
        )


@pytest.mark.parametrize("user_type", [UserType.CUSTOMER, UserType.OWNER])
def test_customers_and_owners_open_no_admin_page(client, user_type):
    # given a signed-in CUSTOMER or OWNER (with the staff flag, which must not matter)
    client.force_login(UserFactory(user_type=user_type, is_staff=True))

    for url in every_model_page():
        # when they open any admin page
        response = client.get(url)

        # then they are sent to the admin login
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/?next="), url


def test_an_anonymous_visitor_is_sent_to_log_in_everywhere(client):
    for url in every_model_page():
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith("/admin/login/?next="), url


def test_a_post_by_an_owner_changes_nothing(client):
    # given an OWNER and a pending listing
    listing = ListingFactory(status=PropertyStatus.PENDING)
    client.force_login(listing.owner.user)

    # when they post the Approve action
    response = client.post(
        "/admin/listings/property/",
        {"action": "approve", "_selected_action": [listing.pk], "index": "0"},
    )

    # then they are sent to log in and the listing is still pending
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
    listing.refresh_from_db()
    assert listing.status == PropertyStatus.PENDING


def test_an_admin_opens_every_changelist_add_and_change_page(back_office, every_kind_of_row):
    for model, model_admin in admin.site._registry.items():
        meta = model._meta
        prefix = f"{meta.app_label}_{meta.model_name}"
        # the changelist renders
        response = back_office.get(admin_urls(f"{prefix}_changelist"))
        assert response.status_code == 200, meta.label
        # the add page renders where adding is offered here
        if model_admin.has_add_permission(response.wsgi_request):
            assert back_office.get(admin_urls(f"{prefix}_add")).status_code == 200, meta.label
        # the first row's change page renders
        row = model._default_manager.first()
        assert row is not None, meta.label
        response = back_office.get(admin_urls(f"{prefix}_change", row.pk))
        assert response.status_code == 200, meta.label


def test_an_admin_opens_the_delete_page_of_a_listing_with_everything_on_it(
    back_office, every_kind_of_row
):
    # given a listing with a record, media, a visit, a favorite, notices and a log entry
    listing = Image.objects.get().property

    # when its delete page is opened
    response = back_office.get(admin_urls("listings_property_delete", listing.pk))

    # then it lists what goes with it, and read-only pages do not block the deletion
    assert response.status_code == 200
    assert response.context["perms_lacking"] == set()
    assert response.context["protected"] == []
