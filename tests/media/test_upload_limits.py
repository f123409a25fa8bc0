"""File parts are bounded on every API endpoint, and an upload's limit holds with a session."""

import pytest
from rest_framework.test import APIClient

from media_app.models import Image
from tests.media.conftest import stored_files
from tests.media.support import IMAGE_UPLOAD_URL, assert_problem, noise_png, uploaded

pytestmark = pytest.mark.django_db

LIMIT = 100_000


def test_any_file_part_is_bounded_by_the_largest_media_limit(settings):
    largest = max(settings.MEDIA_IMAGE_MAX_BYTES, settings.MEDIA_VIDEO_MAX_BYTES)
    assert settings.UPLOAD_FILE_MAX_BYTES == largest == 100 * 1024 * 1024


def test_an_oversize_file_part_on_an_endpoint_without_uploads_is_413(
    anonymous_client, settings, spooled
):
    # given a limit of 100,000 bytes on any file part
    settings.UPLOAD_FILE_MAX_BYTES = LIMIT

    # when a sign-in is posted as multipart with a file three times that
    response = anonymous_client.post(
        "/api/v1/users/login",
        {
            "attachment": uploaded(b"\x00" * 3 * LIMIT, "big.bin", "application/octet-stream"),
            "email": "carla.customer@example.com",
            "password": "whatever-it-is",
        },
        format="multipart",
    )

    # then it is a 413 problem document, and no more than the limit was ever kept
    body = assert_problem(response, status=413, code="payload_too_large")
    assert body["detail"] == f"A file may be at most {LIMIT} bytes."
    assert max(spooled) <= LIMIT


@pytest.fixture
def session_client(owner) -> tuple[APIClient, str]:
    """The owner signed in with a session, CSRF enforced, and the token a page gave it."""
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(owner)
    client.get("/en/accounts/login/")
    return client, client.cookies["csrftoken"].value


def test_an_upload_with_a_session_is_stopped_at_its_limit_while_streaming(
    session_client, listing, settings, media_root, spooled
):
    # given a photo limit of 100,000 bytes; the session's CSRF check reads the form itself
    settings.MEDIA_IMAGE_MAX_BYTES = LIMIT
    client, token = session_client

    # when a photo three times that is uploaded with the session
    response = client.post(
        IMAGE_UPLOAD_URL,
        {
            "image": uploaded(noise_png(300, 300), "photo.png", "image/png"),
            "propertyId": listing.id,
            "csrfmiddlewaretoken": token,
        },
        format="multipart",
    )

    # then it is refused while it was read: never more than the limit kept
    assert_problem(response, status=413, code="payload_too_large")
    assert max(spooled) <= LIMIT
    assert Image.objects.count() == 0
    assert stored_files(media_root) == []


def test_an_upload_with_a_session_and_its_token_is_accepted(session_client, listing):
    client, token = session_client

    response = client.post(
        IMAGE_UPLOAD_URL,
        {
            "image": uploaded(noise_png(30, 30), "photo.png", "image/png"),
            "propertyId": listing.id,
            "csrfmiddlewaretoken": token,
        },
        format="multipart",
    )

    assert response.status_code == 201, response.content
    assert Image.objects.count() == 1
