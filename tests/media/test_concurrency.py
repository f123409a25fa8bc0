"""Uploads racing for the last place of a listing: the row lock decides (D13)."""

from functools import partial

import pytest

from media_app.models import Image
from tests.concurrency import run_at_once
from tests.media.conftest import stored_files
from tests.media.support import jpeg_bytes, upload_image
from tests.support import signed_in_client

RACERS = 6


@pytest.mark.postgres_only
@pytest.mark.django_db(transaction=True)
def test_concurrent_uploads_never_pass_the_limit(
    owner, listing, media_root, settings, throttle_rates
):
    # given room for one more photo, and rates that let every racer through
    settings.MEDIA_MAX_IMAGES_PER_PROPERTY = 1
    throttle_rates(upload="1000/hour", signed_in="1000/min")
    clients = [signed_in_client(owner) for _ in range(RACERS)]
    data = jpeg_bytes(200, 100)

    # when six uploads arrive at once, each from a client of its own
    responses = run_at_once([partial(upload_image, client, listing.id, data) for client in clients])

    # then exactly one is recorded, the others are 409, and only its files remain
    assert sorted(response.status_code for response in responses) == [201] + [409] * (RACERS - 1)
    image = Image.objects.get()
    assert image.position == 0
    assert stored_files(media_root) == sorted([image.file.name, *image.thumbnails.values()])
