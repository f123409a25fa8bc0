"""The appointment status state machine (decisions D10), in one place."""

from appointments.models import AppointmentStatus

CUSTOMER = "customer"
OWNER = "owner"

# Allowed moves and who may make them; admins may make every listed move.
APPOINTMENT_MOVES: dict[str, dict[str, frozenset[str]]] = {
    AppointmentStatus.PENDING: {
        AppointmentStatus.CONFIRMED: frozenset({OWNER}),
        AppointmentStatus.CANCELLED: frozenset({CUSTOMER, OWNER}),
    },
    AppointmentStatus.CONFIRMED: {
        AppointmentStatus.CANCELLED: frozenset({CUSTOMER, OWNER}),
        AppointmentStatus.COMPLETED: frozenset({OWNER}),
    },
    AppointmentStatus.CANCELLED: {},
    AppointmentStatus.COMPLETED: {},
}
# Statuses from which the date or duration may change; the visit then goes back to PENDING.
RESCHEDULABLE = frozenset({AppointmentStatus.PENDING, AppointmentStatus.CONFIRMED})
RESCHEDULERS = frozenset({CUSTOMER, OWNER})
