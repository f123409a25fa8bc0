"""Shapes of the favorites endpoints. Field names are snake_case here, camelCase on the wire."""

from rest_framework import serializers

from config.api.fields import IdField, IdReferenceField
from favorites.models import Favorite
from listings.api.serializers import (
    DecimalNumberField,
    ImageSummarySerializer,
    PropertyTypeField,
    image_summaries,
    request_origin,
)
from listings.models import Property


class FavoritePropertySerializer(serializers.ModelSerializer):
    """The saved listing: id, title, type, price, transactionType, status, photos [{id, url}]."""

    type = PropertyTypeField()
    price = DecimalNumberField(max_digits=14, decimal_places=2, read_only=True)
    images = ImageSummarySerializer(many=True, read_only=True)

    class Meta:
        model = Property
        fields = ["id", "title", "type", "price", "transaction_type", "status", "images"]
        read_only_fields = fields


class FavoriteSerializer(serializers.ModelSerializer):
    """A favorite: `{id, createdAt, userId, property}` (list items and the POST answer)."""

    user_id = serializers.CharField(read_only=True)
    property = FavoritePropertySerializer(read_only=True)

    class Meta:
        model = Favorite
        fields = ["id", "created_at", "user_id", "property"]
        read_only_fields = fields


def favorite_items(rows: list[dict], *, request) -> list[dict]:
    """GET /favorites items from the rows of favorites.selectors.favorite_list_rows, keys
    already camelCase: the same shape as FavoriteSerializer (a test holds them equal), for
    config.api.renderers.CamelCasedJSONRenderer."""
    origin = request_origin(request)
    return [
        {
            "id": row["id"],
            "createdAt": row["created_at"],
            "userId": row["user_id"],
            "property": {
                "id": row["property_id"],
                "title": row["property_title"],
                "type": row["property_kind"],
                "price": row["property_price"],
                "transactionType": row["property_transaction_type"],
                "status": row["property_status"],
                "images": image_summaries(row["images"], origin),
            },
        }
        for row in rows
    ]


class FavoriteCreateSerializer(serializers.Serializer):
    """Body of POST /favorites: a listing the caller can see; userId defaults to the caller."""

    property_id = IdReferenceField(queryset=Property.objects.none())
    user_id = IdField(required=False)

    def __init__(self, *args, properties=None, **kwargs):
        super().__init__(*args, **kwargs)
        if properties is not None:
            self.fields["property_id"].queryset = properties


class FavoriteRemoveQuerySerializer(serializers.Serializer):
    """Query of DELETE /favorites: propertyId (required) and userId (defaults to the caller)."""

    property_id = IdField()
    user_id = IdField(required=False)
