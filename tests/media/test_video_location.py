"""Videos are stored without their location: the boxes or tags holding it become padding."""

import pytest
from django.core.files.storage import default_storage

from media_app import video_locations
from media_app.models import Video
from tests.media.conftest import stored_files
from tests.media.support import (
    COORDINATES,
    LOCI_SECRETS,
    SAMPLES,
    apple_metadata,
    assert_problem,
    ebml_element,
    itunes_metadata,
    loci_box,
    mp4_movie,
    mp4_tree,
    quicktime_location,
    upload_video,
    webm_movie,
    webm_simple_tag,
    xmp_box,
)

pytestmark = pytest.mark.django_db


def stored_video() -> bytes:
    with default_storage.open(Video.objects.get().file.name) as stored:
        return stored.read()


# Where each kind of location sits in the MP4 made of it, and the bytes that give it away.
MP4_LOCATIONS = {
    "android-udta-xyz": ({"udta": (quicktime_location(),)}, ["moov/udta/©xyz"], [COORDINATES]),
    "itunes-ilst-xyz": (
        {"udta": (itunes_metadata(),)},
        ["moov/udta/meta/ilst/©xyz"],
        [COORDINATES],
    ),
    "apple-keys": ({"meta": apple_metadata()}, ["moov/meta/ilst/#2"], [COORDINATES]),
    "3gpp-loci": ({"udta": (loci_box(),)}, ["moov/udta/loci"], list(LOCI_SECRETS)),
    "track-udta-xyz": (
        {"track_udta": (quicktime_location(),)},
        ["moov/trak/udta/©xyz"],
        [COORDINATES],
    ),
    "xmp-gps": ({"top": (xmp_box(),)}, ["uuid"], [b"GPSLatitude", b"40,25.0080N"]),
    "moov-after-mdat": (
        {"udta": (quicktime_location(),), "moov_last": True},
        ["moov/udta/©xyz"],
        [COORDINATES],
    ),
}


@pytest.mark.parametrize("carrier", MP4_LOCATIONS)
def test_an_mp4s_location_becomes_free_space_of_the_same_size(owner_client, listing, carrier):
    # given an MP4 carrying a location
    fields, located, secrets = MP4_LOCATIONS[carrier]
    data = mp4_movie(**fields)
    assert all(secret in data for secret in secrets)

    # when it is uploaded
    response = upload_video(owner_client, listing.id, data)

    # then the stored file no longer holds the location
    assert response.status_code == 201, response.content
    stored = stored_video()
    assert [secret for secret in secrets if secret in stored] == []
    # and it is the same MP4 but for `free` boxes where the location was: every box, and so
    # every chunk offset, where it was; the samples where the track says they are
    expected = [
        (path.rsplit("/", 1)[0] + "/free" if "/" in path else "free", offset, size)
        if path in located
        else (path, offset, size)
        for path, offset, size in mp4_tree(data)
        if not any(path.startswith(f"{box}/") for box in located)
    ]
    assert mp4_tree(stored) == expected
    assert len(stored) == len(data) == Video.objects.get().size
    assert stored.count(SAMPLES) == 1
    assert Video.objects.get().content_type == "video/mp4"


def test_apple_metadata_keeps_everything_but_the_location(owner_client, listing):
    response = upload_video(owner_client, listing.id, mp4_movie(meta=apple_metadata()))

    assert response.status_code == 201, response.content
    stored = stored_video()
    assert COORDINATES not in stored
    assert b"Apple" in stored
    assert b"iPhone 15" in stored


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"udta": (itunes_metadata(location=False),), "meta": apple_metadata(location=False)},
        {"top": (xmp_box(location=False),), "moov_last": True},
    ],
    ids=["bare", "metadata-without-location", "xmp-without-location"],
)
def test_an_mp4_without_a_location_is_stored_byte_for_byte(owner_client, listing, fields):
    data = mp4_movie(**fields)

    response = upload_video(owner_client, listing.id, data)

    assert response.status_code == 201, response.content
    assert stored_video() == data


def test_an_mp4_whose_boxes_overrun_the_file_is_415(owner_client, listing, media_root):
    # given an MP4 cut short: its moov box says it is longer than what is left
    data = mp4_movie(udta=(quicktime_location(),))
    cut = data[: data.index(b"moov") + 200]

    # when
    response = upload_video(owner_client, listing.id, cut)

    # then it is refused: what it holds could not be checked
    assert_problem(response, status=415, code="unsupported_media_type")
    assert Video.objects.count() == 0
    assert stored_files(media_root) == []


LOCATION_TAG = webm_simple_tag(b"LOCATION", COORDINATES + b"/")
ENCODER_TAG = webm_simple_tag(b"ENCODER", b"Lavf60.16.100")


@pytest.mark.parametrize("tags_after_clusters", [False, True], ids=["tags-first", "tags-last"])
def test_a_webm_location_tag_becomes_a_void_element_of_the_same_size(
    owner_client, listing, tags_after_clusters
):
    # given a WebM with an encoder tag and a location tag (as ffmpeg copies it from an MP4)
    data = webm_movie(ENCODER_TAG, LOCATION_TAG, tags_after_clusters=tags_after_clusters)
    offset = data.index(LOCATION_TAG)

    # when it is uploaded
    response = upload_video(owner_client, listing.id, data, name="tour.webm")

    # then the location's SimpleTag is a Void element of the same size; nothing else changed
    assert response.status_code == 201, response.content
    stored = stored_video()
    void = b"\xec" + ebml_element_size_8(len(LOCATION_TAG) - 9) + b"\x00" * (len(LOCATION_TAG) - 9)
    assert stored == data[:offset] + void + data[offset + len(LOCATION_TAG) :]
    assert COORDINATES not in stored
    assert Video.objects.get().content_type == "video/webm"


def ebml_element_size_8(length: int) -> bytes:
    """An EBML size written in 8 bytes, as padding of any size can be."""
    return ((1 << 56) | length).to_bytes(8, "big")


def test_a_webm_without_a_location_is_stored_byte_for_byte(owner_client, listing):
    data = webm_movie(ENCODER_TAG, tags_after_clusters=True)

    response = upload_video(owner_client, listing.id, data, name="tour.webm")

    assert response.status_code == 201, response.content
    assert stored_video() == data


def test_a_webm_whose_elements_cannot_be_read_is_415(owner_client, listing, media_root):
    # given a WebM whose Segment holds bytes that are no element (an id cannot start with 0)
    data = webm_movie(ENCODER_TAG) + ebml_element(b"\x00\x00", b"junk")

    response = upload_video(owner_client, listing.id, data, name="tour.webm")

    assert_problem(response, status=415, code="unsupported_media_type")
    assert stored_files(media_root) == []


def test_a_video_of_too_many_parts_to_check_is_415(owner_client, listing, media_root, monkeypatch):
    # given a limit of 50 boxes to read, and an MP4 of 60 padding boxes after its header
    monkeypatch.setattr(video_locations, "MAX_PARTS", 50)
    data = mp4_movie() + b"\x00\x00\x00\x08free" * 60

    # when
    response = upload_video(owner_client, listing.id, data)

    # then it is refused rather than stored unchecked
    body = assert_problem(response, status=415, code="unsupported_media_type")
    assert body["detail"] == "The video has too many parts to be checked for location data."
    assert stored_files(media_root) == []
