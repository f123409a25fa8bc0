"""A listing's change page: its inlines, and its edits going through the listing services."""

import pytest

from listings.admin import SUSPEND_REASON_REQUIRED
from listings.models import ModerationLog, Property, PropertyStatus, PropertyType, TransactionType
from media_app.models import Image
from notifications.models import Notification, NotificationStatus
from tests.admin.support import LISTINGS_URL, change_form_data, change_url, messages_of
from tests.factories import (
    CategoryFactory,
    ImageFactory,
    ListingFactory,
    OwnerFactory,
    TypeSpecificRecordFactory,
    VideoFactory,
)

pytestmark = pytest.mark.django_db


def inline_of(response, model) -> object:
    [inline] = [
        inline
        for inline in response.context["inline_admin_formsets"]
        if inline.formset.model is model
    ]
    return inline


def test_the_type_record_inline_shows_only_the_columns_of_its_kind(back_office):
    # given a listing with a land record
    record = TypeSpecificRecordFactory(kind=PropertyType.LAND)

    # when its change page opens
    response = back_office.get(change_url(record.property_id))

    # then the record shows its kind (read only) and the land columns alone
    inline = inline_of(response, type(record))
    assert list(inline.formset.forms[0].fields) == [
        "serviced",
        "land_type",
        "id",
        "DELETE",
        "property",
    ]
    assert inline.readonly_fields == ["kind"]


def test_the_photos_inline_reorders_and_deletes_through_the_media_services(
    back_office, django_capture_on_commit_callbacks
):
    # given a listing with three photos and a video
    listing = ListingFactory()
    kitchen = ImageFactory(property=listing, title="Kitchen", position=0)
    garden = ImageFactory(property=listing, title="Garden", position=1)
    ImageFactory(property=listing, title="Hall", position=2)
    VideoFactory(property=listing)
    url = change_url(listing.pk)
    data = change_form_data(back_office, url)
    assert [data[f"images-{index}-title"] for index in (0, 1, 2)] == ["Kitchen", "Garden", "Hall"]

    # when the hall is made the cover, the garden retitled and the kitchen deleted
    data["images-2-position"] = "0"
    data["images-1-title"] = "Back garden"
    data["images-0-DELETE"] = "on"
    with django_capture_on_commit_callbacks(execute=True):
        response = back_office.post(url, data)

    # then the gallery closes up around the moves, and the kitchen's file is gone
    assert response.status_code == 302
    assert list(Image.objects.filter(property=listing).values_list("title", "position")) == [
        ("Hall", 0),
        ("Back garden", 1),
    ]
    assert not kitchen.file.storage.exists(kitchen.file.name)
    assert garden.file.storage.exists(garden.file.name)


def test_the_photos_inline_shows_a_preview_with_alt_text(back_office):
    # given a photo with its 400 px thumbnail
    image = ImageFactory(title="Kitchen", thumbnails={"400": "properties/x/kitchen-400.jpg"})

    # when its listing's page opens
    body = back_office.get(change_url(image.property_id)).content.decode()

    # then
    assert (
        '<img src="/media/properties/x/kitchen-400.jpg" alt="Kitchen" height="90" loading="lazy">'
    ) in body


def test_status_is_read_only_and_changes_through_the_state_machine(back_office, moderator):
    # given a pending listing's change page
    listing = ListingFactory(status=PropertyStatus.PENDING, title="Attic")
    url = change_url(listing.pk)
    response = back_office.get(url)
    form = response.context["adminform"].form
    assert "status" not in form.fields
    assert form.fields["new_status"].choices == [
        ("", "Keep Pending"),
        ("AVAILABLE", "Available"),
        ("SUSPENDED", "Suspended"),
    ]

    # when "Change status to" Available is saved with a note
    data = change_form_data(back_office, url)
    response = back_office.post(url, {**data, "new_status": "AVAILABLE", "status_reason": "Ok"})

    # then the service moved it, logged it and told the owner
    assert response.status_code == 302
    listing.refresh_from_db()
    assert listing.status == PropertyStatus.AVAILABLE
    assert list(
        ModerationLog.objects.values_list("actor_id", "from_status", "to_status", "reason")
    ) == [(moderator.pk, "PENDING", "AVAILABLE", "Ok")]
    assert list(Notification.objects.values_list("status", "title")) == [
        (NotificationStatus.SUCCESS, "Listing approved")
    ]


def test_a_status_the_state_machine_does_not_list_is_not_offered(back_office):
    # given a sold listing
    listing = ListingFactory(status=PropertyStatus.SOLD, transaction_type=TransactionType.SALE)
    url = change_url(listing.pk)
    data = change_form_data(back_office, url)

    # when SUSPENDED is posted anyway
    response = back_office.post(url, {**data, "new_status": "SUSPENDED", "status_reason": "x"})

    # then the form refuses it and nothing changes
    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "new_status": ["Select a valid choice. SUSPENDED is not one of the available choices."]
    }
    listing.refresh_from_db()
    assert listing.status == PropertyStatus.SOLD
    assert ModerationLog.objects.count() == 0


