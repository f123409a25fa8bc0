"""Writes on appointments: booking and every status move (decisions D7, D10, D12).

Each change that concerns the other party creates their in-app notification in the same
transaction, and each records its appointment.* event (D12) there too, so a rolled-back
change notifies nobody and emits nothing. A request, a confirmation, a cancellation and a
reschedule also queue an email (topic visits, docs/email.md) to each user notified, in that
transaction as well.
"""

import datetime

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.text import format_lazy
from django.utils.translation import gettext, gettext_lazy

from accounts.models import Admin, Owner, User, UserType
from accounts.services import admin_profile_ensure
from appointments.models import (
    MAX_DURATION_MINUTES,
    MIN_DURATION_MINUTES,
    Appointment,
    AppointmentStatus,
)
from appointments.representations import appointment_representation
from appointments.rules import APPOINTMENT_MOVES, CUSTOMER, OWNER, RESCHEDULABLE, RESCHEDULERS
from config.dates import datetime_format_lazy
from config.errors import Conflict, InvalidTransition, PermissionRefused, ValidationFailed
from listings.models import Property, PropertyStatus
from notifications.email import absolute_url
from notifications.events import event_record
from notifications.models import EmailTopic, EventType, NotificationStatus
from notifications.services import notification_send, user_email_send

OVERLAP = "The listing already has a visit at that time."


def _is_admin(user: User) -> bool:
    return user.is_authenticated and user.user_type == UserType.ADMIN


def _acting_admin(by: User) -> Admin | None:
    """The Admin record of an administrator who books or changes a visit: they are involved."""
    return admin_profile_ensure(user=by) if _is_admin(by) else None


def appointment_role(*, appointment: Appointment, user: User) -> str | None:
    """The part `user` plays in the appointment: customer, owner, or None (admins: None)."""
    if appointment.user_id == user.pk:
        return CUSTOMER
    if appointment.owner.user_id == user.pk:
        return OWNER
    return None


def _ends_at(date: datetime.datetime, duration: int) -> datetime.datetime:
    try:
        return date + datetime.timedelta(minutes=duration)
    except OverflowError:
        # A visit that would end after 9999-12-31T23:59:59.999999Z cannot be stored.
        raise ValidationFailed(
            gettext_lazy("A visit must end by the end of year 9999."), field="date"
        ) from None


def _check_slot(*, date: datetime.datetime, duration: int) -> None:
    if date <= timezone.now():
        raise ValidationFailed(gettext_lazy("A visit must be in the future."), field="date")
    if not MIN_DURATION_MINUTES <= duration <= MAX_DURATION_MINUTES:
        raise ValidationFailed(
            gettext("A visit lasts %(min)d to %(max)d minutes.")
            % {"min": MIN_DURATION_MINUTES, "max": MAX_DURATION_MINUTES},
            field="duration",
        )


def _check_no_overlap(
    *, property: Property, date: datetime.datetime, ends_at: datetime.datetime, exclude=None
) -> None:
    # The database's exclusion constraint is the guard on PostgreSQL; this check gives the
    # same answer first, and is the guard on SQLite, whose writers run one at a time.
    overlapping = Appointment.objects.filter(
        property=property, date__lt=ends_at, ends_at__gt=date
    ).exclude(status=AppointmentStatus.CANCELLED)
    if exclude is not None:
        overlapping = overlapping.exclude(pk=exclude.pk)
    if overlapping.exists():
        raise Conflict(OVERLAP, field="date")


def _save(appointment: Appointment, **save_options) -> Appointment:
    try:
        with transaction.atomic():
            appointment.save(**save_options)
    except IntegrityError as error:
        # Two requests for the same slot at once: PostgreSQL's exclusion constraint refused one.
        raise Conflict(OVERLAP, field="date") from error
    return appointment


def _visits_page_url(*, appointment: Appointment, user: User) -> str:
    """The website's page where `user` sees this visit: the owner's visit requests, or the
    customer's own visits."""
    name = "appointments:incoming" if user.pk == appointment.owner.user_id else "appointments:mine"
    return absolute_url(name)


