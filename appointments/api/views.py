"""The appointments endpoints."""

from django.shortcuts import get_object_or_404
from django.utils.translation import gettext_lazy
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from accounts.models import Owner, UserType
from accounts.selectors import user_id_named
from appointments import selectors, services
from appointments.api.serializers import (
    AppointmentCreateSerializer,
    AppointmentListItemSerializer,
    AppointmentPatchSerializer,
    AppointmentSerializer,
)
from appointments.filters import AppointmentFilter
from config.api.viewsets import ApiViewSet
from config.errors import PermissionRefused
from listings.selectors import property_visible_to


@extend_schema_view(
    list=extend_schema(
        summary="Your visits, as customer and as owner, by date",
        responses=AppointmentListItemSerializer(many=True),
    ),
    retrieve=extend_schema(summary="A visit you take part in", responses=AppointmentSerializer),
    create=extend_schema(
        summary="Request a visit of an AVAILABLE listing",
        request=AppointmentCreateSerializer,
        responses={201: AppointmentSerializer},
    ),
    partial_update=extend_schema(
        summary="Confirm, complete, cancel, reschedule a visit or change its notes",
        request=AppointmentPatchSerializer,
        responses=AppointmentSerializer,
    ),
    destroy=extend_schema(
        summary="Cancel a visit (the record is kept)", responses={200: AppointmentSerializer}
    ),
)
class AppointmentViewSet(ApiViewSet):
    """Visit appointments (interface: Appointments; decisions D7, D8, D10)."""

    serializer_class = AppointmentSerializer
    permission_classes = [IsAuthenticated]
    filterset_class = AppointmentFilter
    pagination_class = None
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_queryset(self):
        return selectors.appointment_visible_to(viewer=self.request.user)

    def get_object(self):
        appointments = selectors.appointment_list_loading(self.get_queryset())
        return get_object_or_404(appointments, pk=self.kwargs["pk"])

    def _check_filter_ownership(self, request) -> None:
        """A filter naming someone else's records is 403 for non-admins (D7)."""
        user = request.user
        # An empty parameter is no filter, as the filter set reads it.
        user_id_named(
            viewer=user,
            user_id=request.query_params.get("userId"),
            refusal=gettext_lazy("You may list only your own visits."),
        )
        if user.user_type == UserType.ADMIN:
            return
        owner_id = request.query_params.get("ownerId")
        if owner_id and not Owner.objects.filter(pk=owner_id, user=user).exists():
            raise PermissionRefused(
                gettext_lazy("You may list only the visits of your own listings."), field="ownerId"
            )

    def _body(self, appointment, *, response_status=status.HTTP_200_OK) -> Response:
        appointment = selectors.appointment_list_loading(self.get_queryset()).get(pk=appointment.pk)
        return Response(AppointmentSerializer(appointment).data, status=response_status)

    def list(self, request):
        # The filters are read first: a userId that is not an id is a 400, whoever asks.
        appointments = self.filter_queryset(self.get_queryset()).order_by("date", "id")
        self._check_filter_ownership(request)
        appointments = selectors.appointment_list_loading(appointments)
        return Response(AppointmentListItemSerializer(appointments, many=True).data)

    def retrieve(self, request, pk=None):
        return Response(AppointmentSerializer(self.get_object()).data)

    def create(self, request):
        serializer = AppointmentCreateSerializer(
            data=request.data, properties=property_visible_to(viewer=request.user)
        )
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        appointment = services.appointment_book(
            by=request.user,
            property=data["property_id"],
            customer=data.get("user_id"),
            owner=data.get("owner_id"),
            date=data["date"],
            duration=data["duration"],
            notes=data.get("notes"),
        )
        return self._body(appointment, response_status=status.HTTP_201_CREATED)

    def partial_update(self, request, pk=None):
        appointment = self.get_object()
        serializer = AppointmentPatchSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        appointment = services.appointment_update(
            appointment=appointment, by=request.user, fields=set(data), **data
        )
        return self._body(appointment)

    def destroy(self, request, pk=None):
        appointment = services.appointment_cancel(appointment=self.get_object(), by=request.user)
        return self._body(appointment)
