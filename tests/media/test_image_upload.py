"""POST /images/upload: photos judged by their bytes, cleaned, resized and stored (D11, D13)."""

import io
import resource

import pytest
from django.core.files.storage import default_storage
from PIL import ExifTags, Image
from rest_framework.settings import api_settings

from media_app.models import Image as ImageRow
from tests.factories import ImageFactory
from tests.media.conftest import stored_files
from tests.media.support import (
    HTML_BYTES,
    SVG_BYTES,
    TEXT_BYTES,
    assert_problem,
    assert_validation_error,
    encode,
    gif_bytes,
    jpeg_bytes,
    jpeg_with_gps,
    noise_png,
    png_bomb,
    png_bytes,
    upload_image,
    uploaded,
    webp_bytes,
)

pytestmark = pytest.mark.django_db


def iso(moment) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def open_stored(name: str) -> Image.Image:
    """A stored file opened again with Pillow, fully read."""
    with default_storage.open(name) as stored:
        image = Image.open(io.BytesIO(stored.read()))
        image.load()
    return image


def test_owner_uploads_a_jpeg_and_gets_the_created_image(owner_client, listing, media_root):
    # when the listing's owner uploads a photo with a title
    response = upload_image(owner_client, listing.id, jpeg_bytes(64, 48), title="  Kitchen ")

    # then it is created with the D11 shape, urls absolute
    assert response.status_code == 201, response.content
    image = ImageRow.objects.get()
    prefix = f"http://testserver/media/properties/{listing.id}/images/{image.id}"
    assert response.json() == {
        "id": image.id,
        "url": f"{prefix}.jpg",
        "title": "Kitchen",
        "propertyId": listing.id,
        "createdAt": iso(image.created_at),
        "width": 64,
        "height": 48,
        "position": 0,
        "thumbnails": {"400": f"{prefix}_400.webp", "1200": f"{prefix}_1200.webp"},
    }
    # and the original and both thumbnails are stored under the listing's prefix
    folder = f"properties/{listing.id}/images"
    assert stored_files(media_root) == [
        f"{folder}/{image.id}.jpg",
        f"{folder}/{image.id}_1200.webp",
        f"{folder}/{image.id}_400.webp",
    ]
    assert image.file.name == f"{folder}/{image.id}.jpg"
    assert image.thumbnails == {
        "400": f"{folder}/{image.id}_400.webp",
        "1200": f"{folder}/{image.id}_1200.webp",
    }
    assert image.content_type == "image/jpeg"


def test_gps_exif_is_stripped_and_the_orientation_applied_before_storing(owner_client, listing):
    # given an 80x40 JPEG with GPS EXIF, a comment and "rotate 90 degrees clockwise" (6)
    original = Image.open(io.BytesIO(jpeg_with_gps(80, 40, orientation=6)))
    assert original.getexif().get_ifd(ExifTags.IFD.GPSInfo) != {}

    # when it is uploaded
    response = upload_image(owner_client, listing.id, jpeg_with_gps(80, 40, orientation=6))

    # then the stored original has no EXIF at all, no GPS, no comment
    assert response.status_code == 201, response.content
    image = ImageRow.objects.get()
    stored = open_stored(image.file.name)
    assert stored.format == "JPEG"
    assert dict(stored.getexif()) == {}
    assert stored.getexif().get_ifd(ExifTags.IFD.GPSInfo) == {}
    assert "exif" not in stored.info
    assert "comment" not in stored.info
    # and it is upright: 40 wide, 80 high, the left (red) half now on top
    assert stored.size == (40, 80)
    assert (image.width, image.height) == (40, 80)
    assert response.json()["width"] == 40
    assert response.json()["height"] == 80
    red, _green, blue = stored.convert("RGB").getpixel((20, 10))
    assert red > 200
    assert blue < 60
    red, _green, blue = stored.convert("RGB").getpixel((20, 70))
    assert red < 60
    assert blue > 200
    # and the thumbnails carry no EXIF either
    for name in image.thumbnails.values():
        thumbnail = open_stored(name)
        assert dict(thumbnail.getexif()) == {}
        assert "exif" not in thumbnail.info


