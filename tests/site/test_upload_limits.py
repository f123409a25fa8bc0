"""The website's uploads keep the API's limits: size while streaming (413), rate (429), CSRF.

Every multipart body, on any page, has its file parts bounded too (UPLOAD_FILE_MAX_BYTES).
"""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from accounts.services import access_token_issue
from media_app.models import Image, Video
from tests.media.conftest import stored_files
from tests.media.support import jpeg_bytes, mp4_bytes, noise_png, upload_image, uploaded
from tests.site.conftest import house, jpeg_upload

pytestmark = pytest.mark.django_db

# The limit the size tests set; their files are about three times as large.
LIMIT = 100_000


def upload_page(listing, kind: str = "photos") -> str:
    return f"/en/owner/listings/{listing.pk}/{kind}/"


def csrf_checked(user=None, *, page: str = "/en/accounts/login/") -> tuple[Client, str]:
    """A client that enforces CSRF as a browser's post would, and the token a page gave it."""
    client = Client(enforce_csrf_checks=True)
    if user is not None:
        client.force_login(user)
    client.get(page)
    return client, client.cookies["csrftoken"].value


OVERSIZE = {
    "photos": ("MEDIA_IMAGE_MAX_BYTES", "photo-file", lambda: noise_png(300, 300), "photo.png"),
    "videos": ("MEDIA_VIDEO_MAX_BYTES", "video-file", lambda: mp4_bytes(body=3 * LIMIT), "a.mp4"),
}
NOUNS = {"photos": "An image", "videos": "A video"}


@pytest.mark.parametrize("kind", ["photos", "videos"])
def test_an_oversize_file_is_refused_with_413_while_it_is_read(
    owner_session, owner, settings, media_root, spooled, kind
):
    # given a limit of 100,000 bytes and a file three times that
    setting, field, make, name = OVERSIZE[kind]
    setattr(settings, setting, LIMIT)
    data = make()
    assert len(data) > 2 * LIMIT
    listing = house(owner)

    # when it is uploaded through the website
    response = owner_session.post(upload_page(listing, kind), {field: uploaded(data, name, "")})

    # then the page says why, with 413, and nothing is recorded or stored
    assert response.status_code == 413
    assert f"{NOUNS[kind]} may be at most {LIMIT} bytes." in response.text
    assert 'role="alert"' in response.text
    assert Image.objects.count() == Video.objects.count() == 0
    assert stored_files(media_root) == []
    # and no more than the limit of the file was ever kept in memory or spooled to disk
    assert spooled
    assert max(spooled) <= LIMIT


def test_an_oversize_photo_is_stopped_before_the_csrf_check_reads_it(
    owner, settings, media_root, spooled
):
    # given a browser-like client: the CSRF token travels in the multipart body itself
    settings.MEDIA_IMAGE_MAX_BYTES = LIMIT
    listing = house(owner)
    client, token = csrf_checked(owner, page=f"/en/owner/listings/{listing.pk}/media/")

    # when an oversize photo is posted with its token
    response = client.post(
        upload_page(listing),
        {"photo-file": uploaded(noise_png(300, 300), "p.png", ""), "csrfmiddlewaretoken": token},
    )

    # then reading the body for the token stopped at the photo's limit
    assert response.status_code == 413
    assert f"An image may be at most {LIMIT} bytes." in response.text
    assert max(spooled) <= LIMIT
    assert stored_files(media_root) == []


def test_the_upload_form_still_needs_its_csrf_token(owner, media_root):
    listing = house(owner)
    client, token = csrf_checked(owner, page=f"/en/owner/listings/{listing.pk}/media/")

    without_token = client.post(upload_page(listing), {"photo-file": jpeg_upload()})
    with_token = client.post(
        upload_page(listing), {"photo-file": jpeg_upload(), "csrfmiddlewaretoken": token}
    )

    assert without_token.status_code == 403
    assert with_token.status_code == 302
    assert Image.objects.count() == 1


def test_uploads_through_the_website_and_the_api_share_one_rate_limit(
    owner_session, owner, throttle_rates, spooled
):
    # given an upload rate of 3 an hour, and the owner's bearer token for the API
    throttle_rates(upload="3/hour")
    listing = house(owner)
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {access_token_issue(user=owner)[0]}")

    # when two photos go through the website and one through the API
    site = [owner_session.post(upload_page(listing), {"photo-file": jpeg_upload()}) for _ in "ab"]
    through_api = upload_image(api, listing.pk, jpeg_bytes())
    spooled.clear()
    # and a fourth is sent through each
    refused = owner_session.post(upload_page(listing), {"photo-file": jpeg_upload()})
    refused_by_api = upload_image(api, listing.pk, jpeg_bytes())

    # then the first three are added; the fourth is 429 on both, its body never read
    assert [response.status_code for response in site] == [302, 302]
    assert through_api.status_code == 201, through_api.content
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) > 0
    assert f"Too many uploads. Try again in {refused['Retry-After']} seconds." in refused.text
    assert refused_by_api.status_code == 429
    assert spooled == []
    assert Image.objects.count() == 3


def test_a_file_part_posted_to_any_page_is_bounded_too(customer, settings, spooled):
    # given a limit of 100,000 bytes on any file part of any multipart body
    settings.UPLOAD_FILE_MAX_BYTES = LIMIT
    client, token = csrf_checked()

    # when a sign-in form is posted with a file three times that
    response = client.post(
        "/en/accounts/login/",
        {
            "attachment": uploaded(b"\x00" * 3 * LIMIT, "big.bin", "application/octet-stream"),
            "email": "carla@example.com",
            "password": "whatever-it-is",
            "csrfmiddlewaretoken": token,
        },
    )

    # then it is the site's 413 page, and no more than the limit was ever kept
    assert response.status_code == 413
    assert "<h1>Too large</h1>" in response.text
    assert f"A file may be at most {LIMIT} bytes." in response.text
    assert max(spooled) <= LIMIT
