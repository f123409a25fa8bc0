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


def ebml_size(length: int) -> bytes:
    """An EBML element size in the fewest bytes: a length marker bit, then the value."""
    width = 1
    while length >= (1 << (7 * width)) - 1:
        width += 1
    return ((1 << (7 * width)) | length).to_bytes(width, "big")


def ebml_element(identifier: bytes, *parts: bytes) -> bytes:
    """An EBML element: its id, the size of its payload, then the payload (parts joined)."""
    payload = b"".join(parts)
    return identifier + ebml_size(len(payload)) + payload


# The size a live recording gives its Segment and Clusters: "unknown", to the next element.
EBML_UNKNOWN_SIZE = b"\x01\xff\xff\xff\xff\xff\xff\xff"


def _ebml_header(doc_type: bytes) -> bytes:
    return ebml_element(
        b"\x1a\x45\xdf\xa3",
        ebml_element(b"\x42\x86", b"\x01"),  # EBMLVersion 1
        ebml_element(b"\x42\xf7", b"\x01"),  # EBMLReadVersion 1
        ebml_element(b"\x42\xf2", b"\x04"),  # EBMLMaxIDLength 4
        ebml_element(b"\x42\xf3", b"\x08"),  # EBMLMaxSizeLength 8
        ebml_element(b"\x42\x82", doc_type),  # DocType
        ebml_element(b"\x42\x87", b"\x04"),  # DocTypeVersion 4
        ebml_element(b"\x42\x85", b"\x02"),  # DocTypeReadVersion 2
    )


def ebml_bytes(doc_type: bytes = b"webm", *, body: int = 64) -> bytes:
    """A minimal EBML file: the EBML header with this DocType, then a Segment of unknown
    size holding `body` bytes of padding (a Void element)."""
    return (
        _ebml_header(doc_type)
        + b"\x18\x53\x80\x67"
        + EBML_UNKNOWN_SIZE
        + ebml_element(b"\xec", b"\x00" * body)
    )


# A position, as phones write it (ISO 6709: latitude, longitude, altitude): Madrid.
COORDINATES = b"+40.4168-003.7038"
ISO6709 = COORDINATES + b"+650.000/"
# What a video's one track has in `mdat`; its chunk offset (stco) points at it.
SAMPLES = b"estate-sample-bytes:" * 40


def webm_simple_tag(name: bytes, value: bytes) -> bytes:
    """A Matroska SimpleTag: TagName and TagString."""
    return ebml_element(
        b"\x67\xc8", ebml_element(b"\x45\xa3", name), ebml_element(b"\x44\x87", value)
    )


def webm_movie(*tags: bytes, tags_after_clusters: bool = False) -> bytes:
    """A WebM as a live recording writes it (Segment and Cluster of unknown size), with a
    Tags element of these SimpleTags before the Cluster or, when asked, after it."""
    info = ebml_element(b"\x15\x49\xa9\x66", ebml_element(b"\x2a\xd7\xb1", b"\x0f\x42\x40"))
    cluster = (
        b"\x1f\x43\xb6\x75"
        + EBML_UNKNOWN_SIZE
        + ebml_element(b"\xe7", b"\x00")  # Timestamp 0
        + ebml_element(b"\xa3", b"\x81\x00\x00\x80", SAMPLES)  # SimpleBlock of track 1
    )
    tags_element = b""
    if tags:
        tags_element = ebml_element(
            b"\x12\x54\xc3\x67", ebml_element(b"\x73\x73", ebml_element(b"\x63\xc0"), *tags)
        )
    body = info + (cluster + tags_element if tags_after_clusters else tags_element + cluster)
    return _ebml_header(b"webm") + b"\x18\x53\x80\x67" + EBML_UNKNOWN_SIZE + body


def mp4_box(kind: bytes, *parts: bytes) -> bytes:
    """An ISO BMFF box: 32-bit size, 4-byte type, then its payload (parts joined)."""
    payload = b"".join(parts)
    return struct.pack(">I", 8 + len(payload)) + kind + payload


def mp4_full_box(kind: bytes, *parts: bytes) -> bytes:
    """A box that opens with a version (0) and flags (0)."""
    return mp4_box(kind, b"\x00\x00\x00\x00", *parts)


def mp4_text(value: bytes) -> bytes:
    """An iTunes or QuickTime metadata value: a `data` box of UTF-8 text."""
    return mp4_box(b"data", struct.pack(">II", 1, 0), value)


def mp4_handler(handler_type: bytes) -> bytes:
    return mp4_full_box(b"hdlr", b"\x00" * 4, handler_type, b"\x00" * 12, b"\x00")


def quicktime_location() -> bytes:
    """`©xyz` as Android phones write it in moov/udta: text length, language, ISO 6709."""
    text = COORDINATES + b"/"
    return mp4_box(b"\xa9xyz", struct.pack(">HH", len(text), 0x15C7), text)


def itunes_metadata(*, location: bool = True) -> bytes:
    """An iTunes-style `meta` (a full box) in udta: an item list with the encoder and,
    when asked, a `©xyz` item."""
    items = [mp4_box(b"\xa9too", mp4_text(b"Lavf60.16.100"))]
    if location:
        items.insert(0, mp4_box(b"\xa9xyz", mp4_text(COORDINATES + b"/")))
    return mp4_full_box(b"meta", mp4_handler(b"mdir"), mp4_box(b"ilst", *items))


