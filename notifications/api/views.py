"""The notifications endpoints: notifications (list, detail, send, send to many, mark read,
delete), saved searches and webhooks."""

from collections.abc import Iterator
from contextlib import contextmanager

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.exceptions import ValidationError
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from accounts.models import User
from accounts.selectors import user_id_named
from config.api.fields import id_parameter, query_id
from config.api.pagination import DataPagination
from config.api.permissions import IsAdmin, IsOwnerUser
from config.api.renderers import CamelCasedActionsMixin
from config.api.throttling import WebhookRegisterThrottle
from config.api.viewsets import ApiViewSet
from config.errors import ValidationFailed
from listings.api.serializers import search_refusals
from listings.search import SearchParamsInvalid
from notifications import selectors, services
from notifications.api.serializers import (
    EmailPreferencesSerializer,
    MarkAllReadResultSerializer,
    MarkAllReadSerializer,
    NotificationBulkCreateSerializer,
    NotificationBulkResultSerializer,
    NotificationCreateSerializer,
    NotificationDetailSerializer,
    NotificationReadSerializer,
    NotificationSerializer,
    SavedSearchSerializer,
    SavedSearchWriteSerializer,
    WebhookDeliverySerializer,
    WebhookEndpointSerializer,
    WebhookRegisterSerializer,
    WebhookRegistrationSerializer,
    email_preferences_item,
    notification_items,
)
from notifications.filters import NotificationFilter
from notifications.models import AlertFrequency
from notifications.services import MARK_ONLY_YOUR_OWN


