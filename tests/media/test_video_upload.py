"""POST /videos/upload: MP4 or WebM by their bytes, streamed to storage (D11, D13)."""

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import TemporaryUploadedFile

from media_app.models import Video
from media_app.videos import HEADER_BYTES
from tests.factories import VideoFactory
from tests.media.conftest import stored_files
from tests.media.support import (
    HTML_BYTES,
    TEXT_BYTES,
    VIDEO_KEYS,
    assert_problem,
    assert_validation_error,
    ebml_bytes,
    jpeg_bytes,
    mp4_bytes,
    quicktime_bytes,
    upload_video,
)

pytestmark = pytest.mark.django_db


def iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def stored_bytes(name: str) -> bytes:
    with default_storage.open(name) as stored:
        return stored.read()


@pytest.mark.parametrize(
    ("data", "name", "extension", "content_type"),
    [
        (mp4_bytes(b"isom"), "tour.mp4", "mp4", "video/mp4"),
        (mp4_bytes(b"mp42"), "tour.mov", "mp4", "video/mp4"),
        (ebml_bytes(b"webm"), "tour.webm", "webm", "video/webm"),
        (ebml_bytes(b"webm"), "tour.mp4", "webm", "video/webm"),
    ],
    ids=["mp4-isom", "mp4-mp42-named-mov", "webm", "webm-named-mp4"],
)
def test_mp4_and_webm_are_accepted_and_stored_byte_for_byte(
    owner_client, listing, media_root, data, name, extension, content_type
):
    # when the listing's owner uploads a video with a title
    response = upload_video(
        owner_client, listing.id, data, name=name, content_type="text/html", title="Tour"
    )

    # then it is created and stored unchanged under the listing's prefix
    assert response.status_code == 201, response.content
    video = Video.objects.get()
    assert set(response.json()) == VIDEO_KEYS
    assert response.json() == {
        "id": video.id,
        "url": f"http://testserver/media/properties/{listing.id}/videos/{video.id}.{extension}",
        "title": "Tour",
        "propertyId": listing.id,
        "createdAt": iso(video.created_at),
        "position": 0,
    }
    assert stored_files(media_root) == [f"properties/{listing.id}/videos/{video.id}.{extension}"]
    assert stored_bytes(video.file.name) == data
    assert video.content_type == content_type
    assert video.size == len(data)


@pytest.mark.parametrize(
    ("data", "name"),
    [
        (TEXT_BYTES, "tour.mp4"),
        (HTML_BYTES, "tour.webm"),
        (jpeg_bytes(), "tour.mp4"),
        (ebml_bytes(b"matroska"), "tour.webm"),
        (quicktime_bytes(), "tour.mp4"),
        (mp4_bytes(b"isom")[:12], "tour.mp4"),
    ],
    ids=["text-named-mp4", "html-named-webm", "jpeg-named-mp4", "matroska", "quicktime", "cut"],
)
def test_anything_but_mp4_or_webm_is_415(owner_client, listing, media_root, data, name):
    # when
    response = upload_video(owner_client, listing.id, data, name=name, content_type="video/mp4")

    # then nothing is recorded and nothing stored
    assert_problem(response, status=415, code="unsupported_media_type")
    assert Video.objects.count() == 0
    assert stored_files(media_root) == []


def test_a_video_over_the_size_limit_is_413(owner_client, listing, media_root, settings):
    # given a limit of 1,000 bytes
    settings.MEDIA_VIDEO_MAX_BYTES = 1000
    data = mp4_bytes(body=2000)

    # when
    response = upload_video(owner_client, listing.id, data)

    # then
    assert_problem(response, status=413, code="payload_too_large")
    assert Video.objects.count() == 0
    assert stored_files(media_root) == []


def test_the_default_video_limit_is_100_mb(settings):
    assert settings.MEDIA_VIDEO_MAX_BYTES == 100 * 1024 * 1024


def test_a_video_is_spooled_to_disk_and_never_read_whole(
    owner_client, listing, settings, monkeypatch
):
    # given uploads over 64 KB spooled to temporary files, and every read of them recorded
    settings.FILE_UPLOAD_MAX_MEMORY_SIZE = 64 * 1024
    data = mp4_bytes(body=3 * 1024 * 1024)
    reads: list[int | None] = []

    def recording_read(upload):
        """File proxies `read` to the open temporary file; record each call's size."""

        def read(*args):
            reads.append(args[0] if args else None)
            return upload.file.read(*args)

        return read

    monkeypatch.setattr(TemporaryUploadedFile, "read", property(recording_read), raising=False)

    # when a 3 MB video is uploaded
    response = upload_video(owner_client, listing.id, data)

    # then it is stored whole, and only its header was ever read into memory: once to judge
    # the format, once for the headers of its boxes (the location check), which lie in it
    assert response.status_code == 201, response.content
    assert stored_bytes(Video.objects.get().file.name) == data
    assert reads == [HEADER_BYTES, HEADER_BYTES]


def test_uploads_go_after_the_existing_videos(owner_client, listing):
    # given a video at position 0
    first = VideoFactory(property=listing, position=0)

    # when another is uploaded
    response = upload_video(owner_client, listing.id, ebml_bytes(), name="tour.webm")

    # then it comes second
    assert response.status_code == 201, response.content
    assert response.json()["position"] == 1
    assert list(Video.objects.order_by("position").values_list("id", flat=True)) == [
        first.id,
        response.json()["id"],
    ]


def test_a_listing_with_5_videos_refuses_a_sixth_with_409(owner_client, listing, media_root):
    # given five videos, the default limit
    for _ in range(5):
        assert upload_video(owner_client, listing.id, mp4_bytes()).status_code == 201
    files_before = stored_files(media_root)

    # when a sixth is uploaded
    response = upload_video(owner_client, listing.id, mp4_bytes())

    # then
    body = assert_problem(response, status=409, code="conflict")
    assert body["detail"] == "A listing may have at most 5 videos; delete one first."
    assert Video.objects.count() == 5
    assert stored_files(media_root) == files_before


def test_a_missing_video_file_is_400_naming_it(owner_client, listing):
    response = owner_client.post(
        "/api/v1/videos/upload", {"propertyId": listing.id}, format="multipart"
    )

    assert_validation_error(response, "video")
    assert Video.objects.count() == 0


def test_a_video_of_an_unknown_listing_is_400_naming_property_id(owner_client, media_root):
    response = upload_video(owner_client, "nosuchlisting0000000000000", mp4_bytes())

    assert_validation_error(response, "propertyId")
    assert stored_files(media_root) == []
