"""The listing page: gallery, videos, facts, map, favorite toggle and visit request."""

import datetime
import re

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from appointments.models import Appointment, AppointmentStatus
from favorites.models import Favorite
from listings.models import PriceChange, PropertyStatus
from tests.factories import (
    FavoriteFactory,
    ImageFactory,
    PropertyFactory,
    TypeSpecificRecordFactory,
    VideoFactory,
)
from tests.site.conftest import house

pytestmark = pytest.mark.django_db


def stored(name: str) -> str:
    """Store a small file under `name`; returns the name the storage chose."""
    return default_storage.save(name, ContentFile(b"webp"))


def gallery_html(response) -> str:
    """The gallery section of a listing page."""
    return response.text.split('id="photos-heading"')[1].split("</section>")[0]


def stage_image(response) -> str:
    """The <img> tag of the gallery's stage (the cover, or the only photo)."""
    stage = gallery_html(response).split("data-gallery-stage")[1].split("</a>")[0]
    return re.search(r"<img [^>]+>", stage, flags=re.DOTALL).group(0)


def thumbnails(response) -> list[tuple[str, str]]:
    """(the <a> tag, its <img> tag) of each thumbnail of the gallery, in page order."""
    pattern = r'(<a class="gallery__thumb"[^>]+>)\s*(<img [^>]+>)'
    return re.findall(pattern, gallery_html(response), flags=re.DOTALL)


def test_gallery_follows_the_owners_order_with_srcset_sizes_and_alt_text(client):
    # given photos stored out of order, the first in position with 400 and 1200 px copies
    listing = house(title="Sunny house")
    small, large = stored("p/a_400.webp"), stored("p/a_1200.webp")
    garden = ImageFactory(property=listing, position=2, title="Garden")
    front = ImageFactory(
        property=listing,
        position=0,
        title="Front door",
        width=1600,
        height=1200,
        thumbnails={"400": small, "1200": large},
    )
    untitled = ImageFactory(property=listing, position=1, title=None)

    # when
    response = client.get(listing.get_absolute_url())

    # then the stage shows the cover: its copies in srcset, eager and first to load
    assert response.status_code == 200
    stage = stage_image(response)
    assert f'src="/media/{small}"' in stage
    assert f'srcset="/media/{small} 400w, /media/{large} 1200w"' in stage
    assert 'sizes="(min-width: 50rem) 48rem, calc(100vw - 2rem)"' in stage
    assert 'width="1600" height="1200"' in stage
    assert 'fetchpriority="high"' in stage
    assert 'loading="lazy"' not in stage
    assert 'alt="Front door"' in stage
    # and the thumbnails follow the owner's order, lazily, each a link to its original
    thumbs = thumbnails(response)
    assert [link.split('href="')[1].split('"')[0] for link, _image in thumbs] == [
        front.file.url,
        untitled.file.url,
        garden.file.url,
    ]
    full = f"/media/{small} 400w, /media/{large} 1200w, {front.file.url} 1600w"
    assert f'data-full-srcset="{full}"' in thumbs[0][0]
    assert 'aria-current="true"' in thumbs[0][0]
    assert f'srcset="/media/{small} 400w, /media/{large} 1200w" sizes="7rem"' in thumbs[0][1]
    assert 'alt="Photo 2 of Sunny house"' in thumbs[1][1]
    assert 'alt="Garden"' in thumbs[2][1]
    assert all('loading="lazy"' in image for _link, image in thumbs)
    assert 'width="64" height="48"' in thumbs[2][1]
    # and the full-size view waits in a dialog
    assert "<dialog" in gallery_html(response)


def test_a_copy_is_described_no_wider_than_its_photo(client):
    # given a photo 300 px wide: both its copies are 300 px wide (media_app.images)
    listing = house()
    small, large = stored("p/b_400.webp"), stored("p/b_1200.webp")
    ImageFactory(property=listing, width=300, height=200, thumbnails={"400": small, "1200": large})

    # when
    response = client.get(listing.get_absolute_url())

    # then one width is named once, with the first of its files
    assert f'srcset="/media/{small} 300w"' in stage_image(response)
    assert thumbnails(response) == []


