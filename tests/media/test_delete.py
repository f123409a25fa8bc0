"""Deleting media: files go after the commit, directly or by cascade, not on rollback (D11, D14)."""

import pytest
from django.db import transaction

from accounts.services import user_delete
from listings.services import property_delete
from media_app import services
from media_app.models import Image, Video
from tests.factories import ImageFactory, PropertyFactory
from tests.media.conftest import stored_files
from tests.media.support import (
    assert_problem,
    ebml_bytes,
    image_url,
    jpeg_bytes,
    mp4_bytes,
    png_bytes,
    upload_image,
    upload_video,
    video_url,
)

pytestmark = pytest.mark.django_db


class Rollback(Exception):
    """Raised inside a test's transaction to roll it back."""


def upload_media(client, listing) -> list[str]:
    """Upload two photos and a video to a listing; returns the names of its stored files."""
    assert upload_image(client, listing.id, jpeg_bytes()).status_code == 201
    assert upload_image(client, listing.id, png_bytes()).status_code == 201
    assert upload_video(client, listing.id, mp4_bytes()).status_code == 201
    return stored_files_of(listing)


def stored_files_of(listing) -> list[str]:
    """The names the listing's rows reference."""
    names = []
    for image in Image.objects.filter(property=listing):
        names += [image.file.name, *image.thumbnails.values()]
    names += [video.file.name for video in Video.objects.filter(property=listing)]
    return sorted(names)


def test_deleting_a_photo_removes_its_files_after_the_commit(
    owner_client, listing, media_root, django_capture_on_commit_callbacks
):
    # given two uploaded photos
    kept = upload_image(owner_client, listing.id, jpeg_bytes()).json()
    gone = upload_image(owner_client, listing.id, png_bytes()).json()
    kept_files = stored_files_of(listing)
    gone_row = Image.objects.get(pk=gone["id"])
    gone_files = sorted([gone_row.file.name, *gone_row.thumbnails.values()])
    kept_files = [name for name in kept_files if name not in gone_files]

    # when the second is deleted, the commit's callbacks held back
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = owner_client.delete(image_url(gone["id"]))

    # then the row is gone, but its files wait for the commit
    assert response.status_code == 204
    assert response.content == b""
    assert list(Image.objects.values_list("id", flat=True)) == [kept["id"]]
    assert stored_files(media_root) == sorted(kept_files + gone_files)
    assert len(callbacks) == 1

    # when the transaction commits
    callbacks[0]()

    # then exactly its three files are gone
    assert stored_files(media_root) == kept_files


def test_deleting_a_video_removes_its_file_after_the_commit(
    owner_client, listing, media_root, django_capture_on_commit_callbacks
):
    video = upload_video(owner_client, listing.id, ebml_bytes(), name="tour.webm").json()
    assert len(stored_files(media_root)) == 1

    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.delete(video_url(video["id"]))

    assert response.status_code == 204
    assert Video.objects.count() == 0
    assert stored_files(media_root) == []


def test_deleting_a_photo_closes_the_gap_in_the_gallery(
    owner_client, listing, django_capture_on_commit_callbacks
):
    photos = [ImageFactory(property=listing, position=position) for position in range(3)]

    with django_capture_on_commit_callbacks(execute=True):
        owner_client.delete(image_url(photos[1].id))

    assert list(Image.objects.order_by("position").values_list("id", "position")) == [
        (photos[0].id, 0),
        (photos[2].id, 1),
    ]


def test_deleting_an_unknown_photo_is_404(owner_client):
    response = owner_client.delete(image_url("nosuchimage00000000000000"))

    assert_problem(response, status=404, code="not_found")


def test_a_rolled_back_photo_deletion_deletes_no_file(
    owner, owner_client, listing, media_root, django_capture_on_commit_callbacks
):
    # given an uploaded photo
    created = upload_image(owner_client, listing.id, jpeg_bytes()).json()
    files_before = stored_files(media_root)

    # when its deletion is rolled back by the transaction around it
    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(Rollback),
        transaction.atomic(),
    ):
        services.image_delete(image=Image.objects.get(pk=created["id"]), by=owner)
        raise Rollback

    # then no deletion was scheduled, and the row and its files remain
    assert callbacks == []
    assert Image.objects.filter(pk=created["id"]).exists()
    assert stored_files(media_root) == files_before