# The subjects of the visit emails, in the recipient's language (email_compose).
EMAIL_SUBJECTS = {
    "visit_requested": gettext_lazy("New visit request: {title}"),
    "visit_confirmed": gettext_lazy("Visit confirmed: {title}"),
    "visit_cancelled": gettext_lazy("Visit cancelled: {title}"),
    "visit_rescheduled": gettext_lazy("Visit rescheduled: {title}"),
}


def _email(*, user: User, appointment: Appointment, template: str) -> None:
    """Queue the email of a visit change to `user` (topic visits), when they may get it."""
    user_email_send(
        user=user,
        topic=EmailTopic.VISITS,
        subject=format_lazy(EMAIL_SUBJECTS[template], title=appointment.property.title),
        template=template,
        context={
            "listing_title": appointment.property.title,
            # In the recipient's language, as the email is rendered.
            "when": datetime_format_lazy(appointment.date),
            "customer_name": appointment.user.name or appointment.user.email,
            "visits_url": _visits_page_url(appointment=appointment, user=user),
        },
    )


def _notify(
    *,
    user: User,
    appointment: Appointment,
    title: str,
    message: str,
    email_template: str | None = None,
) -> None:
    """Give `user` an in-app notification of a visit change and, for a change that has an
    email (its template named), that email too: they go to the same people."""
    notification_send(
        user=user,
        property=appointment.property,
        status=NotificationStatus.INFO,
        title=title,
        message=message,
    )
    if email_template is not None:
        _email(user=user, appointment=appointment, template=email_template)


def _notify_other_parties(
    *,
    appointment: Appointment,
    by: User,
    title: str,
    message: str,
    email_template: str | None = None,
) -> None:
    """Tell the customer and the owner, except whoever made the change."""
    for user in (appointment.user, appointment.owner.user):
        if user.pk != by.pk:
            _notify(
                user=user,
                appointment=appointment,
                title=title,
                message=message,
                email_template=email_template,
            )


def _record_event(event_type: str, appointment: Appointment) -> None:
    """Record an appointment.* event (D12) with the appointment as the API shows it.

    The listing owner's webhooks and the customer's receive it (and admins').
    """
    event_record(
        type=event_type,
        payload=appointment_representation(appointment),
        listing_id=appointment.property_id,
        owner_user_id=appointment.owner.user_id,
        participant_id=appointment.user_id,
    )


def _when(appointment: Appointment) -> str:
    """The visit's day and time in the language its text is written in (lazy)."""
    return datetime_format_lazy(appointment.date)


@transaction.atomic
def appointment_book(
    *,
    by: User,
    property: Property,
    date: datetime.datetime,
    duration: int,
    customer: User | None = None,
    owner: Owner | None = None,
    notes: str | None = None,
) -> Appointment:
    """Request a visit of an AVAILABLE listing (D10); its owner is notified.

    The customer is the caller (admins may book for anyone); owners cannot book their own
    listing. `owner`, when given, must be the listing's owner.
    """
    customer = customer or by
    if customer.pk != by.pk and not _is_admin(by):
        raise PermissionRefused(
            gettext_lazy("You may book visits only for yourself."), field="userId"
        )
    # Bookings of one listing queue on its row (FOR NO KEY UPDATE, the listing's row only:
    # see listings.services._lock); the exclusion constraint stays the last word on overlaps.
    listing = (
        Property.objects.select_for_update(no_key=True, of=("self",))
        .select_related("owner__user")
        .get(pk=property.pk)
    )
    if listing.owner.user_id == customer.pk:
        raise PermissionRefused(
            gettext_lazy("You cannot book a visit of your own listing."), field="propertyId"
        )
    if owner is not None and owner.pk != listing.owner_id:
        raise ValidationFailed(
            gettext_lazy("ownerId must be the listing's owner."), field="ownerId"
        )
    if listing.status != PropertyStatus.AVAILABLE:
        raise Conflict(gettext_lazy("Only AVAILABLE listings can be visited."), field="propertyId")
    _check_slot(date=date, duration=duration)
    ends_at = _ends_at(date, duration)
    _check_no_overlap(property=listing, date=date, ends_at=ends_at)
    appointment = _save(
        Appointment(
            property=listing,
            user=customer,
            owner=listing.owner,
            date=date,
            duration=duration,
            ends_at=ends_at,
            notes=notes,
            admin=_acting_admin(by),
        )
    )
    _notify(
        user=listing.owner.user,
        appointment=appointment,
        title=gettext_lazy("New visit request"),
        message=format_lazy(
            gettext_lazy("{customer} asked to visit “{title}” on {when}."),
            customer=customer.name or customer.email,
            title=listing.title,
            when=_when(appointment),
        ),
        email_template="visit_requested",
    )
    _record_event(EventType.APPOINTMENT_CREATED, appointment)
    return appointment


