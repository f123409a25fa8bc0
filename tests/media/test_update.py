"""PATCH /images/:id and /videos/:id: titles and gallery order, positions 0..n-1 (D11)."""

import pytest

from media_app.models import Image, Video
from tests.factories import ImageFactory, VideoFactory
from tests.media.support import (
    assert_validation_error,
    image_url,
    jpeg_bytes,
    upload_image,
    video_url,
)

pytestmark = pytest.mark.django_db


def gallery(listing) -> list[tuple[str, int]]:
    """(id, position) of the listing's photos in gallery order."""
    return list(
        Image.objects.filter(property=listing)
        .order_by("position", "created_at", "id")
        .values_list("id", "position")
    )


@pytest.fixture
def photos(listing) -> list[Image]:
    """Four photos at positions 0..3."""
    return [ImageFactory(property=listing, position=position) for position in range(4)]


def test_renaming_a_photo_answers_the_whole_resource(owner_client, listing):
    # given an uploaded photo
    created = upload_image(owner_client, listing.id, jpeg_bytes(), title="Kitchen").json()

    # when
    response = owner_client.patch(image_url(created["id"]), {"title": "Terrace"}, format="json")

    # then
    assert response.status_code == 200, response.content
    assert response.json() == {**created, "title": "Terrace"}
    assert Image.objects.get().title == "Terrace"


@pytest.mark.parametrize("title", [None, "", "   "])
def test_an_empty_or_null_title_clears_it(owner_client, listing, title):
    image = ImageFactory(property=listing, title="Kitchen")

    response = owner_client.patch(image_url(image.id), {"title": title}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["title"] is None
    image.refresh_from_db()
    assert image.title is None


def test_moving_the_last_photo_to_the_front_makes_it_the_cover(owner_client, listing, photos):
    # when
    response = owner_client.patch(image_url(photos[3].id), {"position": 0}, format="json")

    # then the others shift back by one
    assert response.status_code == 200, response.content
    assert response.json()["position"] == 0
    assert gallery(listing) == [
        (photos[3].id, 0),
        (photos[0].id, 1),
        (photos[1].id, 2),
        (photos[2].id, 3),
    ]


def test_moving_the_cover_into_the_middle_shifts_the_ones_before_forward(
    owner_client, listing, photos
):
    response = owner_client.patch(image_url(photos[0].id), {"position": 2}, format="json")

    assert response.status_code == 200, response.content
    assert gallery(listing) == [
        (photos[1].id, 0),
        (photos[2].id, 1),
        (photos[0].id, 2),
        (photos[3].id, 3),
    ]


def test_a_position_past_the_end_puts_the_photo_last(owner_client, listing, photos):
    response = owner_client.patch(image_url(photos[1].id), {"position": 99}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["position"] == 3
    assert gallery(listing) == [
        (photos[0].id, 0),
        (photos[2].id, 1),
        (photos[3].id, 2),
        (photos[1].id, 3),
    ]


def test_moving_closes_gaps_left_by_older_rows(owner_client, listing):
    # given photos at positions 0, 5 and 9
    first, middle, last = (ImageFactory(property=listing, position=p) for p in (0, 5, 9))

    # when the last moves to position 1
    response = owner_client.patch(image_url(last.id), {"position": 1}, format="json")

    # then positions are 0..2 with no gap
    assert response.status_code == 200, response.content
    assert gallery(listing) == [(first.id, 0), (last.id, 1), (middle.id, 2)]


def test_title_and_position_change_together(owner_client, listing, photos):
    response = owner_client.patch(
        image_url(photos[2].id), {"title": "Garden", "position": 0}, format="json"
    )

    assert response.status_code == 200, response.content
    assert (response.json()["title"], response.json()["position"]) == ("Garden", 0)


def test_moving_a_photo_leaves_other_listings_alone(owner_client, listing, photos, other_owner):
    # given a photo of another listing at position 0
    elsewhere = ImageFactory(property__owner=other_owner.owner, position=0)

    # when
    owner_client.patch(image_url(photos[3].id), {"position": 0}, format="json")

    # then
    elsewhere.refresh_from_db()
    assert elsewhere.position == 0


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"position": -1}, "position"),
        ({"position": "first"}, "position"),
        ({"position": None}, "position"),
        ({"title": "x" * 201}, "title"),
    ],
)
def test_an_invalid_change_is_400_and_changes_nothing(owner_client, listing, photos, body, field):
    before = gallery(listing)

    response = owner_client.patch(image_url(photos[2].id), body, format="json")

    assert_validation_error(response, field)
    assert gallery(listing) == before
    assert Image.objects.get(pk=photos[2].pk).title == photos[2].title


def test_an_empty_patch_changes_nothing(owner_client, listing, photos):
    before = gallery(listing)

    response = owner_client.patch(image_url(photos[1].id), {}, format="json")

    assert response.status_code == 200, response.content
    assert response.json()["position"] == 1
    assert gallery(listing) == before


def test_a_video_moves_and_is_renamed_like_a_photo(owner_client, listing):
    # given three videos
    videos = [VideoFactory(property=listing, position=position) for position in range(3)]

    # when the last becomes the first and gets a title
    response = owner_client.patch(
        video_url(videos[2].id), {"position": 0, "title": "Drone flight"}, format="json"
    )

    # then
    assert response.status_code == 200, response.content
    assert response.json()["position"] == 0
    assert response.json()["title"] == "Drone flight"
    assert list(Video.objects.order_by("position").values_list("id", "position")) == [
        (videos[2].id, 0),
        (videos[0].id, 1),
        (videos[1].id, 2),
    ]


def test_an_unknown_photo_is_404(owner_client):
    response = owner_client.patch(image_url("nosuchimage00000000000000"), {"title": "x"})

    assert response.status_code == 404