def test_deleting_a_listing_removes_all_its_files_after_the_commit(
    owner_client, listing, owner, media_root, django_capture_on_commit_callbacks
):
    # given a listing with photos and a video, and another listing of the owner with a photo
    doomed_files = upload_media(owner_client, listing)
    other = PropertyFactory(owner=owner.owner)
    assert upload_image(owner_client, other.id, jpeg_bytes()).status_code == 201
    other_files = stored_files_of(other)
    assert len(doomed_files) == 7

    # when the listing is deleted through the API
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        response = owner_client.delete(f"/api/v1/properties/{listing.id}")
    files_before_commit = stored_files(media_root)
    for callback in callbacks:
        callback()

    # then its files stay until the commit and then go; the other listing's stay
    assert response.status_code == 204
    assert files_before_commit == sorted(doomed_files + other_files)
    assert stored_files(media_root) == other_files
    assert Image.objects.filter(property_id=listing.id).count() == 0


def test_a_rolled_back_listing_deletion_deletes_no_file(
    owner_client, owner, listing, media_root, django_capture_on_commit_callbacks
):
    files = upload_media(owner_client, listing)
    listing_id = listing.id

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(Rollback),
        transaction.atomic(),
    ):
        property_delete(property=listing, by=owner)
        raise Rollback

    assert callbacks == []
    assert stored_files(media_root) == files
    assert Image.objects.filter(property_id=listing_id).count() == 2
    assert Video.objects.filter(property_id=listing_id).count() == 1


def test_deleting_a_user_removes_the_files_of_all_their_listings(
    owner_client,
    owner,
    other_owner,
    listing,
    media_root,
    django_capture_on_commit_callbacks,
):
    # given two listings of the owner with media, and another owner's listing with a photo
    second = PropertyFactory(owner=owner.owner)
    upload_media(owner_client, listing)
    upload_media(owner_client, second)
    elsewhere = ImageFactory(property__owner=other_owner.owner)
    assert len(stored_files(media_root)) == 15

    # when the owner deletes their account through the API
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.delete(f"/api/v1/users/{owner.id}")

    # then every file of their listings is gone, the other owner's photo is not
    assert response.status_code == 204
    assert stored_files(media_root) == [elsewhere.file.name]
    assert list(Image.objects.values_list("id", flat=True)) == [elsewhere.id]
    assert Video.objects.count() == 0


def test_a_rolled_back_user_deletion_deletes_no_file(
    owner_client, owner, listing, media_root, django_capture_on_commit_callbacks
):
    files = upload_media(owner_client, listing)

    with (
        django_capture_on_commit_callbacks(execute=True) as callbacks,
        pytest.raises(Rollback),
        transaction.atomic(),
    ):
        user_delete(user=owner, by=owner)
        raise Rollback

    assert callbacks == []
    assert stored_files(media_root) == files


@pytest.mark.django_db(transaction=True)
def test_with_real_transactions_a_commit_deletes_and_a_rollback_keeps(
    owner_client, owner, listing, media_root
):
    # given two uploaded photos (every request commits for real here)
    first = upload_image(owner_client, listing.id, jpeg_bytes()).json()
    second = upload_image(owner_client, listing.id, png_bytes()).json()
    second_files = stored_files_of(listing)

    # when deleting the first is rolled back
    with pytest.raises(Rollback), transaction.atomic():
        services.image_delete(image=Image.objects.get(pk=first["id"]), by=owner)
        raise Rollback
    after_rollback = stored_files(media_root)

    # and deleting it again commits
    response = owner_client.delete(image_url(first["id"]))

    # then the rollback kept all six files; the commit removed the first photo's three
    assert after_rollback == second_files
    assert response.status_code == 204
    remaining = Image.objects.get()
    assert remaining.id == second["id"]
    assert stored_files(media_root) == sorted([remaining.file.name, *remaining.thumbnails.values()])