@pytest.mark.parametrize(
    ("data", "image_format", "extension", "content_type"),
    [
        (png_bytes(), "PNG", "png", "image/png"),
        (png_bytes(mode="RGBA"), "PNG", "png", "image/png"),
        (webp_bytes(), "WEBP", "webp", "image/webp"),
        (jpeg_bytes(), "JPEG", "jpg", "image/jpeg"),
    ],
)
def test_png_webp_and_jpeg_are_stored_in_their_own_format(
    owner_client, listing, data, image_format, extension, content_type
):
    # when
    response = upload_image(owner_client, listing.id, data, name="upload.bin")

    # then the original keeps its format, named by what the bytes are
    assert response.status_code == 201, response.content
    image = ImageRow.objects.get()
    assert image.file.name == f"properties/{listing.id}/images/{image.id}.{extension}"
    assert image.content_type == content_type
    assert open_stored(image.file.name).format == image_format
    assert response.json()["url"].endswith(f"/{image.id}.{extension}")


@pytest.mark.parametrize(
    ("data", "extension"),
    [
        (encode(Image.new("1", (50, 40), 1), "PNG"), "png"),
        (encode(Image.new("I;16", (50, 40), 3000), "PNG"), "png"),
        (encode(Image.new("LA", (50, 40), (128, 100)), "PNG"), "png"),
        (encode(Image.new("P", (50, 40), 3), "PNG", transparency=3), "png"),
        (encode(Image.new("CMYK", (50, 40), (1, 2, 3, 4)), "JPEG"), "jpg"),
        (encode(Image.new("L", (50, 40), 9), "JPEG"), "jpg"),
        (encode(Image.new("RGBA", (50, 40), (1, 2, 3, 4)), "WEBP"), "webp"),
        (
            encode(
                Image.new("RGB", (50, 40)),
                "WEBP",
                save_all=True,
                append_images=[Image.new("RGB", (50, 40), "red")],
            ),
            "webp",
        ),
    ],
    ids=[
        "1-bit-png",
        "16-bit-png",
        "grey-alpha-png",
        "palette-png",
        "cmyk-jpeg",
        "grey-jpeg",
        "rgba-webp",
        "animated-webp",
    ],
)
def test_photos_in_less_common_modes_are_accepted(owner_client, listing, data, extension):
    # when
    response = upload_image(owner_client, listing.id, data)

    # then the original and both WebP copies are made
    assert response.status_code == 201, response.content
    image = ImageRow.objects.get()
    assert image.file.name.endswith(f".{extension}")
    assert (image.width, image.height) == (50, 40)
    assert {open_stored(name).format for name in image.thumbnails.values()} == {"WEBP"}


def test_name_and_content_type_of_the_upload_are_ignored(owner_client, listing):
    # when a JPEG is sent as "page.html" with Content-Type text/html
    response = upload_image(
        owner_client, listing.id, jpeg_bytes(), name="page.html", content_type="text/html"
    )

    # then it is a JPEG, stored and typed as one
    assert response.status_code == 201, response.content
    image = ImageRow.objects.get()
    assert image.file.name.endswith(".jpg")
    assert image.content_type == "image/jpeg"


def test_thumbnails_are_webp_400_and_1200_wide_with_the_photo_aspect(owner_client, listing):
    # when a 1600x900 photo is uploaded
    response = upload_image(owner_client, listing.id, jpeg_bytes(1600, 900))

    # then
    assert response.status_code == 201, response.content
    image = ImageRow.objects.get()
    sizes = {width: open_stored(name) for width, name in image.thumbnails.items()}
    assert {width: thumbnail.format for width, thumbnail in sizes.items()} == {
        "400": "WEBP",
        "1200": "WEBP",
    }
    assert sizes["1200"].size == (1200, 675)
    assert sizes["400"].size == (400, 225)
    assert (image.width, image.height) == (1600, 900)


def test_thumbnails_of_a_narrow_photo_are_not_upscaled(owner_client, listing):
    # when a 300x200 photo is uploaded
    response = upload_image(owner_client, listing.id, png_bytes(300, 200))

    # then both copies keep its own width
    assert response.status_code == 201, response.content
    image = ImageRow.objects.get()
    assert {width: open_stored(name).size for width, name in image.thumbnails.items()} == {
        "400": (300, 200),
        "1200": (300, 200),
    }


