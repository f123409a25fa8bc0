"""A favorite as the API shows it, built by the domain for the favorite.created event (D12):
JSON types only; the API's FavoriteSerializer gives the same shape (a test holds them
equal)."""

from config.json import json_value, local_time
from favorites.models import Favorite
from listings.representations import property_image_summaries


def favorite_representation(favorite: Favorite) -> dict:
    """`{id, createdAt, userId, property: {id, title, type, price, transactionType, status,
    images}}`."""
    listing = favorite.property
    return json_value(
        {
            "id": favorite.pk,
            "createdAt": local_time(favorite.created_at),
            "userId": favorite.user_id,
            "property": {
                "id": listing.pk,
                "title": listing.title,
                "type": listing.kind,
                "price": listing.price,
                "transactionType": listing.transaction_type,
                "status": listing.status,
                "images": property_image_summaries(listing.pk),
            },
        }
    )
