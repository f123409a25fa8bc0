"""Where a video was shot, taken out of it before it is stored (D11; docs/media.md).

Phones and cameras write their position into a video's metadata. A photo is re-encoded
without any metadata; a video is stored as sent, so its location is overwritten where it
sits: each MP4 box or WebM element that holds it becomes padding of exactly its size (a
`free` box, an EBML Void element). Nothing moves, so every offset in the file stays right
(an MP4's chunk offsets point into `mdat` from a `moov` that may come before it, a WebM's
cues and seek entries point into its Segment), and every other byte is stored as sent.

- **MP4**: moov, its tracks and their user data and metadata are walked. `©xyz` boxes
  (QuickTime user data, as Android phones write it, and iTunes item lists) and 3GPP `loci`
  boxes go; in QuickTime metadata (`meta` with `keys`, as iPhones write it) the items of
  the keys that name a location (`com.apple.quicktime.location.ISO6709`, ...) go; XMP
  packets (a `uuid` box, `XMP_` in user data) that mention GPS or a location go whole.
- **WebM**: every SimpleTag of the Segment's Tags whose name mentions a location
  (`LOCATION`, as ffmpeg copies an MP4's `©xyz`, `RECORDING_LOCATION`) goes, with the
  CRC-32 of the elements around it, which no longer holds.

Only the structure is read, a window of a few kilobytes at a time; media data (`mdat`,
blocks) is skipped, never inspected. A file whose structure cannot be read to its end is refused
(415): what it holds could not be checked.
"""

import struct
from collections.abc import Iterator
from dataclasses import dataclass

from media_app.errors import UnsupportedMedia
from media_app.videos import EBML_UNKNOWN_SIZE, HEADER_BYTES, MP4, VideoFormat, read_vint

DAMAGED = "The video is damaged or incomplete: its structure could not be read."
TOO_COMPLEX = "The video has too many parts to be checked for location data."

# Boxes or elements read before a file is refused as TOO_COMPLEX, about a second of work:
# real files have a few hundred, a live WebM one per block (some 80 a second of video, so
# 250,000 is 50 minutes); a file built of millions of empty ones would only cost time.
MAX_PARTS = 250_000
# Containers nested deeper than this are refused as DAMAGED (real files: 5).
MAX_DEPTH = 16
# A `keys` box or an XMP packet is read into memory up to this size. A larger XMP packet is
# removed unread; larger keys are refused.
METADATA_MAX_BYTES = 1024 * 1024

# Words that make a metadata name or an XMP packet a location (compared in lower case).
LOCATION_WORDS = (b"location", b"gps", b"iso6709", b"latitude", b"longitude")

MP4_LOCATION_BOXES = frozenset({b"\xa9xyz", b"loci"})
# Boxes whose children are user data or metadata, or hold boxes that are.
MP4_CONTAINERS = frozenset({b"moov", b"trak", b"udta"})
XMP_UUID = bytes.fromhex("be7acfcb97a942e89c71999491e3afac")
# The box a QuickTime `meta` may open with, where an ISO one has its version and flags.
QUICKTIME_META_FIRST_BOXES = frozenset({b"hdlr", b"keys", b"ilst", b"free"})

EBML_SEGMENT = 0x18538067
EBML_CLUSTER = 0x1F43B675
EBML_TAGS = 0x1254C367
EBML_TAG = 0x7373
EBML_SIMPLE_TAG = 0x67C8
EBML_TAG_NAME = 0x45A3
EBML_CRC32 = 0xBF
EBML_VOID = b"\xec"

# Zeros are written this many at a time.
WRITE_CHUNK = 64 * 1024


def video_strip_location(file, *, video_format: VideoFormat) -> None:
    """Overwrite, in the uploaded file itself, every location the video carries (see above).

    The file keeps its size and is left at its start. UnsupportedMedia (415) when its
    structure cannot be read to the end.
    """
    reader = _Reader(file)
    finder = _Mp4Locations(reader) if video_format == MP4 else _WebmLocations(reader)
    paddings = finder.find()
    if not paddings:
        file.seek(0)
        return
    for padding in paddings:
        file.seek(padding.start)
        file.write(padding.header)
        zeros = padding.zeros
        while zeros:
            chunk = min(zeros, WRITE_CHUNK)
            file.write(b"\x00" * chunk)
            zeros -= chunk
    file.flush()
    file.seek(0)


def _mentions_location(text: bytes) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in LOCATION_WORDS)


@dataclass(frozen=True)
class _Padding:
    """What overwrites a box or element: a header, then zeros to its end."""

    start: int
    header: bytes
    zeros: int


