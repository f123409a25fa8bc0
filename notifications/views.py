"""Website pages of notifications: my notifications, mark one read, mark all read."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from config.errors import DomainError
from config.website import next_url
from notifications.selectors import notification_list, notification_visible_to
from notifications.services import notification_mark_all_read, notification_mark_read

PAGE_SIZE = 20


@login_required
@require_GET
def my_notifications(request: HttpRequest) -> HttpResponse:
    """My notifications, newest first, 20 a page (notification_list)."""
    notifications = notification_list(viewer=request.user).select_related("property")
    page = Paginator(notifications, PAGE_SIZE).get_page(request.GET.get("page"))
    return render(request, "notifications/list.html", {"page": page})


@login_required
@require_POST
def mark_read(request: HttpRequest, pk: str) -> HttpResponse:
    """Mark one of my notifications read (notification_mark_read); others' are 404."""
    notification = get_object_or_404(
        notification_visible_to(viewer=request.user).filter(user_id=request.user.pk), pk=pk
    )
    try:
        notification_mark_read(notification=notification, by=request.user)
    except DomainError as error:
        messages.error(request, error.detail)
    return redirect(next_url(request, reverse("notifications:list")))


@login_required
@require_POST
def mark_all_read(request: HttpRequest) -> HttpResponse:
    """Mark every unread notification of mine read, in one UPDATE."""
    updated = notification_mark_all_read(user=request.user, by=request.user)
    noun = "notification" if updated == 1 else "notifications"
    messages.success(request, f"{updated} {noun} marked read.")
    return redirect("notifications:list")