@pytest.mark.parametrize(
    ("data", "name", "content_type"),
    [
        (png_bytes() + HTML_BYTES, "photo.png", "image/png"),
        (TEXT_BYTES, "photo.jpg", "image/jpeg"),
        (SVG_BYTES, "photo.svg", "image/svg+xml"),
        (SVG_BYTES, "photo.jpg", "image/jpeg"),
        (gif_bytes(), "photo.gif", "image/gif"),
        (gif_bytes(), "photo.jpg", "image/jpeg"),
        (HTML_BYTES, "photo.png", "image/png"),
        (webp_bytes() + HTML_BYTES, "photo.webp", "image/webp"),
        (jpeg_bytes()[:200], "photo.jpg", "image/jpeg"),
        (png_bytes()[:-30], "photo.png", "image/png"),
    ],
    ids=[
        "png-with-html-appended",
        "text-named-jpg",
        "svg",
        "svg-named-jpg",
        "gif",
        "gif-named-jpg",
        "html-named-png",
        "webp-with-html-appended",
        "truncated-jpeg",
        "truncated-png",
    ],
)
def test_anything_but_a_whole_jpeg_png_or_webp_is_415(
    owner_client, listing, media_root, data, name, content_type
):
    # when
    response = upload_image(owner_client, listing.id, data, name=name, content_type=content_type)

    # then nothing is recorded and nothing stored
    assert_problem(response, status=415, code="unsupported_media_type")
    assert ImageRow.objects.count() == 0
    assert stored_files(media_root) == []


def test_a_file_over_the_size_limit_is_413(owner_client, listing, media_root, settings):
    # given a limit of 1,000 bytes
    settings.MEDIA_IMAGE_MAX_BYTES = 1000
    data = jpeg_bytes(400, 300)
    assert len(data) > 1000

    # when
    response = upload_image(owner_client, listing.id, data)

    # then
    assert_problem(response, status=413, code="payload_too_large")
    assert ImageRow.objects.count() == 0
    assert stored_files(media_root) == []


def test_a_file_at_the_size_limit_is_accepted(owner_client, listing, settings):
    # given a limit of exactly the file's size
    data = jpeg_bytes(40, 30)
    settings.MEDIA_IMAGE_MAX_BYTES = len(data)

    # when
    response = upload_image(owner_client, listing.id, data)

    # then
    assert response.status_code == 201, response.content


def test_a_photo_over_the_pixel_limit_is_413(owner_client, listing, media_root, settings):
    # given a limit of 100x100 pixels
    settings.MEDIA_IMAGE_MAX_PIXELS = 100 * 100

    # when a 101x100 photo and a 100x100 one are uploaded
    over = upload_image(owner_client, listing.id, png_bytes(101, 100))
    at_limit = upload_image(owner_client, listing.id, png_bytes(100, 100))

    # then the first is refused, the second accepted
    assert_problem(over, status=413, code="payload_too_large")
    assert at_limit.status_code == 201, at_limit.content
    assert list(ImageRow.objects.values_list("width", "height")) == [(100, 100)]


def test_a_decompression_bomb_is_refused_from_its_header_without_decoding_it(
    owner_client, listing, media_root
):
    # given a PNG of a few dozen KB declaring 20000x20000 pixels (400 MB once decoded)
    bomb = png_bomb(20_000)
    assert len(bomb) < 100_000
    peak_before_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss

    # when it is uploaded
    response = upload_image(owner_client, listing.id, bomb, name="bomb.png")

    # then it is refused, and the process never grew by anything like the decoded size
    peak_growth_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - peak_before_kb) / 1024
    assert response.status_code in (413, 415)
    assert_problem(response, status=413, code="payload_too_large")
    assert peak_growth_mb < 100
    assert ImageRow.objects.count() == 0
    assert stored_files(media_root) == []


def test_a_2_mb_photo_passes_although_form_fields_are_limited_to_1_mb(
    owner_client, listing, settings
):
    # given a photo of random pixels over 2 MB, twice Django's 1 MB limit for form fields
    assert settings.DATA_UPLOAD_MAX_MEMORY_SIZE == 1024 * 1024
    data = noise_png(900, 800)
    assert len(data) > 2 * 1024 * 1024

    # when
    response = upload_image(owner_client, listing.id, data, name="big.png")

    # then the file is not counted against that limit
    assert response.status_code == 201, response.content
    assert (response.json()["width"], response.json()["height"]) == (900, 800)


def test_uploads_go_to_the_end_of_the_gallery(owner_client, listing):
    # given a photo already at position 0
    first = ImageFactory(property=listing, position=0)

    # when two more are uploaded
    second = upload_image(owner_client, listing.id, jpeg_bytes())
    third = upload_image(owner_client, listing.id, png_bytes())

    # then they follow it, in upload order
    assert second.json()["position"] == 1
    assert third.json()["position"] == 2
    assert list(ImageRow.objects.order_by("position").values_list("id", flat=True)) == [
        first.id,
        second.json()["id"],
        third.json()["id"],
    ]