class _Reader:
    """A file's bytes at given offsets, read a window at a time, never the whole file."""

    def __init__(self, file):
        self.file = file
        self.size = file.size
        self.window_start = 0
        self.window = b""
        self.parts = 0

    def read(self, position: int, length: int) -> bytes:
        window_end = self.window_start + len(self.window)
        if not (self.window_start <= position and position + length <= window_end):
            self.file.seek(position)
            self.window = self.file.read(max(length, HEADER_BYTES))
            self.window_start = position
        offset = position - self.window_start
        return self.window[offset : offset + length]

    def count_part(self) -> None:
        self.parts += 1
        if self.parts > MAX_PARTS:
            raise UnsupportedMedia(TOO_COMPLEX)


# --- MP4 (ISO base media file format) -----------------------------------------------------


@dataclass(frozen=True)
class _Box:
    kind: bytes
    start: int
    # Where its payload starts (after a 64-bit size and a uuid's user type, if any).
    payload: int
    end: int


def _free_box(size: int) -> tuple[bytes, int]:
    """The header of a `free` box of `size` bytes, and the zeros that follow it."""
    if size < 2**32:
        return struct.pack(">I4s", size, b"free"), size - 8
    return struct.pack(">I4sQ", 1, b"free", size), size - 16


class _Mp4Locations:
    """The paddings that take the locations out of an MP4."""

    def __init__(self, reader: _Reader):
        self.reader = reader
        self.paddings: list[_Padding] = []

    def find(self) -> list[_Padding]:
        for box in self._boxes(0, self.reader.size):
            self._visit(box, depth=0)
        return self.paddings

    def _boxes(self, start: int, end: int) -> Iterator[_Box]:
        """The boxes that fill start..end; fewer than 8 bytes left over are no box."""
        position = start
        while end - position >= 8:
            self.reader.count_part()
            size, kind = struct.unpack(">I4s", self.reader.read(position, 8))
            payload = position + 8
            if size == 1:
                size = int.from_bytes(self.reader.read(payload, 8), "big")
                payload += 8
            elif size == 0:
                size = end - position  # to the end of its container
            if kind == b"uuid":
                payload += 16
            if position + size > end or payload > position + size:
                raise UnsupportedMedia(DAMAGED)
            yield _Box(kind, position, payload, position + size)
            position += size

    def _visit(self, box: _Box, *, depth: int) -> None:
        if depth > MAX_DEPTH:
            raise UnsupportedMedia(DAMAGED)
        if box.kind in MP4_LOCATION_BOXES:
            self._remove(box)
        elif box.kind == b"uuid":
            if self.reader.read(box.payload - 16, 16) == XMP_UUID:
                self._remove_xmp(box)
        elif box.kind == b"XMP_":
            self._remove_xmp(box)
        elif box.kind == b"meta":
            self._visit_meta(box, depth=depth)
        elif box.kind in MP4_CONTAINERS:
            for child in self._boxes(box.payload, box.end):
                self._visit(child, depth=depth + 1)

    def _visit_meta(self, box: _Box, *, depth: int) -> None:
        """A `meta` box: an ISO one opens with version and flags, a QuickTime one (with
        `keys`, as iPhones write it) goes straight to its first box, usually `hdlr`."""
        children_start = box.payload
        if self.reader.read(box.payload + 4, 4) not in QUICKTIME_META_FIRST_BOXES:
            children_start += 4
        children = list(self._boxes(children_start, box.end))
        location_keys: set[int] = set()
        for child in children:
            if child.kind == b"keys":
                location_keys = self._location_keys(child)
        for child in children:
            if child.kind != b"ilst":
                self._visit(child, depth=depth + 1)
                continue
            # Items are named by their type (iTunes: `©xyz`) or by their key's 1-based index.
            for item in self._boxes(child.payload, child.end):
                index = int.from_bytes(item.kind, "big")
                if item.kind in MP4_LOCATION_BOXES or index in location_keys:
                    self._remove(item)

    def _location_keys(self, box: _Box) -> set[int]:
        """The 1-based indexes of the keys that name a location.

        Layout: version and flags (4), entry count (4), then per key its size (4, itself
        included), namespace (4, `mdta`) and name.
        """
        length = box.end - box.payload
        if length < 8:
            raise UnsupportedMedia(DAMAGED)
        if length > METADATA_MAX_BYTES:
            raise UnsupportedMedia(TOO_COMPLEX)
        data = self.reader.read(box.payload, length)
        count = int.from_bytes(data[4:8], "big")
        indexes = set()
        position = 8
        for index in range(1, count + 1):
            size = int.from_bytes(data[position : position + 4], "big")
            if size < 8 or position + size > length:
                raise UnsupportedMedia(DAMAGED)
            if _mentions_location(data[position + 8 : position + size]):
                indexes.add(index)
            position += size
        return indexes

    def _remove_xmp(self, box: _Box) -> None:
        """An XMP packet goes whole if it mentions a location, or if it is too large to read."""
        length = box.end - box.payload
        if length > METADATA_MAX_BYTES or _mentions_location(self.reader.read(box.payload, length)):
            self._remove(box)

    def _remove(self, box: _Box) -> None:
        header, zeros = _free_box(box.end - box.start)
        self.paddings.append(_Padding(box.start, header, zeros))


