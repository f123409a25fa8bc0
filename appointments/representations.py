"""An appointment as the API shows it, built by the domain for the appointment.* events
(D12): JSON types only; the API's AppointmentSerializer gives the same shape (a test holds
them equal)."""

from appointments.models import Appointment
from config.json import json_value, local_time


def appointment_representation(appointment: Appointment) -> dict:
    """The whole appointment, as POST, PATCH and GET /appointments/:id answer it."""
    listing = appointment.property
    return json_value(
        {
            "id": appointment.pk,
            "date": local_time(appointment.date),
            "duration": appointment.duration,
            "status": appointment.status,
            "notes": appointment.notes,
            "property": {"id": listing.pk, "title": listing.title, "type": listing.kind},
            "user": {"id": appointment.user_id, "name": appointment.user.name},
            "owner": {"id": appointment.owner_id, "userId": appointment.owner.user_id},
            "propertyId": appointment.property_id,
            "userId": appointment.user_id,
            "ownerId": appointment.owner_id,
            "adminId": appointment.admin_id,
            "createdAt": local_time(appointment.created_at),
            "updatedAt": local_time(appointment.updated_at),
        }
    )
