"""Reads of appointments: who sees which (D7) and how lists load."""

from django.db.models import Q, QuerySet

from accounts.models import User, UserType
from appointments.models import Appointment


def appointment_visible_to(*, viewer: User) -> QuerySet[Appointment]:
    """The customer's and the listing owner's appointments; every one for an admin."""
    appointments = Appointment.objects.all()
    if viewer.is_authenticated and viewer.user_type == UserType.ADMIN:
        return appointments
    if not viewer.is_authenticated:
        return appointments.none()
    return appointments.filter(Q(user_id=viewer.pk) | Q(owner__user_id=viewer.pk))


def appointment_list_loading(appointments: QuerySet[Appointment]) -> QuerySet[Appointment]:
    """What an item shows (property id and title, user id and name, owner): one query."""
    return appointments.select_related("property", "user", "owner").only(
        "id",
        "date",
        "duration",
        "ends_at",
        "status",
        "notes",
        "created_at",
        "updated_at",
        "admin_id",
        "property__id",
        "property__title",
        "property__slug",
        "property__kind",
        "user__id",
        "user__name",
        "owner__id",
        "owner__user_id",
    )
