"""Media services beyond the API: failed uploads leave no file, failed deletions are logged."""

import logging

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile

from config.errors import PermissionRefused, ValidationFailed
from listings.models import Property
from media_app import cleanup, services
from media_app.errors import MediaTooLarge, UnsupportedMedia
from media_app.models import Image, Video
from tests.media.conftest import stored_files
from tests.media.support import TEXT_BYTES, jpeg_bytes, mp4_bytes

pytestmark = pytest.mark.django_db


def photo(data: bytes = b"") -> SimpleUploadedFile:
    return SimpleUploadedFile("photo.jpg", data or jpeg_bytes(), content_type="image/jpeg")


def test_an_upload_whose_listing_is_deleted_meanwhile_leaves_no_file(
    owner, listing, media_root, monkeypatch
):
    # given the listing is deleted while the upload writes its files
    store = services._store

    def store_then_delete_listing(name, content):
        stored = store(name, content)
        Property.objects.filter(pk=listing.pk).delete()
        return stored

    monkeypatch.setattr(services, "_store", store_then_delete_listing)

    # when
    with pytest.raises(ValidationFailed) as refused:
        services.image_upload(property=listing, by=owner, file=photo())

    # then the upload fails on propertyId and the files it wrote are removed
    assert refused.value.field == "propertyId"
    assert Image.objects.count() == 0
    assert stored_files(media_root) == []


def test_an_upload_that_fails_while_storing_removes_what_it_stored(
    owner, listing, media_root, monkeypatch
):
    # given a storage that fails on the third write (the second thumbnail)
    store = services._store
    writes = []

    def failing_store(name, content):
        writes.append(name)
        if len(writes) == 3:
            raise OSError("disk full")
        return store(name, content)

    monkeypatch.setattr(services, "_store", failing_store)

    # when
    with pytest.raises(OSError, match="disk full"):
        services.image_upload(property=listing, by=owner, file=photo())

    # then the two files written are removed again
    assert len(writes) == 3
    assert Image.objects.count() == 0
    assert stored_files(media_root) == []


def test_services_judge_the_bytes_and_the_rights_themselves(
    owner, other_owner, listing, settings, media_root
):
    # the API is not the only caller: the website and the admin call the same services
    with pytest.raises(PermissionRefused):
        services.image_upload(property=listing, by=other_owner, file=photo())
    with pytest.raises(UnsupportedMedia):
        services.image_upload(property=listing, by=owner, file=photo(TEXT_BYTES))
    settings.MEDIA_VIDEO_MAX_BYTES = 10
    with pytest.raises(MediaTooLarge):
        services.video_upload(
            property=listing,
            by=owner,
            file=SimpleUploadedFile("tour.mp4", mp4_bytes(), content_type="video/mp4"),
        )
    assert Image.objects.count() == Video.objects.count() == 0
    assert stored_files(media_root) == []


def test_a_file_that_cannot_be_deleted_is_logged_and_the_rest_go_on(
    owner, listing, media_root, monkeypatch, caplog
):
    # given an uploaded photo and a storage that fails to delete its original
    image = services.image_upload(property=listing, by=owner, file=photo())
    names = cleanup.image_file_names(image)
    delete = default_storage.delete

    def failing_delete(name):
        if name == image.file.name:
            raise OSError("storage unavailable")
        delete(name)

    monkeypatch.setattr(default_storage, "delete", failing_delete)

    # when its files are deleted
    with caplog.at_level(logging.WARNING, logger="media_app"):
        deleted = cleanup.media_files_delete(names)

    # then the thumbnails go, the original stays for media_orphans, and a warning says so
    assert deleted == 2
    assert stored_files(media_root) == [image.file.name]
    assert caplog.messages == [f"Could not delete media file {image.file.name}: OSError"]
