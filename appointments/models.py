"""Visit appointments between a customer and a listing's owner."""

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _

from accounts.models import Admin, Owner
from config.models import TimestampedModel
from listings.models import Property

MIN_DURATION_MINUTES = 15
MAX_DURATION_MINUTES = 480
DEFAULT_DURATION_MINUTES = 30


class AppointmentStatus(models.TextChoices):
    PENDING = "PENDING", _("Pending")
    CONFIRMED = "CONFIRMED", _("Confirmed")
    CANCELLED = "CANCELLED", _("Cancelled")
    COMPLETED = "COMPLETED", _("Completed")


class Appointment(TimestampedModel):
    """A requested visit of a property by a customer (`user`) at a date and for a duration.

    Two appointments of one property that are not CANCELLED never overlap: on PostgreSQL
    an exclusion constraint (migration 0003) holds it, on SQLite the booking service checks
    inside its write transaction, which SQLite runs one at a time.
    """

    date = models.DateTimeField()
    duration = models.PositiveSmallIntegerField(default=DEFAULT_DURATION_MINUTES)
    # date + duration, kept by the services. Stored because PostgreSQL's overlap exclusion
    # constraint needs an immutable range expression, which timestamptz + interval is not.
    ends_at = models.DateTimeField()
    status = models.CharField(
        max_length=9, choices=AppointmentStatus.choices, default=AppointmentStatus.PENDING
    )
    notes = models.TextField(blank=True, null=True, max_length=2000)
    property = models.ForeignKey(Property, on_delete=models.CASCADE, related_name="appointments")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="appointments"
    )
    owner = models.ForeignKey(Owner, on_delete=models.CASCADE, related_name="appointments")
    admin = models.ForeignKey(
        Admin, on_delete=models.SET_NULL, null=True, blank=True, related_name="appointments"
    )

    class Meta:
        ordering = ["date", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(duration__gte=MIN_DURATION_MINUTES, duration__lte=MAX_DURATION_MINUTES),
                name="appointments_duration_range",
            ),
            models.CheckConstraint(
                condition=Q(status__in=AppointmentStatus.values),
                name="appointments_status_valid",
            ),
            models.CheckConstraint(
                condition=Q(ends_at__gt=F("date")), name="appointments_ends_after_start"
            ),
        ]
        indexes = [
            models.Index(fields=["property", "date"], name="appointments_property_date_idx"),
            models.Index(fields=["user", "date"], name="appointments_user_date_idx"),
            models.Index(fields=["owner", "date"], name="appointments_owner_date_idx"),
        ]

    def __str__(self) -> str:
        return f"Visit of {self.property_id} on {self.date:%Y-%m-%d %H:%M}"