def test_suspending_from_the_form_needs_a_reason(back_office):
    # given an available listing
    listing = ListingFactory(status=PropertyStatus.AVAILABLE)
    url = change_url(listing.pk)
    data = change_form_data(back_office, url)

    # when it is suspended without a reason
    response = back_office.post(url, {**data, "new_status": "SUSPENDED"})

    # then
    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {"status_reason": [SUSPEND_REASON_REQUIRED]}
    listing.refresh_from_db()
    assert listing.status == PropertyStatus.AVAILABLE


def test_a_rule_of_the_update_service_is_shown_and_nothing_is_saved(back_office):
    # given a sold listing, whose transaction type may not change (listings.services)
    listing = ListingFactory(
        status=PropertyStatus.SOLD, transaction_type=TransactionType.SALE, title="Sold"
    )
    url = change_url(listing.pk)
    data = change_form_data(back_office, url)

    # when the form changes the title and the transaction type
    response = back_office.post(url, {**data, "title": "Renamed", "transaction_type": "RENT"})

    # then the service's refusal is shown and neither change is kept
    assert response.status_code == 302
    assert response["Location"] == url
    assert messages_of(response) == [
        "The transaction type of a sold or rented listing cannot change."
    ]
    listing.refresh_from_db()
    assert (listing.title, listing.transaction_type) == ("Sold", TransactionType.SALE)


def test_common_fields_are_saved_through_the_update_service(back_office):
    # given a listing
    listing = ListingFactory(title="Before", price="100000.00")
    url = change_url(listing.pk)
    data = change_form_data(back_office, url)

    # when its title and price are changed
    response = back_office.post(url, {**data, "title": "After", "price": "95000.00"})

    # then
    assert response.status_code == 302
    listing.refresh_from_db()
    assert (listing.title, str(listing.price), listing.status) == (
        "After",
        "95000.00",
        PropertyStatus.AVAILABLE,
    )


def test_an_admin_adds_a_listing_for_an_owner_and_it_starts_pending(back_office):
    # given an owner and a category
    owner = OwnerFactory()
    category = CategoryFactory(name="Lofts")
    form = {
        "title": "New loft",
        "description": "Open plan.",
        "category": category.pk,
        "owner": owner.pk,
        "address": "1 Calle Mayor",
        "municipality": "Madrid",
        "latitude": "40.4",
        "longitude": "-3.7",
        "transaction_type": "RENT",
        "price": "1200",
        "area": "80",
    }
    management = {
        f"{prefix}-{name}": value
        for prefix in ("type_record", "images", "videos", "moderation_logs", "price_changes")
        for name, value in (("TOTAL_FORMS", "0"), ("INITIAL_FORMS", "0"))
    }

    # when it is added from the back office, with its house record
    record = {
        "type_record-TOTAL_FORMS": "1",
        "type_record-0-kind": "house",
        "type_record-0-rooms": "4",
        "type_record-0-bedrooms": "2",
        "type_record-0-bathrooms": "1",
        "type_record-0-swimming_pool": "true",
        "type_record-0-parking_space": "false",
    }
    response = back_office.post(f"{LISTINGS_URL}add/", {**form, **management, **record})

    # then it exists, PENDING, with its record
    assert response.status_code == 302
    listing = Property.objects.get(title="New loft")
    assert (listing.status, listing.owner_id, listing.type) == (
        PropertyStatus.PENDING,
        owner.pk,
        "house",
    )


def test_a_record_that_does_not_fit_its_kind_is_a_form_error(back_office):
    # given a listing without a record
    listing = ListingFactory()
    url = change_url(listing.pk)
    data = change_form_data(back_office, url)

    # when a house record is added with a land column filled
    record = {
        "type_record-TOTAL_FORMS": "1",
        "type_record-0-kind": "house",
        "type_record-0-rooms": "4",
        "type_record-0-bedrooms": "2",
        "type_record-0-bathrooms": "1",
        "type_record-0-swimming_pool": "true",
        "type_record-0-parking_space": "false",
        "type_record-0-land_type": "FOREST",
    }
    response = back_office.post(url, {**data, **record})

    # then the shape rule is reported on the field, and nothing is written
    assert response.status_code == 200
    assert response.context["errors"] == [["A house record does not have this."]]
    listing.refresh_from_db()
    assert listing.type is None


def test_the_type_record_is_changed_through_the_record_service(back_office):
    # given a listing with a house record
    record = TypeSpecificRecordFactory(kind=PropertyType.HOUSE)
    url = change_url(record.property_id)
    data = change_form_data(back_office, url)

    # when its bedrooms are changed
    response = back_office.post(url, {**data, "type_record-0-bedrooms": "5"})

    # then
    assert response.status_code == 302
    record.refresh_from_db()
    assert (record.kind, record.bedrooms, record.rooms) == ("house", 5, 5)


def test_a_yes_no_column_of_the_kind_left_unknown_is_a_form_error(back_office):
    # given a listing with a house record
    record = TypeSpecificRecordFactory(kind=PropertyType.HOUSE)
    url = change_url(record.property_id)
    data = change_form_data(back_office, url)

    # when its swimming pool is set to "Unknown"
    response = back_office.post(url, {**data, "type_record-0-swimming_pool": "unknown"})

    # then the form says so (the database would refuse it) and nothing changes
    assert response.status_code == 200
    assert response.context["errors"] == [["A house record needs this."]]
    record.refresh_from_db()
    assert record.swimming_pool is True
