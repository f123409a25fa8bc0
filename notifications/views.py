"""Website pages of notifications and alerts: my notifications (mark one or all read), my
saved searches (save the search on the page, rename, change the frequency, delete), my email
preferences, and the unsubscribe links of emails."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from config.errors import DomainError
from config.website import next_url
from listings.search import SearchParamsInvalid
from notifications.forms import (
    EmailPreferencesForm,
    SavedSearchForm,
    SaveSearchForm,
    criteria_query,
)
from notifications.models import EmailTopic
from notifications.selectors import (
    email_preferences_of,
    notification_list,
    notification_visible_to,
    saved_search_visible_to,
)
from notifications.services import (
    SAVED_SEARCH_NAME_MAX_LENGTH,
    email_preferences_update,
    email_unsubscribe,
    email_unsubscribe_topic,
    notification_mark_all_read,
    notification_mark_read,
    saved_search_create,
    saved_search_delete,
    saved_search_update,
)

PAGE_SIZE = 20
NAME_RULE = gettext_lazy("give the search a name of at most %(count)s letters.") % {
    "count": SAVED_SEARCH_NAME_MAX_LENGTH
}


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
    message = ngettext(
        "%(count)s notification marked read.", "%(count)s notifications marked read.", updated
    )
    messages.success(request, message % {"count": updated})
    return redirect("notifications:list")


def _my_saved_searches(request: HttpRequest):
    """My saved searches, newest first: an administrator's pages show their own too."""
    return saved_search_visible_to(viewer=request.user).filter(user_id=request.user.pk)


def _my_saved_search(request: HttpRequest, pk: str):
    """One of my saved searches; anyone else's is 404 here."""
    return get_object_or_404(_my_saved_searches(request), pk=pk)


@login_required
@require_GET
def my_saved_searches(request: HttpRequest) -> HttpResponse:
    """My saved searches, newest first, each with its search's link and a form to rename it
    or change how often it alerts."""
    rows = [
        {
            "saved_search": saved_search,
            "search_url": f"{reverse('home')}?{criteria_query(saved_search.criteria)}",
            "form": SavedSearchForm(
                initial={"name": saved_search.name, "frequency": saved_search.frequency},
                prefix=saved_search.pk,
            ),
        }
        for saved_search in _my_saved_searches(request)
    ]
    return render(request, "notifications/saved_searches.html", {"rows": rows})


@require_POST
def save_search(request: HttpRequest) -> HttpResponse:
    """Save the search of the page it is posted from (its query string in `criteria`)."""
    back = next_url(request, reverse("home"))
    if not request.user.is_authenticated:
        return redirect_to_login(back)
    form = SaveSearchForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("The search was not saved: %(reason)s") % {"reason": NAME_RULE})
        return redirect(back)
    data = form.cleaned_data
    # The page's criteria as listings.views put them in the form: the search's query
    # string without order or page.
    criteria = QueryDict(data["criteria"]).dict()
    try:
        saved_search = saved_search_create(
            by=request.user, name=data["name"], criteria=criteria, frequency=data["frequency"]
        )
    except SearchParamsInvalid as refused:
        messages.error(request, _("The search was not saved: %(reason)s") % {"reason": refused})
        return redirect(back)
    except DomainError as error:
        messages.error(
            request, _("The search was not saved: %(reason)s") % {"reason": error.detail}
        )
        return redirect(back)
    messages.success(
        request,
        _("Search “%(name)s” saved: you will be alerted of new listings (%(frequency)s).")
        % {
            "name": saved_search.name,
            "frequency": saved_search.get_frequency_display().lower(),
        },
    )
    return redirect(back)


@login_required
@require_POST
def change_saved_search(request: HttpRequest, pk: str) -> HttpResponse:
    """Rename one of my saved searches or change how often it alerts."""
    saved_search = _my_saved_search(request, pk)
    form = SavedSearchForm(request.POST, prefix=saved_search.pk)
    if not form.is_valid():
        messages.error(request, _("Not changed: %(reason)s") % {"reason": NAME_RULE})
        return redirect("notifications:saved-searches")
    try:
        saved_search_update(
            saved_search=saved_search,
            by=request.user,
            name=form.cleaned_data["name"],
            frequency=form.cleaned_data["frequency"],
        )
    except DomainError as error:
        messages.error(request, _("Not changed: %(reason)s") % {"reason": error.detail})
        return redirect("notifications:saved-searches")
    messages.success(request, _("Search “%(name)s” changed.") % {"name": saved_search.name})
    return redirect("notifications:saved-searches")


@login_required
@require_POST
def delete_saved_search(request: HttpRequest, pk: str) -> HttpResponse:
    """Delete one of my saved searches."""
    saved_search = _my_saved_search(request, pk)
    saved_search_delete(saved_search=saved_search, by=request.user)
    messages.success(request, _("Search “%(name)s” deleted.") % {"name": saved_search.name})
    return redirect("notifications:saved-searches")


@login_required
@require_http_methods(["GET", "POST"])
def my_email_preferences(request: HttpRequest) -> HttpResponse:
    """Which topics' emails I want (email_preferences_update)."""
    preferences = email_preferences_of(user=request.user)
    initial = {topic.value: getattr(preferences, topic.value) for topic in EmailTopic}
    form = EmailPreferencesForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        email_preferences_update(user=request.user, by=request.user, changes=form.cleaned_data)
        messages.success(request, _("Email preferences saved."))
        return redirect("notifications:email-preferences")
    return render(request, "notifications/email_preferences.html", {"form": form})


# A mail provider's one-click unsubscribe (RFC 8058) is a POST without cookies: the signed
# token in the URL is what authorizes it, and stopping emails is all it can do.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request: HttpRequest, token: str) -> HttpResponse:
    """An email's unsubscribe link: GET asks to confirm, POST (the page's button, or the
    mail provider's one-click) stops the emails of its topic."""
    try:
        if request.method == "POST":
            _user, topic = email_unsubscribe(token=token)
        else:
            _user, topic = email_unsubscribe_topic(token=token)
    except DomainError as error:
        context = {"error": error.detail}
        return render(request, "notifications/unsubscribe.html", context, status=400)
    context = {"topic": EmailTopic(topic), "done": request.method == "POST"}
    return render(request, "notifications/unsubscribe.html", context)
