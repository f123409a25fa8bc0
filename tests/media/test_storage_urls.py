"""URLs of stored files in list items and details (listings.api.serializers.media_url)."""

import pytest
from django.core.files.storage import default_storage

from listings.api.serializers import media_url
from media_app.files import media_file_name

NAMES = [
    media_file_name(property_id="p1", folder="images", object_id="i1", extension="jpg"),
    media_file_name(
        property_id="p1", folder="images", object_id="i1", extension="webp", variant="400"
    ),
    "demo/pool/photo-07.jpg",
]


@pytest.mark.parametrize("media_url_setting", ["/media/", "/files/uploads/"])
@pytest.mark.parametrize("name", NAMES)
def test_a_local_file_url_is_the_storages_own_made_absolute(settings, media_url_setting, name):
    # given local storage under a media URL
    settings.MEDIA_URL = media_url_setting

    # when the URL of a stored file is made for a request from https://estate.example
    url = media_url(name, "https://estate.example")

    # then it is what the storage says, on the request's origin
    assert url == "https://estate.example" + default_storage.url(name)
    assert url.startswith(f"https://estate.example{media_url_setting}")
