"""Photos judged by their bytes, cleaned and resized before anything is stored (D11).

An upload is opened by Pillow with only the JPEG, PNG and WebP decoders enabled, so a GIF,
an SVG, an HTML page or anything else named photo.jpg is refused whatever its name or
Content-Type. Its size is checked from the header before a single pixel is decoded, so a
decompression bomb costs a few kilobytes of reading. What is stored is re-encoded from the
pixels: no EXIF, no GPS, no XMP, no comment, no byte the client appended survives.
"""

import io
import struct
import warnings
from dataclasses import dataclass, field

from django.conf import settings
from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

from config.uploads import upload_limit_set
from media_app.errors import MediaTooLarge, UnsupportedMedia

# Widths of the WebP copies made of every photo, in pixels (D11: at least 400 and 1200).
THUMBNAIL_WIDTHS = (400, 1200)

UNSUPPORTED_IMAGE = "The file is not a JPEG, PNG or WebP image."


@dataclass(frozen=True)
class ImageFormat:
    """A format photos may be uploaded in: Pillow's decoder, the extension and the type."""

    pillow_name: str
    extension: str
    content_type: str


IMAGE_FORMATS = {
    "JPEG": ImageFormat("JPEG", "jpg", "image/jpeg"),
    "PNG": ImageFormat("PNG", "png", "image/png"),
    "WEBP": ImageFormat("WEBP", "webp", "image/webp"),
}
# Pillow reports a JPEG that carries a Multi-Picture index (many phone photos) as MPO.
_FORMAT_ALIASES = {"MPO": "JPEG"}

# Modes Pillow writes as PNG; a PNG decoded into any other is saved as RGB or RGBA.
_PNG_MODES = frozenset({"1", "L", "LA", "I;16", "I;16B", "P", "RGB", "RGBA"})

# Errors Pillow raises on a header or a stream it cannot make sense of.
_DECODE_ERRORS = (OSError, SyntaxError, ValueError, EOFError, IndexError, struct.error)


@dataclass
class PreparedImage:
    """A photo ready to store: the re-encoded original and its WebP thumbnails by width."""

    format: ImageFormat
    width: int
    height: int
    original: bytes
    thumbnails: dict[int, bytes] = field(default_factory=dict)


def image_check_size(*, size: int) -> None:
    """Refuse a file over MEDIA_IMAGE_MAX_BYTES (413) before it is opened."""
    limit = settings.MEDIA_IMAGE_MAX_BYTES
    if size > limit:
        raise MediaTooLarge(f"An image may be at most {limit} bytes; this one has {size}.")


def image_upload_limit_set(request) -> None:
    """Refuse a photo while its upload is read, once it passes MEDIA_IMAGE_MAX_BYTES (413).

    Called by the upload views before anything reads the request's body.
    """
    upload_limit_set(request, limit=settings.MEDIA_IMAGE_MAX_BYTES, noun="An image")


def image_prepare(file) -> PreparedImage:
    """Judge an uploaded photo by its bytes and make what is stored of it.

    Raises UnsupportedMedia (415) for anything but a whole JPEG, PNG or WebP image and
    MediaTooLarge (413) over the byte or pixel limits (MEDIA_IMAGE_MAX_BYTES,
    MEDIA_IMAGE_MAX_PIXELS), decompression bombs included.
    """
    image_check_size(size=file.size)
    image = _open(file)
    image_format = IMAGE_FORMATS[_FORMAT_ALIASES.get(image.format, image.format)]
    _check_container_end(file, image_format)
    try:
        image.load()
    except _DECODE_ERRORS as error:
        raise UnsupportedMedia("The image data is damaged or incomplete.") from error
    icc_profile = image.info.get("icc_profile")
    clean = _without_metadata(image)
    try:
        original = _encode_original(clean, image_format, icc_profile=icc_profile)
        thumbnails = _thumbnails(clean)
    except (OSError, ValueError) as error:
        # A decoded picture the encoders cannot take (an exotic mode or profile).
        raise UnsupportedMedia("The image could not be processed.") from error
    return PreparedImage(
        format=image_format,
        width=clean.width,
        height=clean.height,
        original=original,
        thumbnails=thumbnails,
    )


