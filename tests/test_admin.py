import pytest
from django.apps import apps
from django.contrib import admin
from django.utils import timezone

from accounts.models import UserType
from listings.models import DeletedListing, PriceChange, PropertyDailyViews, PropertyViewsBatch
from notifications.models import Alert, AlertDigest
from tests.factories import (
    AdminFactory,
    AppointmentFactory,
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

PROJECT_APPS = ["accounts", "listings", "media_app", "appointments", "favorites", "notifications"]


def test_every_concrete_model_of_the_project_is_registered_in_the_admin():
    # given every concrete model of the project's apps whose table Django manages (not
    # PropertyRow, a read-only view of listings the admin shows as Property)
    models = [
        model
        for app_label in PROJECT_APPS
        for model in apps.get_app_config(app_label).get_models()
        if not model._meta.proxy and model._meta.managed
    ]

    # then each has an admin page
    missing = [model.__name__ for model in models if not admin.site.is_registered(model)]
    assert missing == []


@pytest.fixture
def every_kind_of_row(db):
    TypeSpecificRecordFactory(kind="apartment")
    ImageFactory()
    VideoFactory()
    AppointmentFactory()
    FavoriteFactory()
    NotificationFactory()
    WebhookEndpointFactory()
    listing = ListingFactory()
    PriceChange.objects.create(property=listing, previous_price="200000", price="190000")
    Alert.objects.create(saved_search=SavedSearchFactory(), property=listing, digest_due=True)
    AlertDigest.objects.create(frequency="DAILY", due_at=timezone.now())
    PropertyDailyViews.objects.create(property=listing, day=timezone.localdate(), views=3)
    PropertyViewsBatch.objects.create(id="batch00000000000000000001")
    DeletedListing.objects.create(id="gone000000000000000000001")


@pytest.mark.django_db
def test_an_admin_opens_every_changelist_and_change_page(client, every_kind_of_row):
    # given a signed-in ADMIN user
    client.force_login(AdminFactory().user)

    for model in admin.site._registry:
        meta = model._meta
        # when the changelist and the first row's change page are opened
        changelist = client.get(f"/admin/{meta.app_label}/{meta.model_name}/")
        # then both render
        assert changelist.status_code == 200, meta.label
        row = model._default_manager.first()
        if row is not None:
            change = client.get(f"/admin/{meta.app_label}/{meta.model_name}/{row.pk}/change/")
            assert change.status_code == 200, meta.label


@pytest.mark.django_db
@pytest.mark.parametrize("user_type", [UserType.CUSTOMER, UserType.OWNER])
def test_customers_and_owners_are_sent_to_the_admin_login(client, user_type):
    # given a signed-in user who is not an ADMIN
    client.force_login(UserFactory(user_type=user_type))

    # when they open the admin
    response = client.get("/admin/")

    # then they are sent to log in as someone else
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")


@pytest.mark.django_db
def test_createsuperuser_makes_an_admin_user_with_its_admin_record():
    # when
    from django.core.management import call_command

    call_command("createsuperuser", email="Root@Example.com", interactive=False, verbosity=0)

    # then
    from accounts.models import User

    user = User.objects.get(email="root@example.com")
    assert user.user_type == UserType.ADMIN
    assert user.is_staff is True
    assert user.is_superuser is True
    assert user.admin.user_id == user.id


@pytest.mark.django_db
def test_staff_flag_alone_does_not_open_the_admin(client):
    # given an OWNER who somehow carries is_staff
    client.force_login(UserFactory(user_type=UserType.OWNER, is_staff=True))

    # when
    response = client.get("/admin/")

    # then only userType ADMIN counts
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
