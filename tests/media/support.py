"""Real media files made in memory for the media tests, and the helpers that send them."""

import io
import os
import struct
import zlib

from django.core.files.uploadedfile import SimpleUploadedFile
from PIL import ExifTags, Image

IMAGES_URL = "/api/v1/images"
VIDEOS_URL = "/api/v1/videos"
IMAGE_UPLOAD_URL = f"{IMAGES_URL}/upload"
VIDEO_UPLOAD_URL = f"{VIDEOS_URL}/upload"
PROBLEM_CONTENT_TYPE = "application/problem+json"

IMAGE_KEYS = {
    "id",
    "url",
    "title",
    "propertyId",
    "createdAt",
    "width",
    "height",
    "position",
    "thumbnails",
}
VIDEO_KEYS = {"id", "url", "title", "propertyId", "createdAt", "position"}


# --- Images ------------------------------------------------------------------------------


def encode(image: Image.Image, image_format: str, **options) -> bytes:
    """The image saved in a format, as bytes."""
    buffer = io.BytesIO()
    image.save(buffer, image_format, **options)
    return buffer.getvalue()


def picture(width: int = 64, height: int = 48, mode: str = "RGB") -> Image.Image:
    """A two-coloured picture whose left half is red and right half blue (to see rotations)."""
    image = Image.new(mode, (width, height), "red")
    image.paste("blue", (width // 2, 0, width, height))
    return image


def jpeg_bytes(width: int = 64, height: int = 48, **options) -> bytes:
    return encode(picture(width, height), "JPEG", quality=95, **options)


def png_bytes(width: int = 64, height: int = 48, mode: str = "RGB") -> bytes:
    return encode(picture(width, height, mode), "PNG")


def webp_bytes(width: int = 64, height: int = 48) -> bytes:
    return encode(picture(width, height), "WEBP")


def gps_exif(*, orientation: int = 1) -> Image.Exif:
    """EXIF with a camera make, an orientation and a GPS position (Madrid)."""
    exif = Image.Exif()
    exif[ExifTags.Base.Make] = "Estate Test Camera"
    exif[ExifTags.Base.Orientation] = orientation
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLatitudeRef] = "N"
    gps[ExifTags.GPS.GPSLatitude] = (40.0, 25.0, 1.5)
    gps[ExifTags.GPS.GPSLongitudeRef] = "W"
    gps[ExifTags.GPS.GPSLongitude] = (3.0, 42.0, 13.0)
    return exif


def jpeg_with_gps(width: int = 80, height: int = 40, *, orientation: int = 1) -> bytes:
    """A JPEG carrying EXIF with GPS, an orientation tag and a comment."""
    return jpeg_bytes(
        width, height, exif=gps_exif(orientation=orientation), comment=b"shot at home"
    )


def gif_bytes() -> bytes:
    return encode(picture(), "GIF")


SVG_BYTES = (
    b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(document.cookie)</script></svg>"
)
HTML_BYTES = b"<html><body><script>alert(document.cookie)</script></body></html>"
TEXT_BYTES = b"This is a plain text file, not a photo.\n" * 4


def noise_png(width: int, height: int) -> bytes:
    """An RGB PNG of random pixels: it hardly compresses, so its size is about 3*w*h bytes."""
    return encode(Image.frombytes("RGB", (width, height), os.urandom(width * height * 3)), "PNG")


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(side: int = 20_000) -> bytes:
    """A valid 1-bit PNG of side x side black pixels that compresses to a few dozen KB.

    Written chunk by chunk rather than with Pillow, so that making it does not itself need
    the side*side bytes Pillow would allocate for the picture.
    """
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)  # 1-bit greyscale
    row = b"\x00" * (1 + (side + 7) // 8)  # filter byte + packed bits
    compressor = zlib.compressobj(9)
    rows_per_chunk = 500
    data = b"".join(compressor.compress(row * rows_per_chunk) for _ in range(side // 500))
    data += compressor.flush()
    return (
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", data)
        + _png_chunk(b"IEND", b"")
    )


# --- Videos ------------------------------------------------------------------------------


def mp4_bytes(brand: bytes = b"isom", *, body: int = 64) -> bytes:
    """A minimal MP4: an `ftyp` box (major brand, compatible isom/iso2/mp41), then `free`."""
    ftyp = b"ftyp" + brand + struct.pack(">I", 0x200) + b"isomiso2mp41"
    free = b"free" + b"\x00" * body
    return struct.pack(">I", len(ftyp) + 4) + ftyp + struct.pack(">I", len(free) + 4) + free


def quicktime_bytes() -> bytes:
    """A QuickTime movie header (`ftyp` with major brand `qt  `): not MP4."""
    ftyp = b"ftyp" + b"qt  " + struct.pack(">I", 0x200) + b"qt  "
    return struct.pack(">I", len(ftyp) + 4) + ftyp + b"\x00" * 32


def _ebml_element(identifier: bytes, payload: bytes) -> bytes:
    assert len(payload) < 127
    return identifier + bytes([0x80 | len(payload)]) + payload


def ebml_bytes(doc_type: bytes = b"webm", *, body: int = 64) -> bytes:
    """A minimal EBML file: the EBML header with this DocType, then a Segment's start."""
    header = b"".join(
        [
            _ebml_element(b"\x42\x86", b"\x01"),  # EBMLVersion 1
            _ebml_element(b"\x42\xf7", b"\x01"),  # EBMLReadVersion 1
            _ebml_element(b"\x42\xf2", b"\x04"),  # EBMLMaxIDLength 4
            _ebml_element(b"\x42\xf3", b"\x08"),  # EBMLMaxSizeLength 8
            _ebml_element(b"\x42\x82", doc_type),  # DocType
            _ebml_element(b"\x42\x87", b"\x04"),  # DocTypeVersion 4
            _ebml_element(b"\x42\x85", b"\x02"),  # DocTypeReadVersion 2
        ]
    )
    segment = b"\x18\x53\x80\x67" + b"\x01\xff\xff\xff\xff\xff\xff\xff" + b"\x00" * body
    return b"\x1a\x45\xdf\xa3" + bytes([0x80 | len(header)]) + header + segment


# --- Requests ----------------------------------------------------------------------------


def uploaded(data: bytes, name: str, content_type: str) -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type=content_type)


def upload_image(
    client,
    property_id: str | None,
    data: bytes,
    *,
    name: str = "photo.jpg",
    content_type: str = "image/jpeg",
    title: str | None = None,
):
    """POST /images/upload as multipart: image, propertyId and (when given) title."""
    body: dict[str, object] = {"image": uploaded(data, name, content_type)}
    if property_id is not None:
        body["propertyId"] = property_id
    if title is not None:
        body["title"] = title
    return client.post(IMAGE_UPLOAD_URL, body, format="multipart")


def upload_video(
    client,
    property_id: str | None,
    data: bytes,
    *,
    name: str = "tour.mp4",
    content_type: str = "video/mp4",
    title: str | None = None,
):
    """POST /videos/upload as multipart: video, propertyId and (when given) title."""
    body: dict[str, object] = {"video": uploaded(data, name, content_type)}
    if property_id is not None:
        body["propertyId"] = property_id
    if title is not None:
        body["title"] = title
    return client.post(VIDEO_UPLOAD_URL, body, format="multipart")


def image_url(image_id: str) -> str:
    return f"{IMAGES_URL}/{image_id}"


def video_url(video_id: str) -> str:
    return f"{VIDEOS_URL}/{video_id}"


def assert_problem(response, *, status: int, code: str) -> dict:
    """The response is an RFC 9457 problem document with this status and code."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    assert body["type"] == "about:blank"
    assert body["detail"]
    return body


def assert_validation_error(response, *fields: str) -> dict:
    """A 400 validation_error whose field errors name exactly these fields."""
    body = assert_problem(response, status=400, code="validation_error")
    assert [error["field"] for error in body["errors"]] == list(fields)
    return body
