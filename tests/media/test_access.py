"""Who may upload, reorder, rename and delete a listing's media (D7): its owner and admins."""

import pytest

from media_app.models import Image, Video
from tests.factories import ImageFactory, VideoFactory
from tests.media.conftest import stored_files
from tests.media.support import (
    assert_problem,
    assert_validation_error,
    image_url,
    jpeg_bytes,
    mp4_bytes,
    upload_image,
    upload_video,
    video_url,
)

pytestmark = pytest.mark.django_db

# Status of a refused write on a listing the caller can see, by role.
REFUSED = {
    "anonymous": (401, "not_authenticated"),
    "customer": (403, "permission_denied"),
    "other_owner": (403, "permission_denied"),
}


def media_rows() -> list[tuple]:
    """Every photo and video row, to show that a refused request changed nothing."""
    images = list(Image.objects.order_by("id").values_list("id", "title", "position", "file"))
    videos = list(Video.objects.order_by("id").values_list("id", "title", "position", "file"))
    return images + videos


@pytest.mark.parametrize("role", ["anonymous", "customer", "other_owner"])
def test_only_the_owner_and_admins_upload_photos(clients, listing, media_root, role):
    # when
    response = upload_image(clients[role], listing.id, jpeg_bytes())

    # then
    status, code = REFUSED[role]
    assert_problem(response, status=status, code=code)
    assert Image.objects.count() == 0
    assert stored_files(media_root) == []


@pytest.mark.parametrize("role", ["anonymous", "customer", "other_owner"])
def test_only_the_owner_and_admins_upload_videos(clients, listing, media_root, role):
    response = upload_video(clients[role], listing.id, mp4_bytes())

    status, code = REFUSED[role]
    assert_problem(response, status=status, code=code)
    assert Video.objects.count() == 0
    assert stored_files(media_root) == []


def test_anonymous_uploads_ask_for_a_bearer_token(anonymous_client, listing):
    response = upload_image(anonymous_client, listing.id, jpeg_bytes())

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_the_owner_and_admins_upload(clients, listing, role):
    image = upload_image(clients[role], listing.id, jpeg_bytes())
    video = upload_video(clients[role], listing.id, mp4_bytes())

    assert image.status_code == 201, image.content
    assert video.status_code == 201, video.content


def test_another_owner_cannot_upload_to_a_hidden_listing_nor_learn_it_exists(
    other_owner_client, pending_listing, media_root
):
    # when another owner uploads to a PENDING listing they cannot see
    response = upload_image(other_owner_client, pending_listing.id, jpeg_bytes())

    # then the answer is the one for a listing that does not exist
    body = assert_validation_error(response, "propertyId")
    assert body["errors"][0]["message"] == "No listing you can see has this id."
    assert stored_files(media_root) == []


def test_the_owner_uploads_to_their_own_hidden_listing(owner_client, pending_listing):
    response = upload_image(owner_client, pending_listing.id, jpeg_bytes())

    assert response.status_code == 201, response.content


def test_a_refused_uploader_learns_no_rule_of_the_body(other_owner_client, listing):
    # when another owner sends an upload with no file at all
    response = other_owner_client.post(
        "/api/v1/images/upload", {"propertyId": listing.id}, format="multipart"
    )

    # then the answer is 403, not the 400 the owner would get
    assert_problem(response, status=403, code="permission_denied")


@pytest.mark.parametrize("role", ["anonymous", "customer", "other_owner"])
@pytest.mark.parametrize(
    ("factory", "url", "body"),
    [
        (ImageFactory, image_url, {"position": 0, "title": "Mine now"}),
        (VideoFactory, video_url, {"position": 0, "title": "Mine now"}),
    ],
    ids=["image", "video"],
)
def test_others_cannot_reorder_or_rename_media(clients, listing, role, factory, url, body):
    # given two items, the second to be moved
    factory(property=listing, position=0)
    item = factory(property=listing, position=1)
    before = media_rows()

    # when
    response = clients[role].patch(url(item.id), body, format="json")

    # then
    status, code = REFUSED[role]
    assert_problem(response, status=status, code=code)
    assert media_rows() == before


@pytest.mark.parametrize("role", ["anonymous", "customer", "other_owner"])
@pytest.mark.parametrize(
    ("factory", "url"),
    [(ImageFactory, image_url), (VideoFactory, video_url)],
    ids=["image", "video"],
)
def test_others_cannot_delete_media(clients, listing, role, factory, url):
    item = factory(property=listing)
    before = media_rows()

    response = clients[role].delete(url(item.id))

    status, code = REFUSED[role]
    assert_problem(response, status=status, code=code)
    assert media_rows() == before


@pytest.mark.parametrize("role", ["customer", "other_owner"])
@pytest.mark.parametrize("method", ["patch", "delete"])
def test_media_of_a_hidden_listing_are_404_to_those_who_cannot_see_it(
    clients, pending_listing, role, method
):
    image = ImageFactory(property=pending_listing)
    before = media_rows()

    response = getattr(clients[role], method)(image_url(image.id), {"title": "x"}, format="json")

    assert_problem(response, status=404, code="not_found")
    assert media_rows() == before


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_the_owner_and_admins_reorder_and_delete(clients, listing, role):
    first = ImageFactory(property=listing, position=0)
    second = ImageFactory(property=listing, position=1)

    moved = clients[role].patch(image_url(second.id), {"position": 0}, format="json")
    deleted = clients[role].delete(image_url(first.id))

    assert moved.status_code == 200, moved.content
    assert deleted.status_code == 204, deleted.content
    assert list(Image.objects.values_list("id", "position")) == [(second.id, 0)]
