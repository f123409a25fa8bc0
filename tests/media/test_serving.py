"""Local media served in development: the stored type, nosniff, never HTML (D11)."""

import importlib

import pytest
from django.core.exceptions import SuspiciousFileOperation
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.http import Http404
from django.test import RequestFactory
from django.urls import clear_url_caches, resolve

from media_app.models import Image
from media_app.views import media_serve
from tests.media.support import jpeg_bytes, mp4_bytes, upload_image, upload_video

pytestmark = pytest.mark.django_db


def served(name: str):
    """What media_serve answers for a GET of this storage name."""
    return media_serve(RequestFactory().get(f"/media/{name}"), name)


def body_of(response) -> bytes:
    return b"".join(response.streaming_content)


def test_an_uploaded_photo_and_its_thumbnail_are_served_typed_and_nosniff(owner_client, listing):
    # given an uploaded photo
    assert upload_image(owner_client, listing.id, jpeg_bytes()).status_code == 201
    image = Image.objects.get()

    # when the original and a thumbnail are fetched
    original = served(image.file.name)
    thumbnail = served(image.thumbnails["400"])

    # then each has its stored type, is shown inline and may not be sniffed
    assert original.status_code == 200
    assert original["Content-Type"] == "image/jpeg"
    assert original["X-Content-Type-Options"] == "nosniff"
    assert original["Content-Disposition"] == f'inline; filename="{image.id}.jpg"'
    with default_storage.open(image.file.name) as stored:
        assert body_of(original) == stored.read()
    assert thumbnail["Content-Type"] == "image/webp"
    assert thumbnail["X-Content-Type-Options"] == "nosniff"


def test_a_video_is_served_as_video(owner_client, listing):
    video = upload_video(owner_client, listing.id, mp4_bytes()).json()
    name = listing.videos.get(pk=video["id"]).file.name

    response = served(name)

    assert response["Content-Type"] == "video/mp4"
    assert response["X-Content-Type-Options"] == "nosniff"


@pytest.mark.parametrize("name", ["properties/x/images/page.html", "properties/x/page.svg", "a.gz"])
def test_a_file_put_there_by_hand_is_never_served_as_a_page(name):
    # given a file the platform never writes, holding HTML
    stored = default_storage.save(name, ContentFile(b"<html><script>alert(1)</script></html>"))

    # when
    response = served(stored)

    # then it is bytes to download, not a page
    assert response["Content-Type"] == "application/octet-stream"
    assert response["Content-Disposition"].startswith("attachment;")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "Content-Encoding" not in response


def test_a_missing_file_is_404():
    with pytest.raises(Http404):
        served("properties/missing.jpg")


def test_a_path_outside_the_media_root_is_refused(tmp_path):
    # given a file beside the media root
    (tmp_path / "secrets.txt").write_text("not media")

    # then reaching it is refused (Django answers 400 for this exception)
    with pytest.raises(SuspiciousFileOperation):
        served("../secrets.txt")


@pytest.fixture
def debug_urls(settings):
    """config.urls rebuilt as `make run` (DEBUG) builds it, then rebuilt as before."""
    import config.urls

    settings.DEBUG = True
    importlib.reload(config.urls)
    clear_url_caches()
    yield
    settings.DEBUG = False
    importlib.reload(config.urls)
    clear_url_caches()


def test_make_run_serves_media_through_the_typed_view(debug_urls, settings):
    assert settings.MEDIA_URL == "/media/"

    match = resolve("/media/properties/abc/images/def.jpg")

    assert match.func is media_serve
    assert match.kwargs == {"path": "properties/abc/images/def.jpg"}