def test_a_listing_with_the_most_photos_allowed_refuses_another_with_409(
    owner_client, listing, media_root, settings
):
    # given a limit of 2 photos, both taken
    settings.MEDIA_MAX_IMAGES_PER_PROPERTY = 2
    for _ in range(2):
        assert upload_image(owner_client, listing.id, jpeg_bytes()).status_code == 201
    files_before = stored_files(media_root)

    # when a third is uploaded
    response = upload_image(owner_client, listing.id, jpeg_bytes())

    # then it is a conflict, and nothing more is recorded or stored
    body = assert_problem(response, status=409, code="conflict")
    assert body["detail"] == "A listing may have at most 2 photos; delete one first."
    assert ImageRow.objects.count() == 2
    assert stored_files(media_root) == files_before


def test_the_default_limit_is_50_photos(owner_client, listing, settings):
    # given 50 photos
    assert settings.MEDIA_MAX_IMAGES_PER_PROPERTY == 50
    ImageFactory.create_batch(50, property=listing)

    # when
    response = upload_image(owner_client, listing.id, jpeg_bytes())

    # then
    assert_problem(response, status=409, code="conflict")
    assert ImageRow.objects.count() == 50


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"title": "x"}, "image"),
        ({"image": ""}, "image"),
    ],
)
def test_a_missing_file_is_400_naming_it(owner_client, listing, body, field):
    # when
    response = owner_client.post(
        "/api/v1/images/upload", {"propertyId": listing.id, **body}, format="multipart"
    )

    # then
    assert_validation_error(response, field)
    assert ImageRow.objects.count() == 0


def test_an_empty_file_is_400(owner_client, listing):
    response = upload_image(owner_client, listing.id, b"")

    assert_validation_error(response, "image")
    assert ImageRow.objects.count() == 0


def test_a_title_over_200_characters_is_400(owner_client, listing, media_root):
    response = upload_image(owner_client, listing.id, jpeg_bytes(), title="x" * 201)

    assert_validation_error(response, "title")
    assert ImageRow.objects.count() == 0
    assert stored_files(media_root) == []


def test_a_blank_title_is_stored_as_none(owner_client, listing):
    response = upload_image(owner_client, listing.id, jpeg_bytes(), title="   ")

    assert response.status_code == 201, response.content
    assert response.json()["title"] is None
    assert ImageRow.objects.get().title is None


@pytest.mark.parametrize("property_id", [None, "", "nosuchlisting0000000000000"])
def test_a_missing_or_unknown_property_id_is_400_naming_it(owner_client, property_id, media_root):
    response = upload_image(owner_client, property_id, jpeg_bytes())

    assert_validation_error(response, "propertyId")
    assert ImageRow.objects.count() == 0
    assert stored_files(media_root) == []


def test_uploads_are_throttled_per_user(owner_client, listing, throttle_rates):
    # given an upload rate of 2 per hour
    throttle_rates(upload="2/hour")
    for _ in range(2):
        assert upload_image(owner_client, listing.id, jpeg_bytes()).status_code == 201

    # when a third is sent
    response = upload_image(owner_client, listing.id, jpeg_bytes())

    # then it is 429 with Retry-After, and nothing is recorded
    assert_problem(response, status=429, code="throttled")
    assert int(response["Retry-After"]) > 0
    assert ImageRow.objects.count() == 2
    # and reading is not an upload
    assert owner_client.get("/api/v1/images", {"propertyId": listing.id}).status_code == 200


def test_the_upload_rate_defaults_to_60_an_hour():
    assert api_settings.DEFAULT_THROTTLE_RATES["upload"] == "60/hour"


def test_a_body_announced_too_large_is_413_before_it_is_read(owner_client, listing, media_root):
    # when an upload's Content-Length says 1 GB, far past the 10 MB limit
    response = owner_client.post(
        "/api/v1/images/upload",
        {"image": uploaded(jpeg_bytes(), "photo.jpg", "image/jpeg"), "propertyId": listing.id},
        format="multipart",
        CONTENT_LENGTH=str(1024**3),
    )

    # then it is refused without the body being parsed
    assert_problem(response, status=413, code="payload_too_large")
    assert ImageRow.objects.count() == 0
    assert stored_files(media_root) == []