def _open(file) -> ImageFile.ImageFile:
    """Open the header only, with the three accepted decoders, and check the pixel count."""
    limit = settings.MEDIA_IMAGE_MAX_PIXELS
    # Pillow refuses to open anything over twice this and warns over it; the warning is
    # turned into an error below, so a bomb is refused from its header alone.
    Image.MAX_IMAGE_PIXELS = limit
    file.seek(0)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(file, formats=list(IMAGE_FORMATS))
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as error:
        raise MediaTooLarge(f"An image may have at most {limit} pixels.") from error
    except UnidentifiedImageError as error:
        raise UnsupportedMedia(UNSUPPORTED_IMAGE) from error
    except _DECODE_ERRORS as error:
        raise UnsupportedMedia(UNSUPPORTED_IMAGE) from error
    width, height = image.size
    if width < 1 or height < 1:
        raise UnsupportedMedia("The image has no pixels.")
    if width * height > limit:
        raise MediaTooLarge(
            f"An image may have at most {limit} pixels; this one has {width}x{height}."
        )
    return image


def _check_container_end(file, image_format: ImageFormat) -> None:
    """A PNG or WebP must end where its container ends: nothing may be appended (415).

    Appended bytes (an HTML page, a script, an archive) would make the file a polyglot.
    The stored copy is re-encoded anyway, so they never reach storage; they are refused
    because no honest PNG or WebP carries them. JPEG is not held to this: phones append
    motion-photo videos and maker data after the image, and those are dropped by the
    re-encoding.
    """
    file.seek(0, io.SEEK_END)
    length = file.tell()
    if image_format.pillow_name == "PNG":
        end = _png_end(file)
    elif image_format.pillow_name == "WEBP":
        file.seek(4)
        end = 8 + struct.unpack("<I", file.read(4))[0]
    else:
        return
    if end != length:
        raise UnsupportedMedia("The image file carries data before or after the image itself.")


def _png_end(file) -> int:
    """The offset just past the IEND chunk, walking chunk headers without reading data."""
    position = 8  # the signature
    while True:
        file.seek(position)
        header = file.read(8)
        if len(header) < 8:
            raise UnsupportedMedia("The PNG image is incomplete.")
        length, kind = struct.unpack(">I4s", header)
        position += 12 + length  # length, type, data, CRC
        if kind == b"IEND":
            return position


def _without_metadata(image: ImageFile.ImageFile) -> Image.Image:
    """The pixels upright (EXIF orientation applied), with no metadata attached.

    Only the transparency of a palette image is kept: it is part of the picture.
    """
    transparency = image.info.get("transparency")
    try:
        # In place: a 40-megapixel photo is not copied once more.
        ImageOps.exif_transpose(image, in_place=True)
    except (*_DECODE_ERRORS, KeyError, TypeError):
        # An unreadable EXIF block cannot say how to turn the photo; keep it as stored.
        pass
    # Whatever EXIF, XMP, comment or text chunk Pillow read was in `info`; none of it is kept.
    image.info = {} if transparency is None else {"transparency": transparency}
    return image


def _encode_original(image: Image.Image, image_format: ImageFormat, *, icc_profile) -> bytes:
    """The photo re-encoded in its own format; the colour profile is kept, nothing else."""
    options: dict[str, object] = {}
    if icc_profile:
        options["icc_profile"] = icc_profile
    if image_format.pillow_name == "JPEG":
        if image.mode not in ("L", "RGB", "CMYK"):
            image = image.convert("RGB")
        options.update(quality=90)
    elif image_format.pillow_name == "WEBP":
        image = _rgb_or_rgba(image)
        options.update(quality=90)
    else:
        if image.mode not in _PNG_MODES:
            image = _rgb_or_rgba(image)
        if "transparency" in image.info:
            options["transparency"] = image.info["transparency"]
    buffer = io.BytesIO()
    image.save(buffer, image_format.pillow_name, **options)
    return buffer.getvalue()


def _rgb_or_rgba(image: Image.Image) -> Image.Image:
    """WebP holds RGB or RGBA; keep an alpha channel only when the photo has one."""
    has_alpha = image.mode in ("RGBA", "LA", "PA") or "transparency" in image.info
    mode = "RGBA" if has_alpha else "RGB"
    return image if image.mode == mode else image.convert(mode)


def _thumbnails(image: Image.Image) -> dict[int, bytes]:
    """WebP copies at each THUMBNAIL_WIDTHS width, never wider than the photo itself."""
    source = _rgb_or_rgba(image)
    copies: dict[int, bytes] = {}
    # From the widest down, each copy made from the previous one: cheaper, same quality.
    # Heights follow the photo's own aspect ratio, not the previous copy's rounded one.
    for width in sorted(THUMBNAIL_WIDTHS, reverse=True):
        target_width = min(width, image.width)
        target_height = max(1, round(image.height * target_width / image.width))
        if (target_width, target_height) != source.size:
            source = source.resize(
                (target_width, target_height), Image.Resampling.LANCZOS, reducing_gap=3.0
            )
        buffer = io.BytesIO()
        source.save(buffer, "WEBP", quality=82, method=4)
        copies[width] = buffer.getvalue()
    return copies