@extend_schema_view(
    list=extend_schema(
        summary="A user's notifications, newest first",
        # An empty userId is the caller, as a missing one.
        parameters=[
            id_parameter(
                "userId",
                description="Whose notifications: yours by default; another user's for admins.",
            )
        ],
        responses={200: NotificationSerializer(many=True)},
    ),
    retrieve=extend_schema(
        summary="A notification you received", responses={200: NotificationDetailSerializer}
    ),
    create=extend_schema(
        summary="Send a notification to a user (administrators)",
        request=NotificationCreateSerializer,
        responses={201: NotificationDetailSerializer},
    ),
    partial_update=extend_schema(
        summary="Mark a notification read or unread",
        request=NotificationReadSerializer,
        responses={200: NotificationDetailSerializer},
    ),
    destroy=extend_schema(summary="Delete a notification you received", responses={204: None}),
)
class NotificationViewSet(CamelCasedActionsMixin, ApiViewSet):
    """In-app messages to users (interface: Notifications; decisions D4, D5, D7, D8).

    Everyone signed in reads, marks and deletes their own; admins may do so for anyone and
    are the only ones who send through the API (the platform sends the rest itself).
    """

    serializer_class = NotificationSerializer
    pagination_class = DataPagination
    filterset_class = NotificationFilter
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_permissions(self):
        if self.action in ("create", "bulk"):
            return [IsAdmin()]
        return [IsAuthenticated()]

    def get_queryset(self):
        if self.action == "list":
            return selectors.notification_list(
                viewer=self.request.user, user_id=query_id(self.request.query_params, "userId")
            )
        return selectors.notification_visible_to(viewer=self.request.user)

    def get_object(self):
        notifications = selectors.notification_detail_loading(self.get_queryset())
        return get_object_or_404(notifications, pk=self.kwargs["pk"])

    def _detail(self, notification, *, response_status=status.HTTP_200_OK) -> Response:
        context = self.get_serializer_context()
        body = NotificationDetailSerializer(notification, context=context).data
        return Response(body, status=response_status)

    def list(self, request):
        notifications = self.filter_queryset(self.get_queryset())
        rows = self.paginator.paginate_rows(
            notifications, request, page_rows=selectors.notification_list_page
        )
        return self.get_paginated_response(notification_items(rows, request=request))

    def retrieve(self, request, pk=None):
        return self._detail(self.get_object())

    def create(self, request):
        serializer = NotificationCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        notification = services.notification_send(
            user=data["user_id"],
            property=data["property_id"],
            title=data["title"],
            message=data["message"],
            status=data["status"],
        )
        notification = selectors.notification_detail_loading(self.get_queryset()).get(
            pk=notification.pk
        )
        return self._detail(notification, response_status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        notification = self.get_object()
        serializer = NotificationReadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        notification = services.notification_mark_read(
            notification=notification, by=request.user, read=serializer.validated_data["read"]
        )
        return self._detail(notification)

    def destroy(self, request, pk=None):
        services.notification_delete(notification=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Send one notification to several users (administrators)",
        request=NotificationBulkCreateSerializer,
        responses={201: NotificationBulkResultSerializer},
    )
    @action(detail=False, methods=["post"])
    def bulk(self, request):
        serializer = NotificationBulkCreateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        listing = selectors.notification_property_loading(data["property_id"])
        notifications = services.notification_send_bulk(
            users=data["user_ids"],
            property=listing,
            title=data["title"],
            message=data["message"],
            status=data["status"],
        )
        context = self.get_serializer_context()
        body = NotificationBulkResultSerializer(
            {"count": len(notifications), "notifications": notifications}, context=context
        )
        return Response(body.data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Mark all of a user's notifications read",
        request=MarkAllReadSerializer,
        responses={200: MarkAllReadResultSerializer},
    )
    @action(detail=False, methods=["patch"], url_path="mark-all-read")
    def mark_all_read(self, request):
        serializer = MarkAllReadSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = _named_user(request, serializer.validated_data.get("user_id"))
        updated = services.notification_mark_all_read(user=user, by=request.user)
        return Response(MarkAllReadResultSerializer({"updated": updated}).data)

    @extend_schema(
        methods=["GET"],
        summary="Your email preferences: which topics' emails you want",
        responses={200: EmailPreferencesSerializer},
    )
    @extend_schema(
        methods=["PATCH"],
        summary="Switch the emails of some topics on or off",
        request=EmailPreferencesSerializer(partial=True),
        responses={200: EmailPreferencesSerializer},
    )
    @action(detail=False, methods=["get", "patch"], url_path="email-preferences")
    def email_preferences(self, request):
        if request.method == "PATCH":
            serializer = EmailPreferencesSerializer(data=request.data, partial=True)
            serializer.is_valid(raise_exception=True)
            preferences = services.email_preferences_update(
                user=request.user, by=request.user, changes=serializer.validated_data
            )
        else:
            preferences = selectors.email_preferences_of(user=request.user)
        return Response(email_preferences_item(preferences))


def _named_user(request, user_id: str | None) -> User:
    """The user a body names: the caller unless `userId` names another user.

    Naming another user is for admins; anyone else gets 403 before that id is looked up, so
    the answer never tells whether it exists (D7). An admin naming no user is 400 (D2).
    """
    user_id = user_id_named(viewer=request.user, user_id=user_id, refusal=MARK_ONLY_YOUR_OWN)
    if user_id == request.user.pk:
        return request.user
    user = User.objects.filter(pk=user_id).first()
    if user is None:
        raise ValidationFailed(gettext_lazy("No user has this id."), field="userId")
    return user


@extend_schema_view(
    list=extend_schema(
        summary="Your saved searches (administrators: everyone's), newest first",
        responses={200: SavedSearchSerializer(many=True)},
    ),
    retrieve=extend_schema(summary="A saved search", responses={200: SavedSearchSerializer}),
    create=extend_schema(
        summary="Save a search, to be alerted of its new matches",
        request=SavedSearchWriteSerializer,
        responses={201: SavedSearchSerializer},
    ),
    partial_update=extend_schema(
        summary="Rename a saved search, or change its criteria or frequency",
        request=SavedSearchWriteSerializer(partial=True),
        responses={200: SavedSearchSerializer},
    ),
    destroy=extend_schema(summary="Delete a saved search", responses={204: None}),
)
class SavedSearchViewSet(ApiViewSet):
    """Searches users keep to be alerted of new matches (docs/api.md, Saved searches).

    Everyone signed in saves, changes and deletes their own; admins read everyone's. Anyone
    else gets 404 for a saved search's id.
    """

    serializer_class = SavedSearchSerializer
    pagination_class = DataPagination
    permission_classes = [IsAuthenticated]
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        return selectors.saved_search_visible_to(viewer=self.request.user)

    def get_object(self):
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])

    def list(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(SavedSearchSerializer(page, many=True).data)

    def retrieve(self, request, pk=None):
        return Response(SavedSearchSerializer(self.get_object()).data)

    def create(self, request):
        serializer = SavedSearchWriteSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        with _criteria_refusals():
            saved_search = services.saved_search_create(
                by=request.user,
                name=data["name"],
                criteria=data["criteria"],
                frequency=data.get("frequency", AlertFrequency.DAILY),
            )
        body = SavedSearchSerializer(saved_search).data
        return Response(body, status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        saved_search = self.get_object()
        serializer = SavedSearchWriteSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        with _criteria_refusals():
            saved_search = services.saved_search_update(
                saved_search=saved_search,
                by=request.user,
                name=data.get("name"),
                criteria=data.get("criteria"),
                frequency=data.get("frequency"),
            )
        return Response(SavedSearchSerializer(saved_search).data)

    def destroy(self, request, pk=None):
        services.saved_search_delete(saved_search=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


@contextmanager
def _criteria_refusals() -> Iterator[None]:
    """Refused search parameters of a saved search's criteria as a 400 naming each one
    under `criteria` (criteria.minPrice, ...)."""
    try:
        yield
    except SearchParamsInvalid as invalid:
        raise ValidationError({"criteria": search_refusals(invalid)}) from invalid


@extend_schema_view(
    list=extend_schema(
        summary="Your webhooks (administrators: everyone's), newest first",
        responses={200: WebhookEndpointSerializer(many=True)},
    ),
    retrieve=extend_schema(
        summary="A webhook you registered (never its secret)",
        responses={200: WebhookEndpointSerializer},
    ),
    destroy=extend_schema(summary="Delete a webhook you registered", responses={204: None}),
)
class WebhookViewSet(ApiViewSet):
    """Webhook registrations and their delivery log (decisions D7, D12; docs/webhooks.md).

    OWNER users and admins register (at most WEBHOOKS_MAX_PER_USER webhooks each, and at
    the `webhook_register` rate); the registrant (and admins) read and delete. Anyone else
    gets 404 for a webhook id. The secret is shown once, in the registration answer.
    """

    serializer_class = WebhookEndpointSerializer
    pagination_class = DataPagination
    http_method_names = ["get", "post", "delete", "head", "options"]

    def get_permissions(self):
        if self.action == "register":
            return [IsOwnerUser()]
        return [IsAuthenticated()]

    def get_throttles(self):
        throttles = super().get_throttles()
        if self.action == "register":
            throttles.append(WebhookRegisterThrottle())
        return throttles

    def get_queryset(self):
        return selectors.webhook_visible_to(viewer=self.request.user)

    def get_object(self):
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])

    @extend_schema(
        summary="Register a webhook (owners and administrators)",
        request=WebhookRegisterSerializer,
        responses={201: WebhookRegistrationSerializer},
    )
    def register(self, request):
        serializer = WebhookRegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        endpoint = services.webhook_register(
            by=request.user, url=data["url"], events=data["events"], secret=data.get("secret")
        )
        body = WebhookRegistrationSerializer(endpoint).data
        return Response(body, status=status.HTTP_201_CREATED)

    def list(self, request):
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(WebhookEndpointSerializer(page, many=True).data)

    def retrieve(self, request, pk=None):
        return Response(WebhookEndpointSerializer(self.get_object()).data)

    def destroy(self, request, pk=None):
        services.webhook_delete(endpoint=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="A webhook's deliveries with their attempts, newest first",
        responses={200: WebhookDeliverySerializer(many=True)},
    )
    @action(detail=True, methods=["get"])
    def deliveries(self, request, pk=None):
        page = self.paginate_queryset(selectors.delivery_list(endpoint=self.get_object()))
        return self.get_paginated_response(WebhookDeliverySerializer(page, many=True).data)
