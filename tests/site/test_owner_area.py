"""The owner area: my listings, the two-step creation, edit, status, media, visit requests."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from appointments.models import AppointmentStatus
from listings.models import Property, PropertyStatus, TransactionType, TypeSpecificRecord
from media_app.models import Image, Video
from notifications.models import Notification
from tests.factories import AppointmentFactory, ImageFactory, PropertyFactory
from tests.media.support import mp4_bytes
from tests.site.conftest import house, jpeg_upload

pytestmark = pytest.mark.django_db

COMMON_FIELDS = {
    "title": "Stone cottage",
    "description": "Thick walls, cool in summer.",
    "transaction_type": "SALE",
    "price": "185000",
    "area": "96.5",
    "municipality": "Segovia",
    "address": "2 Calle Real",
    "latitude": "40.9429",
    "longitude": "-4.1088",
}
HOUSE_FIELDS = {
    "kind": "house",
    "rooms": "5",
    "bedrooms": "3",
    "bathrooms": "2",
    "swimming_pool": "False",
    "parking_space": "True",
}


@pytest.mark.parametrize(
    "path",
    [
        "/en/owner/listings/",
        "/en/owner/listings/new/",
        "/en/owner/visits/",
    ],
)
def test_customers_cannot_open_the_owner_area(customer_session, path):
    response = customer_session.get(path)

    assert response.status_code == 403
    assert "The owner area is for owner accounts." in response.text


def test_anonymous_visitors_are_asked_to_log_in_for_the_owner_area(client):
    response = client.get("/en/owner/listings/")

    assert response.url == "/en/accounts/login/?next=/en/owner/listings/"


def test_create_a_listing_in_two_steps(owner_session, owner, category):
    # step 1: the common fields
    step_one = owner_session.post(
        "/en/owner/listings/new/", {**COMMON_FIELDS, "category": category.pk}
    )
    listing = Property.objects.get()
    # step 2: the kind, then its form
    chooser = owner_session.get(f"/en/owner/listings/{listing.pk}/details/")
    house_form = owner_session.get(f"/en/owner/listings/{listing.pk}/details/?kind=house")
    step_two = owner_session.post(f"/en/owner/listings/{listing.pk}/details/", HOUSE_FIELDS)

    assert step_one.status_code == 302
    assert step_one.url == f"/en/owner/listings/{listing.pk}/details/"
    assert (listing.owner, listing.category, listing.status) == (
        owner.owner,
        category,
        PropertyStatus.PENDING,
    )
    assert (listing.title, str(listing.price), str(listing.area)) == (
        "Stone cottage",
        "185000.00",
        "96.50",
    )
    assert 'name="kind"' in chooser.text
    assert 'name="bedrooms"' in house_form.text
    assert 'name="land_type"' not in house_form.text
    assert step_two.status_code == 302
    assert step_two.url == f"/en/owner/listings/{listing.pk}/media/"
    record = TypeSpecificRecord.objects.get(property=listing)
    assert (record.kind, record.rooms, record.bedrooms, record.swimming_pool) == (
        "house",
        5,
        3,
        False,
    )


def test_step_one_refuses_values_out_of_range(owner_session, category):
    response = owner_session.post(
        "/en/owner/listings/new/",
        {**COMMON_FIELDS, "category": category.pk, "latitude": "91", "price": "-1"},
    )

    assert response.status_code == 400
    assert Property.objects.count() == 0
    assert "Ensure this value is less than or equal to 90." in response.text
    assert "Ensure this value is greater than or equal to 0." in response.text


def test_step_two_requires_every_fact_of_the_kind(owner_session, owner):
    listing = PropertyFactory(owner=owner.owner, status=PropertyStatus.PENDING)

    response = owner_session.post(
        f"/en/owner/listings/{listing.pk}/details/", {"kind": "land", "serviced": "True"}
    )

    assert response.status_code == 400
    assert "This field is required." in response.text
    assert TypeSpecificRecord.objects.count() == 0


def test_step_two_edits_an_existing_record(owner_session, owner):
    listing = house(owner)

    response = owner_session.post(
        f"/en/owner/listings/{listing.pk}/details/", {**HOUSE_FIELDS, "bedrooms": "4"}
    )

    assert response.status_code == 302
    assert TypeSpecificRecord.objects.get(property=listing).bedrooms == 4


def test_my_listings_show_each_status_and_only_mine(owner_session, owner):
    house(owner, title="Waiting one", status=PropertyStatus.PENDING)
    house(owner, title="Live one")
    house(title="Someone else's")

    response = owner_session.get("/en/owner/listings/")

    page = response.text
    assert "Waiting one" in page and "Live one" in page
    assert "Someone else&#x27;s" not in page
    assert "Pending review" in page
    assert '<span class="status status--available">Available</span>' in page
    assert "Mark sold" in page


def test_another_owners_listing_is_404_in_the_owner_area(owner_session, other_owner):
    theirs = house(other_owner)

    for path in ("edit/", "details/", "media/"):
        assert owner_session.get(f"/en/owner/listings/{theirs.pk}/{path}").status_code == 404
    assert (
        owner_session.post(
            f"/en/owner/listings/{theirs.pk}/status/", {"status": "SOLD"}
        ).status_code
        == 404
    )


def test_edit_changes_the_common_fields(owner_session, owner, category):
    listing = house(owner, title="Old title", price=100000)

    response = owner_session.post(
        f"/en/owner/listings/{listing.pk}/edit/",
        {**COMMON_FIELDS, "title": "New title", "price": "95000", "category": category.pk},
    )

    listing.refresh_from_db()
    assert response.status_code == 302
    assert (listing.title, str(listing.price), listing.category) == (
        "New title",
        "95000.00",
        category,
    )


def test_mark_sold_follows_the_state_machine(owner_session, owner):
    for_sale = house(owner, title="Sold soon")
    for_rent = house(owner, transaction_type=TransactionType.RENT)

    sold = owner_session.post(f"/en/owner/listings/{for_sale.pk}/status/", {"status": "SOLD"})
    wrong = owner_session.post(
        f"/en/owner/listings/{for_rent.pk}/status/", {"status": "SOLD"}, follow=True
    )

    for_sale.refresh_from_db()
    for_rent.refresh_from_db()
    assert sold.status_code == 302
    assert for_sale.status == PropertyStatus.SOLD
    assert for_rent.status == PropertyStatus.AVAILABLE
    assert "cannot move from AVAILABLE to SOLD" in wrong.text


def test_owner_cannot_approve_their_own_listing(owner_session, owner):
    pending = house(owner, status=PropertyStatus.PENDING)

    response = owner_session.post(
        f"/en/owner/listings/{pending.pk}/status/", {"status": "AVAILABLE"}, follow=True
    )

    pending.refresh_from_db()
    assert pending.status == PropertyStatus.PENDING
    assert "Only an administrator may move a listing from PENDING to AVAILABLE." in response.text


def test_upload_reorder_and_delete_photos(owner_session, owner):
    listing = house(owner, status=PropertyStatus.PENDING)

    first = owner_session.post(
        f"/en/owner/listings/{listing.pk}/photos/",
        {"photo-file": jpeg_upload("a.jpg"), "photo-title": "Kitchen"},
    )
    owner_session.post(
        f"/en/owner/listings/{listing.pk}/photos/",
        {"photo-file": jpeg_upload("b.jpg"), "photo-title": "Garden"},
    )
    kitchen, garden = Image.objects.filter(property=listing).order_by("position")
    moved = owner_session.post(
        f"/en/owner/listings/{listing.pk}/photos/{garden.pk}/move/", {"position": "0"}
    )
    order_after_move = list(
        Image.objects.filter(property=listing).order_by("position").values_list("title", flat=True)
    )
    deleted = owner_session.post(f"/en/owner/listings/{listing.pk}/photos/{garden.pk}/delete/")
    page = owner_session.get(f"/en/owner/listings/{listing.pk}/media/")

    assert first.status_code == 302
    assert sorted(kitchen.thumbnails) == ["1200", "400"]
    assert moved.status_code == 302
    assert order_after_move == ["Garden", "Kitchen"]
    assert deleted.status_code == 302
    assert list(Image.objects.filter(property=listing).values_list("title", flat=True)) == [
        "Kitchen"
    ]
    assert 'alt="Kitchen"' in page.text


def test_an_upload_that_is_not_an_image_shows_the_services_message(owner_session, owner):
    listing = house(owner)
    fake = SimpleUploadedFile("photo.jpg", b"<html>not a photo</html>", content_type="image/jpeg")

    response = owner_session.post(f"/en/owner/listings/{listing.pk}/photos/", {"photo-file": fake})

    assert response.status_code == 415
    assert "The file is not a JPEG, PNG or WebP image." in response.text
    assert Image.objects.count() == 0


def test_someone_elses_photo_cannot_be_deleted_through_my_listing(owner_session, owner):
    mine = house(owner)
    theirs = ImageFactory(property=house())

    response = owner_session.post(f"/en/owner/listings/{mine.pk}/photos/{theirs.pk}/delete/")

    assert response.status_code == 404
    assert Image.objects.filter(pk=theirs.pk).exists()


def test_owner_confirms_then_completes_an_incoming_visit(owner_session, owner, customer):
    visit = AppointmentFactory(user=customer, property=house(owner, title="Open house"))

    page = owner_session.get("/en/owner/visits/")
    confirmed = owner_session.post(f"/en/visits/{visit.pk}/confirm/", {"next": "/en/owner/visits/"})
    visit.refresh_from_db()
    status_after_confirm = visit.status
    owner_session.post(f"/en/visits/{visit.pk}/complete/", {"next": "/en/owner/visits/"})

    visit.refresh_from_db()
    assert "Open house" in page.text
    assert f'action="/en/visits/{visit.pk}/confirm/"' in page.text
    assert confirmed.url == "/en/owner/visits/"
    assert status_after_confirm == AppointmentStatus.CONFIRMED
    assert visit.status == AppointmentStatus.COMPLETED
    assert list(
        Notification.objects.filter(user=customer)
        .order_by("created_at")
        .values_list("title", flat=True)
    ) == ["Visit confirmed", "Visit completed"]


def test_the_location_map_of_the_listing_form_needs_map_tiles(owner_session, settings):
    without_tiles = owner_session.get("/en/owner/listings/new/")
    settings.MAP_TILE_URL = "https://tiles.example.com/{z}/{x}/{y}.png"
    with_tiles = owner_session.get("/en/owner/listings/new/")

    assert "data-location-map" not in without_tiles.text
    assert "location-picker.js" not in without_tiles.text
    assert 'data-tile-url="https://tiles.example.com/{z}/{x}/{y}.png"' in with_tiles.text
    assert "/static/js/location-picker.js" in with_tiles.text
    assert '<input type="radio" name="transaction_type" value="SALE"' in without_tiles.text
    assert "Select an option" not in without_tiles.text


def test_upload_and_delete_a_video(owner_session, owner):
    listing = house(owner)
    tour = SimpleUploadedFile("tour.mp4", mp4_bytes(), content_type="video/mp4")

    uploaded = owner_session.post(
        f"/en/owner/listings/{listing.pk}/videos/", {"video-file": tour, "video-title": "Tour"}
    )
    video = Video.objects.get(property=listing)
    page = owner_session.get(listing.get_absolute_url())
    deleted = owner_session.post(f"/en/owner/listings/{listing.pk}/videos/{video.pk}/delete/")

    assert uploaded.status_code == 302
    assert (video.title, video.content_type) == ("Tour", "video/mp4")
    assert f'<source src="{video.file.url}" type="video/mp4">' in page.text
    assert deleted.status_code == 302
    assert Video.objects.filter(property=listing).count() == 0
