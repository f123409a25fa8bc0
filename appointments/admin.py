"""Back office of appointments: every visit, by status and date; cancelled through the service."""

from django.contrib import admin, messages
from django.db import transaction
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from appointments import services
from appointments.models import Appointment
from config.admin import ReadOnlyModelAdmin
from config.errors import DomainError


@admin.register(Appointment)
class AppointmentAdmin(ReadOnlyModelAdmin):
    """Visits by status and date. Their moves (D10) and notifications belong to the
    appointment services: here they are read, and cancelled with the Cancel action."""

    list_display = ["date", "duration", "status", "listing", "customer", "owner_email"]
    list_filter = ["status"]
    date_hierarchy = "date"
    list_select_related = ["property", "user", "owner__user"]
    search_fields = ["property__title", "user__email", "owner__user__email"]
    show_full_result_count = False
    fields = [
        "date",
        "duration",
        "ends_at",
        "status",
        "notes",
        "property",
        "user",
        "owner",
        "admin",
        "created_at",
        "updated_at",
    ]
    actions = ["cancel"]

    def get_queryset(self, request):
        # The change page names the owner and the admin by their users' emails.
        return super().get_queryset(request).select_related("owner__user", "admin__user")

    @admin.display(description=_("listing"), ordering="property__title")
    def listing(self, appointment: Appointment) -> str:
        return appointment.property.title

    @admin.display(description=_("customer"), ordering="user__email")
    def customer(self, appointment: Appointment) -> str:
        return appointment.user.email

    @admin.display(description=_("owner"), ordering="owner__user__email")
    def owner_email(self, appointment: Appointment) -> str:
        return appointment.owner.user.email

    @admin.action(description=_("Cancel selected visits"))
    def cancel(self, request, queryset) -> None:
        """Cancel each visit through the service (both parties are notified); report each."""
        cancelled = 0
        for appointment in queryset:
            try:
                with transaction.atomic():
                    services.appointment_cancel(appointment=appointment, by=request.user)
            except DomainError as error:
                self.message_user(request, f"{appointment}: {error.detail}", messages.ERROR)
            else:
                cancelled += 1
        if cancelled:
            self.message_user(
                request,
                ngettext("Cancelled %(count)d visit.", "Cancelled %(count)d visits.", cancelled)
                % {"count": cancelled},
                messages.SUCCESS,
            )
