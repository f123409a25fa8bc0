"""Website pages of visits: requesting one, my visits, the owner's incoming requests.

Who sees which visit is appointments.selectors' rule; every booking and status move is an
appointments.services call, so the state machine (D10) and its roles are decided there.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from appointments import services
from appointments.forms import RescheduleForm, VisitRequestForm
from appointments.models import Appointment
from appointments.rules import APPOINTMENT_MOVES, CUSTOMER, OWNER, RESCHEDULABLE, RESCHEDULERS
from appointments.selectors import appointment_list_loading, appointment_visible_to
from config.errors import DomainError
from config.website import add_domain_error, next_url, owner_required
from listings.models import listing_url
from listings.views import listing_page, visible_listing

# The website's action names and the service that makes each move.
MOVES = {
    "confirm": services.appointment_confirm,
    "cancel": services.appointment_cancel,
    "complete": services.appointment_complete,
}
# The status each action leads to, to offer only the moves the state machine allows.
ACTION_STATUS = {"confirm": "CONFIRMED", "cancel": "CANCELLED", "complete": "COMPLETED"}
# What each action says once done.
ACTION_DONE = {
    "confirm": gettext_lazy("Visit confirmed."),
    "cancel": gettext_lazy("Visit cancelled."),
    "complete": gettext_lazy("Visit completed."),
}


def visit_actions(appointment: Appointment, role: str) -> list[str]:
    """The actions this party may take on the visit now, read from appointments.rules."""
    allowed = APPOINTMENT_MOVES[appointment.status]
    actions = [
        action for action, status in ACTION_STATUS.items() if role in allowed.get(status, ())
    ]
    if appointment.status in RESCHEDULABLE and role in RESCHEDULERS:
        actions.append("reschedule")
    return actions


@require_POST
def request_visit(request: HttpRequest, pk: str) -> HttpResponse:
    """Book a visit of a listing (appointment_book); errors show on the listing's page."""
    if not request.user.is_authenticated:
        return redirect_to_login(listing_url(pk=pk))
    listing = visible_listing(request, pk, detail=True)
    form = VisitRequestForm(request.POST)
    if not form.is_valid():
        return listing_page(request, listing, visit_form=form, status=400)
    try:
        services.appointment_book(by=request.user, property=listing, **form.cleaned_data)
    except DomainError as error:
        add_domain_error(form, error)
        return listing_page(request, listing, visit_form=form, status=error.status_code)
    messages.success(request, _("Visit requested. The owner will confirm it."))
    return redirect("appointments:mine")


def _visit_rows(appointments, role: str) -> list[tuple[Appointment, list[str]]]:
    return [(appointment, visit_actions(appointment, role)) for appointment in appointments]


@login_required
@require_GET
def my_visits(request: HttpRequest) -> HttpResponse:
    """The visits I asked for, soonest first, with cancel and reschedule."""
    visits = appointment_list_loading(
        appointment_visible_to(viewer=request.user).filter(user_id=request.user.pk)
    ).order_by("date", "id")
    context = {"rows": _visit_rows(visits, CUSTOMER)}
    return render(request, "appointments/mine.html", context)


@owner_required
@require_GET
def owner_visits(request: HttpRequest) -> HttpResponse:
    """Visit requests for my listings, soonest first, to confirm, cancel or complete."""
    visits = appointment_list_loading(
        appointment_visible_to(viewer=request.user).filter(owner__user_id=request.user.pk)
    ).order_by("date", "id")
    context = {"rows": _visit_rows(visits, OWNER)}
    return render(request, "appointments/incoming.html", context)


def _visible_visit(request: HttpRequest, pk: str) -> Appointment:
    visits = appointment_visible_to(viewer=request.user).select_related("owner", "property")
    return get_object_or_404(visits, pk=pk)


@login_required
@require_POST
def move(request: HttpRequest, pk: str, action: str) -> HttpResponse:
    """Confirm, cancel or complete a visit; the service checks the move and the caller's role."""
    visit = _visible_visit(request, pk)
    try:
        MOVES[action](appointment=visit, by=request.user)
    except DomainError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, str(ACTION_DONE[action]))
    return redirect(next_url(request, reverse("appointments:mine")))


@login_required
@require_http_methods(["GET", "POST"])
def reschedule(request: HttpRequest, pk: str) -> HttpResponse:
    """Move a visit to a new time (appointment_reschedule); it goes back to pending."""
    visit = _visible_visit(request, pk)
    initial = {"date": visit.date, "duration": visit.duration}
    form = RescheduleForm(request.POST or None, initial=initial)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                services.appointment_reschedule(
                    appointment=visit, by=request.user, **form.cleaned_data
                )
            except DomainError as error:
                add_domain_error(form, error)
                status = error.status_code
            else:
                messages.success(request, _("Visit moved. It waits for confirmation again."))
                return redirect(next_url(request, reverse("appointments:mine")))
    context = {"form": form, "visit": visit, "next": next_url(request, "")}
    return render(request, "appointments/reschedule.html", context, status=status)