def _lock(appointment: Appointment) -> Appointment:
    """Re-read a visit under lock: its listing's row first, then its own, in the order every
    service locks them (a booking locks the listing), so that two requests never wait on
    each other in a circle. FOR NO KEY UPDATE, as listings.services._lock explains."""
    listing = Property.objects.select_for_update(no_key=True).filter(pk=appointment.property_id)
    list(listing.values_list("pk", flat=True))
    return (
        Appointment.objects.select_for_update(no_key=True, of=("self",))
        .select_related("owner__user", "property", "user")
        .get(pk=appointment.pk)
    )


def _move(*, appointment: Appointment, by: User, status: str) -> Appointment | None:
    """Check a status move against D10; None when it is a no-op (already there)."""
    if status == appointment.status:
        return None
    allowed = APPOINTMENT_MOVES[appointment.status]
    if status not in allowed:
        allowed_text = ", ".join(allowed) if allowed else gettext("none (it is final)")
        raise InvalidTransition(
            gettext(
                "An appointment cannot move from %(current)s to %(status)s. "
                "Allowed next statuses: %(allowed)s."
            )
            % {"current": appointment.status, "status": status, "allowed": allowed_text},
            field="status",
        )
    role = appointment_role(appointment=appointment, user=by)
    if not _is_admin(by) and role not in allowed[status]:
        raise PermissionRefused(
            _only_movers(allowed[status]) % {"status": status},
            field="status",
        )
    appointment.status = status
    return appointment


def _only_movers(roles: frozenset[str]) -> str:
    """The refusal of a move to someone whose part may not make it, naming who may."""
    if roles == {CUSTOMER}:
        return gettext("Only the customer may move this visit to %(status)s.")
    if roles == {OWNER}:
        return gettext("Only the owner may move this visit to %(status)s.")
    return gettext("Only the customer or the owner may move this visit to %(status)s.")


def _require_party(*, appointment: Appointment, by: User) -> None:
    if not _is_admin(by) and appointment_role(appointment=appointment, user=by) is None:
        raise PermissionRefused(
            gettext_lazy("Only the customer and the owner may change this visit.")
        )


@transaction.atomic
def appointment_confirm(*, appointment: Appointment, by: User) -> Appointment:
    """The owner accepts a PENDING visit; the customer is notified."""
    return _change_status(appointment=appointment, by=by, status=AppointmentStatus.CONFIRMED)


@transaction.atomic
def appointment_cancel(*, appointment: Appointment, by: User) -> Appointment:
    """The customer or the owner cancels a PENDING or CONFIRMED visit; the record is kept."""
    return _change_status(appointment=appointment, by=by, status=AppointmentStatus.CANCELLED)


@transaction.atomic
def appointment_complete(*, appointment: Appointment, by: User) -> Appointment:
    """The owner marks a CONFIRMED visit as done."""
    return _change_status(appointment=appointment, by=by, status=AppointmentStatus.COMPLETED)


# The event each status move records (D12).
STATUS_EVENTS = {
    AppointmentStatus.CONFIRMED: EventType.APPOINTMENT_CONFIRMED,
    AppointmentStatus.CANCELLED: EventType.APPOINTMENT_CANCELLED,
    AppointmentStatus.COMPLETED: EventType.APPOINTMENT_COMPLETED,
}

