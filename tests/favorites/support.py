"""Shapes, URLs and snapshots shared by the Favorites API tests."""

import datetime

from favorites.models import Favorite
from media_app.models import Image

FAVORITES_URL = "/api/v1/favorites"
UNKNOWN_ID = "zzzzzzzzzzzzzzzzzzzzzzzzz"

# The item shape of GET /favorites and of the POST answer (interface: Favorite).
FAVORITE_KEYS = {"id", "createdAt", "userId", "property"}
FAVORITE_PROPERTY_KEYS = {"id", "title", "type", "price", "transactionType", "status", "images"}


def favorite_url(favorite_id: str) -> str:
    """The path of one favorite."""
    return f"{FAVORITES_URL}/{favorite_id}"


def iso(moment: datetime.datetime) -> str:
    """A timestamp as the API writes it: ISO 8601 in UTC with Z."""
    return moment.astimezone(datetime.UTC).isoformat().replace("+00:00", "Z")


def image_body(image: Image) -> dict[str, str]:
    """A photo as a favorite's listing shows it: id and absolute url."""
    return {"id": image.id, "url": f"http://testserver{image.file.url}"}


def favorite_body(favorite: Favorite, images: list[Image] | None = None) -> dict[str, object]:
    """A favorite as the API must show it, read fresh from the database."""
    favorite.refresh_from_db()
    listing = favorite.property
    listing.refresh_from_db()
    return {
        "id": favorite.id,
        "createdAt": iso(favorite.created_at),
        "userId": favorite.user_id,
        "property": {
            "id": listing.id,
            "title": listing.title,
            "type": listing.kind,
            "price": float(listing.price),
            "transactionType": listing.transaction_type,
            "status": listing.status,
            "images": [image_body(image) for image in images or []],
        },
    }


def favorite_rows() -> list[tuple]:
    """Every favorite row, to show that a refused request changed nothing."""
    return list(Favorite.objects.order_by("pk").values_list())


def ids(response) -> list[str]:
    """The ids of the favorites of a GET /favorites answer, in order."""
    return [item["id"] for item in response.json()]


def spread_creation_times(*favorites: Favorite) -> None:
    """Give the favorites creation times one minute apart, in the order given (oldest first)."""
    start = datetime.datetime.now(tz=datetime.UTC) - datetime.timedelta(days=1)
    for minutes, favorite in enumerate(favorites):
        Favorite.objects.filter(pk=favorite.pk).update(
            created_at=start + datetime.timedelta(minutes=minutes)
        )
        favorite.refresh_from_db()