# --- WebM (EBML) --------------------------------------------------------------------------


def _void(start: int, end: int) -> _Padding:
    """An EBML Void element from start to end: its size written in 8 bytes when it fits."""
    total = end - start
    if total >= 9:
        return _Padding(start, EBML_VOID + ((1 << 56) | (total - 9)).to_bytes(8, "big"), total - 9)
    return _Padding(start, EBML_VOID + bytes([0x80 | (total - 2)]), total - 2)


class _WebmLocations:
    """The paddings that take the location tags out of a WebM."""

    def __init__(self, reader: _Reader):
        self.reader = reader
        self.paddings: list[_Padding] = []

    def find(self) -> list[_Padding]:
        """Walk the file's elements. A Segment, and a Cluster of unknown size, are entered:
        their children follow in the same walk (a Cluster of unknown size ends where an
        element that cannot be its child begins, and its children all have a size)."""
        position = 0
        end = self.reader.size
        while position < end:
            identifier, size, payload = self._element(position, end)
            if identifier == EBML_SEGMENT or (
                identifier == EBML_CLUSTER and size == EBML_UNKNOWN_SIZE
            ):
                position = payload
                continue
            if size == EBML_UNKNOWN_SIZE:
                raise UnsupportedMedia(DAMAGED)
            if identifier == EBML_TAGS:
                self._visit_tags(payload, payload + size, depth=0)
            position = payload + size
        return self.paddings

    def _element(self, position: int, end: int) -> tuple[int, int, int]:
        """The id, size (or EBML_UNKNOWN_SIZE) and payload start of the element at position."""
        self.reader.count_part()
        header = self.reader.read(position, 12)  # an id of at most 4 bytes, a size of 8
        identifier = read_vint(header, 0, keep_marker=True)
        if identifier is None:
            raise UnsupportedMedia(DAMAGED)
        size = read_vint(header, identifier[1], keep_marker=False)
        if size is None:
            raise UnsupportedMedia(DAMAGED)
        payload = position + size[1]
        if size[0] != EBML_UNKNOWN_SIZE and payload + size[0] > end:
            raise UnsupportedMedia(DAMAGED)
        return identifier[0], size[0], payload

    def _visit_tags(self, start: int, end: int, *, depth: int) -> bool:
        """Void the location SimpleTags between start and end (the payload of Tags, a Tag or
        a SimpleTag, whose SimpleTags may nest); True when one was."""
        if depth > MAX_DEPTH:
            raise UnsupportedMedia(DAMAGED)
        removed = False
        checksum = None
        position = start
        while position < end:
            identifier, size, payload = self._element(position, end)
            if size == EBML_UNKNOWN_SIZE:
                raise UnsupportedMedia(DAMAGED)
            element_end = payload + size
            if identifier == EBML_CRC32:
                checksum = (position, element_end)
            elif identifier == EBML_SIMPLE_TAG and self._names_location(payload, element_end):
                self.paddings.append(_void(position, element_end))
                removed = True
            elif identifier in (EBML_TAG, EBML_SIMPLE_TAG):
                removed |= self._visit_tags(payload, element_end, depth=depth + 1)
            position = element_end
        if removed and checksum is not None:
            # The checksum covered what was voided; a wrong one would mark it corrupt.
            self.paddings.append(_void(*checksum))
        return removed

    def _names_location(self, start: int, end: int) -> bool:
        """Whether the SimpleTag whose payload is start..end has a location's TagName."""
        position = start
        while position < end:
            identifier, size, payload = self._element(position, end)
            if size == EBML_UNKNOWN_SIZE:
                raise UnsupportedMedia(DAMAGED)
            if identifier == EBML_TAG_NAME:
                return _mentions_location(self.reader.read(payload, min(size, 1024)))
            position = payload + size
        return False