STATUS_MESSAGES = {
    AppointmentStatus.CONFIRMED: (
        gettext_lazy("Visit confirmed"),
        gettext_lazy("Your visit of “{title}” on {when} is confirmed."),
    ),
    AppointmentStatus.CANCELLED: (
        gettext_lazy("Visit cancelled"),
        gettext_lazy("The visit of “{title}” on {when} was cancelled."),
    ),
    AppointmentStatus.COMPLETED: (
        gettext_lazy("Visit completed"),
        gettext_lazy("The visit of “{title}” on {when} took place."),
    ),
}

# The email template of the moves that are emailed too (docs/email.md): a completed visit
# changes nothing anyone has to act on, so its notification is enough.
STATUS_EMAILS = {
    AppointmentStatus.CONFIRMED: "visit_confirmed",
    AppointmentStatus.CANCELLED: "visit_cancelled",
}


def _change_status(*, appointment: Appointment, by: User, status: str) -> Appointment:
    _require_party(appointment=appointment, by=by)
    locked = _lock(appointment)
    moved = _move(appointment=locked, by=by, status=status)
    if moved is None:
        return locked
    moved.admin = _acting_admin(by) or moved.admin
    _save(moved, update_fields=["status", "admin", "updated_at"])
    if status in STATUS_MESSAGES:
        title, message = STATUS_MESSAGES[status]
        _notify_other_parties(
            appointment=moved,
            by=by,
            title=title,
            message=format_lazy(message, title=moved.property.title, when=_when(moved)),
            email_template=STATUS_EMAILS.get(status),
        )
    _record_event(STATUS_EVENTS[status], moved)
    return moved


@transaction.atomic
def appointment_reschedule(
    *,
    appointment: Appointment,
    by: User,
    date: datetime.datetime | None = None,
    duration: int | None = None,
) -> Appointment:
    """Move a PENDING or CONFIRMED visit to a new time; it goes back to PENDING (D10)."""
    _require_party(appointment=appointment, by=by)
    locked = _lock(appointment)
    new_date = date if date is not None else locked.date
    new_duration = duration if duration is not None else locked.duration
    if new_date == locked.date and new_duration == locked.duration:
        return locked
    if locked.status not in RESCHEDULABLE:
        raise InvalidTransition(
            gettext("A %(status)s visit cannot be rescheduled.") % {"status": locked.status},
            field="date",
        )
    role = appointment_role(appointment=locked, user=by)
    if not _is_admin(by) and role not in RESCHEDULERS:
        raise PermissionRefused(
            gettext_lazy("Only the customer and the owner may reschedule."), field="date"
        )
    _check_slot(date=new_date, duration=new_duration)
    ends_at = _ends_at(new_date, new_duration)
    _check_no_overlap(property=locked.property, date=new_date, ends_at=ends_at, exclude=locked)
    locked.date, locked.duration, locked.ends_at = new_date, new_duration, ends_at
    locked.status = AppointmentStatus.PENDING
    locked.admin = _acting_admin(by) or locked.admin
    _save(locked)
    _notify_other_parties(
        appointment=locked,
        by=by,
        title=gettext_lazy("Visit rescheduled"),
        message=format_lazy(
            gettext_lazy("The visit of “{title}” moved to {when}."),
            title=locked.property.title,
            when=_when(locked),
        ),
        email_template="visit_rescheduled",
    )
    _record_event(EventType.APPOINTMENT_RESCHEDULED, locked)
    return locked


@transaction.atomic
def appointment_update(
    *,
    appointment: Appointment,
    by: User,
    status: str | None = None,
    date: datetime.datetime | None = None,
    duration: int | None = None,
    notes: str | None = None,
    fields: set[str],
) -> Appointment:
    """PATCH /appointments/:id: notes, a reschedule, then a status move, all or nothing.

    The reschedule comes first, so `{date, status: CONFIRMED}` from the owner moves the visit
    and confirms it at its new time, as the interface's example shows.
    """
    _require_party(appointment=appointment, by=by)
    if "notes" in fields:
        locked = _lock(appointment)
        locked.notes = notes
        locked.save(update_fields=["notes", "updated_at"])
        appointment = locked
    if date is not None or duration is not None:
        appointment = appointment_reschedule(
            appointment=appointment, by=by, date=date, duration=duration
        )
    if status is not None:
        appointment = _change_status(appointment=appointment, by=by, status=status)
    return appointment