def loci_box() -> bytes:
    """3GPP location information: a place name and fixed-point longitude/latitude/altitude."""
    position = struct.pack(">iii", round(-3.7038 * 65536), round(40.4168 * 65536), 650 << 16)
    return mp4_full_box(
        b"loci", b"\x15\xc7", b"Calle Real 2\x00", b"\x00", position, b"earth\x00\x00"
    )


LOCI_SECRETS = (b"Calle Real 2", struct.pack(">ii", round(-3.7038 * 65536), round(40.4168 * 65536)))


def apple_metadata(*, location: bool = True) -> bytes:
    """QuickTime metadata as iPhones write it in moov: `meta` (no version and flags) with a
    `keys` list and an item list whose items are named by their key's 1-based index."""
    names = [b"com.apple.quicktime.make", b"com.apple.quicktime.model"]
    values = [b"Apple", b"iPhone 15"]
    if location:
        names.insert(1, b"com.apple.quicktime.location.ISO6709")
        values.insert(1, ISO6709)
    keys = mp4_full_box(
        b"keys",
        struct.pack(">I", len(names)),
        *[struct.pack(">I", 8 + len(name)) + b"mdta" + name for name in names],
    )
    items = [
        mp4_box(struct.pack(">I", index), mp4_text(value))
        for index, value in enumerate(values, start=1)
    ]
    return mp4_box(b"meta", mp4_handler(b"mdta"), keys, mp4_box(b"ilst", *items))


XMP_UUID = bytes.fromhex("be7acfcb97a942e89c71999491e3afac")


def xmp_box(*, location: bool = True) -> bytes:
    """An XMP packet in a top-level `uuid` box, as Adobe's tools write it."""
    gps = b' exif:GPSLatitude="40,25.0080N" exif:GPSLongitude="3,42.2280W"' if location else b""
    packet = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description xmp:CreatorTool="Estate"'
    return mp4_box(b"uuid", XMP_UUID, packet + gps + b"/></x:xmpmeta>")


def mp4_movie(
    *,
    udta: tuple[bytes, ...] = (),
    meta: bytes = b"",
    track_udta: tuple[bytes, ...] = (),
    top: tuple[bytes, ...] = (),
    moov_last: bool = False,
) -> bytes:
    """An MP4 with one track whose chunk offset (stco) points at SAMPLES in `mdat`.

    `udta` and `meta` are added to moov (its user data, its metadata), `track_udta` to the
    track's user data, `top` after `ftyp`. moov comes before mdat (as for streaming) unless
    `moov_last` (as phones record).
    """
    ftyp = mp4_box(b"ftyp", b"isom", struct.pack(">I", 0x200), b"isomiso2mp41")

    def moov(chunk_offset: int) -> bytes:
        stbl = mp4_box(
            b"stbl",
            mp4_full_box(b"stsd", struct.pack(">I", 0)),
            mp4_full_box(b"stco", struct.pack(">II", 1, chunk_offset)),
        )
        trak = mp4_box(
            b"trak",
            mp4_full_box(b"tkhd", b"\x00" * 80),
            mp4_box(
                b"mdia",
                mp4_full_box(b"mdhd", b"\x00" * 20),
                mp4_handler(b"vide"),
                mp4_box(b"minf", stbl),
            ),
            mp4_box(b"udta", *track_udta) if track_udta else b"",
        )
        user_data = mp4_box(b"udta", *udta) if udta else b""
        return mp4_box(b"moov", mp4_full_box(b"mvhd", b"\x00" * 96), trak, user_data, meta)

    head = ftyp + b"".join(top)
    mdat = mp4_box(b"mdat", SAMPLES)
    if moov_last:
        return head + mdat + moov(len(head) + 8)
    return head + moov(len(head) + len(moov(0)) + 8) + mdat


_MP4_CONTAINERS = {b"moov", b"trak", b"mdia", b"minf", b"stbl", b"udta", b"meta", b"ilst"}


def mp4_tree(data: bytes, start: int = 0, end: int | None = None, parent: str = "") -> list:
    """Every box of an MP4 down through the containers, as (path, offset, size), in order.

    Fails (AssertionError) unless the boxes exactly fill the file and each container; a
    QuickTime `meta` has no version and flags, an ISO one has.
    """
    end = len(data) if end is None else end
    boxes = []
    position = start
    while position < end:
        size, kind = struct.unpack(">I4s", data[position : position + 8])
        assert 8 <= size <= end - position, (parent, position, size)
        name = kind.decode("latin-1") if kind.isascii() or kind[0] == 0xA9 else ""
        if not name.isprintable():
            name = f"#{int.from_bytes(kind, 'big')}"
        path = f"{parent}/{name}" if parent else name
        boxes.append((path, position, size))
        if kind in _MP4_CONTAINERS:
            children = position + 8
            if kind == b"meta" and data[children + 4 : children + 8] != b"hdlr":
                children += 4
            boxes.extend(mp4_tree(data, children, position + size, path))
        position += size
    return boxes


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
