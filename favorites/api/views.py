"""The favorites endpoints: list, save, remove by id and remove by listing."""

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from accounts.models import User
from accounts.selectors import user_id_named
from config.api.fields import id_parameter, query_id
from config.api.renderers import CamelCasedActionsMixin
from config.api.schema import AutoSchema
from config.api.viewsets import ApiViewSet
from config.errors import NotFound, ValidationFailed
from favorites import selectors, services
from favorites.api.serializers import (
    FavoriteCreateSerializer,
    FavoriteRemoveQuerySerializer,
    FavoriteSerializer,
    favorite_items,
)
from favorites.services import MANAGE_ONLY_YOUR_OWN
from listings.models import Property
from listings.selectors import property_visible_to

USER_ID_DESCRIPTION = "Whose favorites: yours by default; another user's for admins."


def _named_user(request, user_id: str | None) -> User | None:
    """The user a request acts for: the caller unless `userId` names another user.

    Naming another user is for admins; anyone else gets 403 before that id is looked up, so
    the answer never tells whether it exists (D7). None when an admin names an unknown id.
    """
    user_id = user_id_named(viewer=request.user, user_id=user_id, refusal=MANAGE_ONLY_YOUR_OWN)
    if user_id == request.user.pk:
        return request.user
    return User.objects.filter(pk=user_id).first()


class FavoriteSchema(AutoSchema):
    """The API's AutoSchema; DELETE by query also answers 404 (no such favorite)."""

    def _error_codes(self) -> list[str]:
        codes = super()._error_codes()
        if getattr(self.view, "action", None) == "destroy_by_query" and "404" not in codes:
            codes.append("404")
        return codes


@extend_schema_view(
    list=extend_schema(
        summary="A user's favorites, newest first (a JSON array)",
        # An empty userId is the caller, as a missing one.
        parameters=[id_parameter("userId", description=USER_ID_DESCRIPTION)],
        responses={200: FavoriteSerializer(many=True)},
    ),
    create=extend_schema(
        summary="Save a listing among a user's favorites",
        request=FavoriteCreateSerializer,
        responses={201: FavoriteSerializer},
    ),
    destroy=extend_schema(summary="Remove a favorite", responses={204: None}),
)
class FavoriteViewSet(CamelCasedActionsMixin, ApiViewSet):
    """A user's saved listings (interface: Favorites; decisions D4, D5, D7, D8)."""

    # DELETE /favorites?propertyId=&userId= is `destroy_by_query`, which
    # favorites.api.urls.FavoriteRouter maps on the collection route.
    schema = FavoriteSchema()
    serializer_class = FavoriteSerializer
    permission_classes = [IsAuthenticated]
    pagination_class = None
    http_method_names = ["get", "post", "delete", "head", "options"]

    def get_queryset(self):
        return selectors.favorite_visible_to(viewer=self.request.user)

    def get_object(self):
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])

    def _item(self, favorite, *, response_status=status.HTTP_200_OK) -> Response:
        favorite = selectors.favorite_loading(self.get_queryset()).get(pk=favorite.pk)
        body = FavoriteSerializer(favorite, context=self.get_serializer_context()).data
        return Response(body, status=response_status)

    def list(self, request):
        rows = selectors.favorite_list_rows(
            viewer=request.user, user_id=query_id(request.query_params, "userId")
        )
        return Response(favorite_items(rows, request=request))

    def create(self, request):
        serializer = FavoriteCreateSerializer(
            data=request.data, properties=property_visible_to(viewer=request.user)
        )
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        user = _named_user(request, data.get("user_id"))
        if user is None:
            raise ValidationFailed(gettext_lazy("No user has this id."), field="userId")
        favorite = services.favorite_add(user=user, property=data["property_id"], by=request.user)
        return self._item(favorite, response_status=status.HTTP_201_CREATED)

    def destroy(self, request, pk=None):
        services.favorite_remove(favorite=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Remove a user's favorite of a listing",
        operation_id="favorites_destroy_by_property",
        # FavoriteRemoveQuerySerializer refuses an empty value of either.
        parameters=[
            id_parameter(
                "propertyId", required=True, allow_blank=False, description="The listing."
            ),
            id_parameter("userId", allow_blank=False, description=USER_ID_DESCRIPTION),
        ],
        request=None,
        responses={204: None},
    )
    def destroy_by_query(self, request):
        query = FavoriteRemoveQuerySerializer(
            data={
                name: request.query_params[key]
                for name, key in (("property_id", "propertyId"), ("user_id", "userId"))
                if key in request.query_params
            }
        )
        query.is_valid(raise_exception=True)
        user = _named_user(request, query.validated_data.get("user_id"))
        listing = Property.objects.filter(pk=query.validated_data["property_id"]).first()
        if user is None or listing is None:
            raise NotFound(services.NO_SUCH_FAVORITE)
        services.favorite_remove_for(user=user, property=listing, by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