def test_files_missing_from_the_storage_are_never_linked(client):
    # given a photo whose 1200 px copy is gone, one with no file left, and a whole one
    listing = house(title="Sunny house")
    small = stored("p/c_400.webp")
    partial = ImageFactory(
        property=listing,
        position=0,
        width=1600,
        height=1200,
        thumbnails={"400": small, "1200": "p/c_1200.webp"},
    )
    gone = ImageFactory(property=listing, position=1, thumbnails={"400": "p/d_400.webp"})
    default_storage.delete(gone.file.name)
    whole = ImageFactory(property=listing, position=2, title="Garden")

    # when
    response = client.get(listing.get_absolute_url())

    # then the page names only files that are there
    gallery = gallery_html(response)
    assert response.status_code == 200
    assert "c_1200" not in gallery
    assert "d_400" not in gallery
    assert gone.file.url not in gallery
    assert f'srcset="/media/{small} 400w"' in stage_image(response)
    assert [link.split('href="')[1].split('"')[0] for link, _image in thumbnails(response)] == [
        partial.file.url,
        whole.file.url,
    ]


def test_a_listing_whose_photo_files_are_missing_shows_the_placeholder(client):
    # given a listing whose only photo lost its file and its copy
    listing = house()
    image = ImageFactory(property=listing, thumbnails={"400": "p/e_400.webp"})
    default_storage.delete(image.file.name)

    # when
    response = client.get(listing.get_absolute_url())

    # then the gallery says so, with no picture to fetch
    gallery = gallery_html(response)
    assert response.status_code == 200
    assert 'data-testid="gallery-placeholder">No photos yet.</p>' in gallery
    assert "<img" not in gallery
    assert "<dialog" not in gallery


def test_a_listing_without_photos_shows_the_placeholder(client):
    response = client.get(house().get_absolute_url())

    gallery = gallery_html(response)
    assert 'data-testid="gallery-placeholder">No photos yet.</p>' in gallery
    assert "<img" not in gallery


def test_page_shows_videos_every_fact_the_category_and_a_map_marker(client):
    record = TypeSpecificRecordFactory(
        kind="apartment",
        property__title="Flat with lift",
        property__category__name="Luxury",
        property__price=180000,
        property__latitude=41.39,
        property__longitude=2.17,
    )
    listing = record.property
    video = VideoFactory(property=listing, title="Walkthrough")

    response = client.get(listing.get_absolute_url())

    page = response.text
    assert f'<source src="{video.file.url}" type="video/webm">' in page
    for label, value in [
        ("Type", "Apartment"),
        ("Category", "Luxury"),
        ("Price", "€180,000"),
        ("Sale or rent", "Sale"),
        ("Rooms", "3"),
        ("Bedrooms", "2"),
        ("Bathrooms", "1"),
        ("Parking space", "No"),
        ("Swimming pool", "No"),
        ("Floors", "1"),
        ("Balcony", "Yes"),
        ("Elevator", "Yes"),
    ]:
        assert f"<dt>{label}</dt><dd>{value}</dd>" in page
    assert '"lat": 41.39, "lng": 2.17' in page


def test_page_shows_the_price_history_newest_first(client):
    # given a listing whose price went down, then up
    listing = house(title="Sunny house", price="280000")
    PriceChange.objects.create(property=listing, previous_price="300000", price="270000")
    PriceChange.objects.create(property=listing, previous_price="270000", price="280000")

    # when
    response = client.get(listing.get_absolute_url())

    # then the table holds both changes, the latest first
    assert response.status_code == 200
    table = response.text.split('data-testid="price-history"')[1].split("</table>")[0]
    rows = [
        re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row)).strip()
        for row in re.findall(r"<tr>(.*?)</tr>", table.split("<tbody>")[1], flags=re.DOTALL)
    ]
    today = timezone.localdate().strftime("%-d %B %Y")
    assert rows == [f"{today} €280,000 higher €270,000", f"{today} €270,000 lower €300,000"]


def test_a_listing_whose_price_never_changed_shows_no_history(client):
    # when
    response = client.get(house().get_absolute_url())

    # then
    assert response.status_code == 200
    assert "Price history" not in response.text


def test_a_hidden_listing_is_404_for_others_and_visible_to_its_owner(client, owner, other_owner):
    pending = house(owner, title="Awaiting review", status=PropertyStatus.PENDING)
    suspended = house(owner, status=PropertyStatus.SUSPENDED)

    anonymous = client.get(pending.get_absolute_url())
    client.force_login(other_owner)
    other = client.get(suspended.get_absolute_url())
    client.force_login(owner)
    own = client.get(pending.get_absolute_url())

    assert anonymous.status_code == 404
    assert "Page not found" in anonymous.text
    assert other.status_code == 404
    assert own.status_code == 200
    assert "Pending review" in own.text
    assert "Edit this listing" in own.text


