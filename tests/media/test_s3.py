"""Media on S3: tested against an S3-compatible server over HTTP (moto's server mode) (D11)."""

import io
import itertools
import urllib.request

import boto3
import pytest
from django.core.management import call_command
from moto.server import ThreadedMotoServer

from media_app.models import Image, Video
from tests.media.support import (
    ebml_bytes,
    image_url,
    jpeg_bytes,
    mp4_bytes,
    png_bytes,
    upload_image,
    upload_video,
)

pytestmark = pytest.mark.django_db

REGION = "us-east-1"
ACCESS_KEY = "testing-access-key"
SECRET_KEY = "testing-secret-key"
bucket_numbers = itertools.count(1)


@pytest.fixture(scope="session")
def s3_endpoint():
    """An S3-compatible server on a free local port for the whole test session."""
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3(s3_endpoint, settings):
    """A fresh bucket, and the default storage switched to it as the S3 settings switch it."""
    bucket = f"estate-media-{next(bucket_numbers)}"
    client = boto3.client(
        "s3",
        endpoint_url=s3_endpoint,
        region_name=REGION,
        aws_access_key_id=ACCESS_KEY,
        aws_secret_access_key=SECRET_KEY,
    )
    client.create_bucket(Bucket=bucket)
    # The same backend and options config/settings/base.py uses when AWS_* are set; changing
    # STORAGES makes Django drop its cached storages, so default_storage is this one.
    settings.STORAGES = {
        **settings.STORAGES,
        "default": {
            "BACKEND": "media_app.storage.MediaS3Storage",
            "OPTIONS": {
                "bucket_name": bucket,
                "endpoint_url": s3_endpoint,
                "region_name": REGION,
                "access_key": ACCESS_KEY,
                "secret_key": SECRET_KEY,
                "querystring_auth": True,
                "addressing_style": "path",
                "file_overwrite": False,
            },
        },
    }
    client.bucket = bucket
    return client


def keys(s3, prefix: str = "") -> list[str]:
    """Every object key in the test's bucket under a prefix, sorted."""
    listing = s3.list_objects_v2(Bucket=s3.bucket, Prefix=prefix)
    return sorted(entry["Key"] for entry in listing.get("Contents", []))


def fetch(url: str) -> tuple[bytes, str]:
    """GET a URL over HTTP: the body and the Content-Type."""
    with urllib.request.urlopen(url, timeout=10) as response:  # noqa: S310 (local test server)
        return response.read(), response.headers["Content-Type"]


def test_an_upload_puts_the_original_and_both_thumbnails_in_the_bucket(
    owner_client, listing, s3, s3_endpoint
):
    # when a photo is uploaded with S3 as the storage
    response = upload_image(owner_client, listing.id, jpeg_bytes(), content_type="text/html")

    # then the original and its two thumbnails are objects under the listing's prefix
    assert response.status_code == 201, response.content
    image = Image.objects.get()
    prefix = f"properties/{listing.id}/images/{image.id}"
    assert keys(s3) == [f"{prefix}.jpg", f"{prefix}_1200.webp", f"{prefix}_400.webp"]
    # stored with their own type, shown inline, whatever the client claimed
    head = s3.head_object(Bucket=s3.bucket, Key=f"{prefix}.jpg")
    assert head["ContentType"] == "image/jpeg"
    assert head["ContentDisposition"] == f'inline; filename="{image.id}.jpg"'
    thumbnail_head = s3.head_object(Bucket=s3.bucket, Key=f"{prefix}_400.webp")
    assert thumbnail_head["ContentType"] == "image/webp"
    # and the response's urls are absolute signed urls of the bucket that serve the files
    body = response.json()
    assert body["url"].startswith(f"{s3_endpoint}/{s3.bucket}/{prefix}.jpg?")
    assert body["thumbnails"]["400"].startswith(f"{s3_endpoint}/{s3.bucket}/{prefix}_400.webp?")
    content, content_type = fetch(body["url"])
    assert content_type == "image/jpeg"
    assert content == s3.get_object(Bucket=s3.bucket, Key=f"{prefix}.jpg")["Body"].read()


def test_a_video_upload_streams_the_file_into_the_bucket(owner_client, listing, s3):
    data = ebml_bytes(body=256 * 1024)

    response = upload_video(
        owner_client, listing.id, data, name="tour.mp4", content_type="text/html"
    )

    assert response.status_code == 201, response.content
    video = Video.objects.get()
    key = f"properties/{listing.id}/videos/{video.id}.webm"
    assert keys(s3) == [key]
    stored = s3.get_object(Bucket=s3.bucket, Key=key)
    assert stored["ContentType"] == "video/webm"
    assert stored["Body"].read() == data


def test_deleting_a_photo_removes_its_objects(
    owner_client, listing, s3, django_capture_on_commit_callbacks
):
    # given two uploaded photos
    kept = upload_image(owner_client, listing.id, jpeg_bytes()).json()
    gone = upload_image(owner_client, listing.id, png_bytes()).json()
    assert len(keys(s3)) == 6

    # when one is deleted
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.delete(image_url(gone["id"]))

    # then its three objects are gone, the other's remain
    assert response.status_code == 204
    folder = f"properties/{listing.id}/images"
    assert keys(s3) == [
        f"{folder}/{kept['id']}.jpg",
        f"{folder}/{kept['id']}_1200.webp",
        f"{folder}/{kept['id']}_400.webp",
    ]


def test_deleting_a_listing_removes_all_its_objects(
    owner_client, owner, listing, s3, django_capture_on_commit_callbacks
):
    # given a listing with two photos and a video, and a second listing with a photo
    upload_image(owner_client, listing.id, jpeg_bytes())
    upload_image(owner_client, listing.id, png_bytes())
    upload_video(owner_client, listing.id, mp4_bytes())
    second = owner_client.post(
        "/api/v1/properties",
        {
            "title": "Second flat",
            "description": "Another one.",
            "price": 1000,
            "latitude": 40.0,
            "longitude": -3.0,
            "transactionType": "RENT",
            "municipality": "Madrid",
            "address": "1 Calle Mayor",
            "area": 50,
            "categoryId": listing.category_id,
        },
        format="json",
    ).json()
    upload_image(owner_client, second["id"], jpeg_bytes())
    assert len(keys(s3, f"properties/{listing.id}/")) == 7

    # when the listing is deleted
    with django_capture_on_commit_callbacks(execute=True):
        response = owner_client.delete(f"/api/v1/properties/{listing.id}")

    # then nothing is left under its prefix; the second listing keeps its three objects
    assert response.status_code == 204
    assert keys(s3, f"properties/{listing.id}/") == []
    assert len(keys(s3, f"properties/{second['id']}/")) == 3


def test_orphans_are_found_and_removed_in_the_bucket(owner_client, listing, s3):
    # given an uploaded photo and a stray object under the listing's prefix
    upload_image(owner_client, listing.id, jpeg_bytes())
    referenced = keys(s3)
    stray = f"properties/{listing.id}/images/stray.jpg"
    s3.put_object(Bucket=s3.bucket, Key=stray, Body=b"stray")

    # when
    out = io.StringIO()
    call_command("media_orphans", "--delete", "--min-age", "0", stdout=out)

    # then
    assert out.getvalue().splitlines() == [stray, "1 orphaned file(s), 1 deleted."]
    assert keys(s3) == referenced
