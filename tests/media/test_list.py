"""GET /images, /videos (by listing, gallery order) and GET /images/:id, /videos/:id (D7, D8)."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from media_app.models import Image, Video
from tests.factories import ImageFactory, VideoFactory
from tests.media.support import (
    IMAGES_URL,
    VIDEOS_URL,
    assert_problem,
    assert_validation_error,
    image_url,
    jpeg_bytes,
    upload_image,
    video_url,
)

pytestmark = pytest.mark.django_db

ROLES = ["anonymous", "customer", "owner", "other_owner", "admin"]


def iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def image_body(image: Image) -> dict:
    """A photo as the API shows it (factory rows have no thumbnails)."""
    return {
        "id": image.id,
        "url": f"http://testserver{image.file.url}",
        "title": image.title,
        "propertyId": image.property_id,
        "createdAt": iso(image.created_at),
        "width": image.width,
        "height": image.height,
        "position": image.position,
        "thumbnails": {},
    }


def video_body(video: Video) -> dict:
    return {
        "id": video.id,
        "url": f"http://testserver{video.file.url}",
        "title": video.title,
        "propertyId": video.property_id,
        "createdAt": iso(video.created_at),
        "position": video.position,
    }


def at(minutes: int) -> datetime.datetime:
    return timezone.now() - datetime.timedelta(minutes=minutes)


def test_images_of_a_listing_come_in_gallery_order(anonymous_client, listing, other_owner):
    # given photos out of order: positions 2, 0, 1, and two at 1 uploaded at different times
    third = ImageFactory(property=listing, position=2)
    cover = ImageFactory(property=listing, position=0, title=None)
    second_older = ImageFactory(property=listing, position=1)
    second_newer = ImageFactory(property=listing, position=1)
    Image.objects.filter(pk=second_older.pk).update(created_at=at(10))
    Image.objects.filter(pk=second_newer.pk).update(created_at=at(5))
    # and a photo of another listing
    ImageFactory(property__owner=other_owner.owner)

    # when
    response = anonymous_client.get(IMAGES_URL, {"propertyId": listing.id})

    # then a JSON array by position, then createdAt, the cover first
    assert response.status_code == 200
    for image in (second_older, second_newer):
        image.refresh_from_db()
    assert response.json() == [
        image_body(cover),
        image_body(second_older),
        image_body(second_newer),
        image_body(third),
    ]


def test_ties_in_position_and_time_are_broken_by_id(anonymous_client, listing):
    # given three photos at one position and one moment
    images = ImageFactory.create_batch(3, property=listing, position=0)
    Image.objects.filter(property=listing).update(created_at=at(1))

    # when
    response = anonymous_client.get(IMAGES_URL, {"propertyId": listing.id})

    # then
    assert [item["id"] for item in response.json()] == sorted(image.id for image in images)


def test_an_uploaded_photo_is_listed_with_its_thumbnails(owner_client, anonymous_client, listing):
    # given a photo uploaded through the API
    created = upload_image(owner_client, listing.id, jpeg_bytes()).json()

    # when
    response = anonymous_client.get(IMAGES_URL, {"propertyId": listing.id})

    # then the list item is the created resource
    assert response.json() == [created]


def test_a_listing_without_photos_has_an_empty_list(anonymous_client, listing):
    response = anonymous_client.get(IMAGES_URL, {"propertyId": listing.id})

    assert response.status_code == 200
    assert response.json() == []


@pytest.mark.parametrize("url", [IMAGES_URL, VIDEOS_URL, f"{IMAGES_URL}/", f"{VIDEOS_URL}/"])
def test_property_id_is_required(anonymous_client, url):
    response = anonymous_client.get(url)

    body = assert_validation_error(response, "propertyId")
    assert body["errors"][0]["code"] == "required"


@pytest.mark.parametrize("url", [IMAGES_URL, VIDEOS_URL])
def test_an_unknown_property_id_is_400_naming_it(anonymous_client, url):
    response = anonymous_client.get(url, {"propertyId": "nosuchlisting000000000000"})

    body = assert_validation_error(response, "propertyId")
    assert body["errors"][0]["message"] == "No listing you can see has this id."


@pytest.mark.parametrize("role", ROLES)
def test_media_of_a_hidden_listing_are_listed_only_for_its_owner_and_admins(
    clients, pending_listing, role
):
    # given a PENDING listing with a photo and a video
    image = ImageFactory(property=pending_listing)
    video = VideoFactory(property=pending_listing)

    # when
    images = clients[role].get(IMAGES_URL, {"propertyId": pending_listing.id})
    videos = clients[role].get(VIDEOS_URL, {"propertyId": pending_listing.id})

    # then others get the same answer as for a listing that does not exist
    if role in ("owner", "admin"):
        assert [item["id"] for item in images.json()] == [image.id]
        assert [item["id"] for item in videos.json()] == [video.id]
    else:
        assert_validation_error(images, "propertyId")
        assert_validation_error(videos, "propertyId")


def test_videos_of_a_listing_come_in_order(anonymous_client, listing):
    # given videos at positions 1 and 0
    second = VideoFactory(property=listing, position=1)
    first = VideoFactory(property=listing, position=0)

    # when
    response = anonymous_client.get(VIDEOS_URL, {"propertyId": listing.id})

    # then
    assert response.status_code == 200
    assert response.json() == [video_body(first), video_body(second)]


@pytest.mark.parametrize(
    ("url", "factory"), [(IMAGES_URL, ImageFactory), (VIDEOS_URL, VideoFactory)]
)
def test_listing_media_costs_the_same_queries_for_1_and_for_20_items(
    anonymous_client, listing, django_assert_num_queries, url, factory
):
    # given one item, and the query count of its list
    factory(property=listing)
    with CaptureQueriesContext(connection) as context:
        assert anonymous_client.get(url, {"propertyId": listing.id}).status_code == 200
    queries_for_one = len(context.captured_queries)
    factory.create_batch(19, property=listing)

    # when
    with django_assert_num_queries(queries_for_one):
        response = anonymous_client.get(url, {"propertyId": listing.id})

    # then: one query for the listing, one for its media
    assert queries_for_one == 2
    assert len(response.json()) == 20


def test_one_photo_is_shown_by_id(anonymous_client, listing):
    image = ImageFactory(property=listing)

    response = anonymous_client.get(image_url(image.id))

    assert response.status_code == 200
    assert response.json() == image_body(image)


def test_one_video_is_shown_by_id(anonymous_client, listing):
    video = VideoFactory(property=listing)

    response = anonymous_client.get(video_url(video.id))

    assert response.status_code == 200
    assert response.json() == video_body(video)


@pytest.mark.parametrize("role", ROLES)
def test_a_photo_of_a_hidden_listing_is_404_for_those_who_cannot_see_it(
    clients, pending_listing, role
):
    image = ImageFactory(property=pending_listing)

    response = clients[role].get(image_url(image.id))

    if role in ("owner", "admin"):
        assert response.status_code == 200
    else:
        assert_problem(response, status=404, code="not_found")


def test_listing_responses_show_photos_in_gallery_order_with_their_own_shapes(
    owner_client, anonymous_client, listing
):
    # given three photos uploaded, then the last moved to the front
    ids = [upload_image(owner_client, listing.id, jpeg_bytes()).json()["id"] for _ in range(3)]
    assert owner_client.patch(image_url(ids[2]), {"position": 0}, format="json").status_code == 200
    order = [ids[2], ids[0], ids[1]]

    # when
    detail = anonymous_client.get(f"/api/v1/properties/{listing.id}").json()
    listed = anonymous_client.get("/api/v1/properties").json()["properties"]

    # then both show the gallery order (the cover first), in the shapes they always had
    assert [image["id"] for image in detail["images"]] == order
    assert {frozenset(image) for image in detail["images"]} == {
        frozenset({"id", "url", "title", "description"})
    }
    item = next(item for item in listed if item["id"] == listing.id)
    assert [image["id"] for image in item["images"]] == order
    assert {frozenset(image) for image in item["images"]} == {frozenset({"id", "url"})}