def test_favorite_toggle_saves_and_forgets_the_listing(customer_session, customer):
    listing = house(title="Keeper")

    saved = customer_session.post(f"/en/listings/{listing.pk}/favorite/", {"favorite": "on"})
    again = customer_session.post(f"/en/listings/{listing.pk}/favorite/", {"favorite": "on"})
    page = customer_session.get(listing.get_absolute_url())
    removed = customer_session.post(f"/en/listings/{listing.pk}/favorite/", {"favorite": "off"})

    assert saved.status_code == 302
    assert saved.url == listing.get_absolute_url()
    assert again.status_code == 302
    assert 'aria-pressed="true"' in page.text
    assert "Saved to favorites" in page.text
    assert removed.status_code == 302
    assert Favorite.objects.filter(user=customer).count() == 0


def test_favorite_of_a_hidden_listing_is_404(customer_session):
    hidden = PropertyFactory(status=PropertyStatus.PENDING)

    response = customer_session.post(f"/en/listings/{hidden.pk}/favorite/", {"favorite": "on"})

    assert response.status_code == 404
    assert Favorite.objects.count() == 0


def test_anonymous_visitors_are_sent_to_log_in_to_save_or_visit(client):
    listing = house()

    favorite = client.post(f"/en/listings/{listing.pk}/favorite/", {"favorite": "on"})
    visit = client.post(f"/en/listings/{listing.pk}/visit/", {})
    page = client.get(listing.get_absolute_url())

    assert favorite.status_code == 302
    assert favorite.url == f"/en/accounts/login/?next=/en/listings/{listing.pk}/"
    assert visit.url == f"/en/accounts/login/?next=/en/listings/{listing.pk}/"
    assert "to request a visit" in page.text
    assert Favorite.objects.count() == 0


def test_visit_request_books_an_appointment_with_the_owner(customer_session, customer):
    listing = house(title="Visit me")
    when = (timezone.now() + datetime.timedelta(days=2)).replace(second=0, microsecond=0)

    response = customer_session.post(
        f"/en/listings/{listing.pk}/visit/",
        {"date": when.strftime("%Y-%m-%dT%H:%M"), "duration": "45", "notes": "After work"},
    )

    assert response.status_code == 302
    assert response.url == "/en/me/visits/"
    visit = Appointment.objects.get()
    assert (visit.user, visit.owner, visit.property) == (customer, listing.owner, listing)
    assert (visit.date, visit.duration, visit.notes) == (when, 45, "After work")
    assert visit.status == AppointmentStatus.PENDING


def test_visit_request_in_the_past_shows_the_services_message_on_the_form(customer_session):
    listing = house()

    response = customer_session.post(
        f"/en/listings/{listing.pk}/visit/", {"date": "2001-01-01T10:00", "duration": "30"}
    )

    assert response.status_code == 400
    assert "A visit must be in the future." in response.text
    assert Appointment.objects.count() == 0


def test_visit_request_that_overlaps_another_is_a_conflict(customer_session):
    listing = house()
    when = (timezone.now() + datetime.timedelta(days=2)).replace(second=0, microsecond=0)
    date = when.strftime("%Y-%m-%dT%H:%M")
    customer_session.post(f"/en/listings/{listing.pk}/visit/", {"date": date, "duration": "30"})

    response = customer_session.post(
        f"/en/listings/{listing.pk}/visit/", {"date": date, "duration": "30"}
    )

    assert response.status_code == 409
    assert "The listing already has a visit at that time." in response.text


def test_posts_without_the_csrf_token_are_refused_with_the_sites_page(csrf_client, customer):
    listing = house()
    FavoriteFactory(user=customer, property=house())

    response = csrf_client.post(f"/en/listings/{listing.pk}/favorite/", {"favorite": "on"})

    assert response.status_code == 403
    assert "This form expired" in response.text
    assert Favorite.objects.filter(property=listing).count() == 0


def test_listing_page_queries_do_not_grow_with_its_photos(
    customer_session, django_assert_num_queries
):
    # given a listing with one photo and one with five photos and two videos
    few = house(title="Few photos")
    ImageFactory(property=few)
    many = house(title="Many photos")
    for position in range(5):
        ImageFactory(property=many, position=position)
    VideoFactory.create_batch(2, property=many)
    # session, user, the listing with record, category and owner, its photos, its videos,
    # its price changes, whether it is a favorite, the unread notifications count
    expected = 8

    # when / then
    with django_assert_num_queries(expected):
        customer_session.get(few.get_absolute_url())
    with django_assert_num_queries(expected):
        response = customer_session.get(many.get_absolute_url())
    assert len(thumbnails(response)) == 5
