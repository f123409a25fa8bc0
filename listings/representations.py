"""Listings as the API shows them, built by the domain for what it sends outside a request:
the data of webhook events (D12). JSON types only (config.json); media URLs start with the
platform's public address (SITE_URL). The API's serializers give the same shapes, and tests
hold them equal (tests/webhooks/test_events.py)."""

from config.json import camel_case, json_value, local_time
from listings.models import Property
from listings.selectors import LIST_COLUMNS
from media_app.files import site_media_url
from media_app.models import GALLERY_ORDER, Image


def property_representation(listing: Property) -> dict:
    """The listing as POST and PATCH /properties answer it: its own fields and `type`."""
    item = {camel_case(column): getattr(listing, column) for column in LIST_COLUMNS}
    item["createdAt"] = local_time(listing.created_at)
    item["updatedAt"] = local_time(listing.updated_at)
    item["type"] = listing.type
    return json_value(item)


def property_image_summaries(property_id: str) -> list[dict]:
    """The listing's photos as other resources show them, [{id, url}] in gallery order."""
    photos = (
        Image.objects.filter(property_id=property_id)
        .order_by(*GALLERY_ORDER)
        .values_list("id", "file")
    )
    return [{"id": photo_id, "url": site_media_url(name)} for photo_id, name in photos]
