"""Videos judged by their first bytes: MP4 or WebM, whatever the name or Content-Type (D11).

Only the container header is read (a few kilobytes); the rest of the file is streamed to
storage untouched, so a 100 MB video is never held in memory.
"""

from dataclasses import dataclass

from django.conf import settings

from config.uploads import upload_limit_set
from media_app.errors import MediaTooLarge, UnsupportedMedia

UNSUPPORTED_VIDEO = "The file is not an MP4 or WebM video."

# How much of the file the checks look at; both headers sit at its very start.
HEADER_BYTES = 4096

# ISO base media file brands of the MP4 family (ISO/IEC 14496-12 and -14, and the usual
# encoder brands). QuickTime (`qt  `) and 3GPP majors are other formats.
MP4_BRANDS = frozenset(
    {
        b"isom",
        b"iso2",
        b"iso3",
        b"iso4",
        b"iso5",
        b"iso6",
        b"iso7",
        b"iso8",
        b"iso9",
        b"mp41",
        b"mp42",
        b"mp71",
        b"avc1",
        b"av01",
        b"dash",
        b"M4V ",
        b"M4VH",
        b"M4VP",
        b"msnv",
        b"MSNV",
        b"XAVC",
    }
)
EBML_MAGIC = b"\x1a\x45\xdf\xa3"
EBML_DOCTYPE_ID = 0x4282
# The size read_vint gives an element whose size is "unknown" (all ones): it runs to the
# next element that cannot be its child. Only a Segment or a Cluster may have one.
EBML_UNKNOWN_SIZE = -1


@dataclass(frozen=True)
class VideoFormat:
    """A format videos may be uploaded in: the extension and the content type."""

    extension: str
    content_type: str


MP4 = VideoFormat("mp4", "video/mp4")
WEBM = VideoFormat("webm", "video/webm")


def video_check_size(*, size: int) -> None:
    """Refuse a file over MEDIA_VIDEO_MAX_BYTES (413) before anything is read."""
    limit = settings.MEDIA_VIDEO_MAX_BYTES
    if size > limit:
        raise MediaTooLarge(f"A video may be at most {limit} bytes; this one has {size}.")


def video_upload_limit_set(request) -> None:
    """Refuse a video while its upload is read, once it passes MEDIA_VIDEO_MAX_BYTES (413).

    Called by the upload views before anything reads the request's body.
    """
    upload_limit_set(request, limit=settings.MEDIA_VIDEO_MAX_BYTES, noun="A video")


def video_format_of(file) -> VideoFormat:
    """MP4 or WebM judged by the header bytes; anything else is UnsupportedMedia (415).

    Reads at most HEADER_BYTES and leaves the file at its start, ready to be streamed.
    """
    video_check_size(size=file.size)
    file.seek(0)
    header = file.read(HEADER_BYTES)
    file.seek(0)
    if _is_mp4(header):
        return MP4
    if _is_webm(header):
        return WEBM
    raise UnsupportedMedia(UNSUPPORTED_VIDEO)


def _is_mp4(header: bytes) -> bool:
    """An ISO BMFF file opens with an `ftyp` box naming an MP4-family brand.

    Layout: box size (4 bytes, big-endian), b"ftyp", major brand (4), minor version (4),
    then compatible brands, 4 bytes each, to the end of the box.
    """
    if len(header) < 16 or header[4:8] != b"ftyp":
        return False
    box_size = int.from_bytes(header[0:4], "big")
    if box_size < 16 or box_size > len(header) or (box_size - 16) % 4:
        return False
    major = header[8:12]
    if major == b"qt  ":
        return False
    compatible = {header[offset : offset + 4] for offset in range(16, box_size, 4)}
    return major in MP4_BRANDS or bool(compatible & MP4_BRANDS)


def _is_webm(header: bytes) -> bool:
    """An EBML header (magic 1A 45 DF A3) whose DocType element says "webm".

    Matroska files share the container and say "matroska"; they are not WebM.
    """
    if not header.startswith(EBML_MAGIC):
        return False
    size = read_vint(header, len(EBML_MAGIC), keep_marker=False)
    if size is None or size[0] == EBML_UNKNOWN_SIZE:
        return False
    body_size, body_start = size
    body_end = body_start + body_size
    if body_end > len(header):
        return False
    position = body_start
    while position < body_end:
        element_id = read_vint(header, position, keep_marker=True)
        if element_id is None:
            return False
        identifier, position = element_id
        element_size = read_vint(header, position, keep_marker=False)
        if element_size is None or element_size[0] == EBML_UNKNOWN_SIZE:
            return False
        length, position = element_size
        if position + length > body_end:
            return False
        if identifier == EBML_DOCTYPE_ID:
            return header[position : position + length].rstrip(b"\x00") == b"webm"
        position += length
    return False


def read_vint(data: bytes, position: int, *, keep_marker: bool) -> tuple[int, int] | None:
    """An EBML variable-length integer at `position`: (value, position after it), or None.

    The count of leading zero bits of the first byte gives the length (1 to 8 bytes).
    Element ids keep their length marker bit; sizes drop it. An all-ones size means
    "unknown" and is given as EBML_UNKNOWN_SIZE.
    """
    if position >= len(data) or data[position] == 0:
        return None
    first = data[position]
    length = 8 - first.bit_length() + 1
    if position + length > len(data):
        return None
    raw = int.from_bytes(data[position : position + length], "big")
    if keep_marker:
        return raw, position + length
    value = raw & ((1 << (7 * length)) - 1)
    if value == (1 << (7 * length)) - 1:
        return EBML_UNKNOWN_SIZE, position + length
    return value, position + length
