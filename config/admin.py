"""The back office: Django's admin site, open to ADMIN users only (decisions D6).

Every write the back office makes goes through the same services as the API, so no rule
is written twice. `ServiceModelAdmin` is the common base of the project's model admins:
a service that refuses a write raises a DomainError, which the admin shows as an error
message after rolling the whole request back.
"""

from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.db import models
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from accounts.forms import OwnPasswordChangeForm
from config.api.throttling import LOGIN_THROTTLES, page_request_wait
from config.errors import DomainError
from config.website import TOO_MANY_ATTEMPTS


class AdminLoginForm(AdminAuthenticationForm):
    """Django's admin login form, counted against the API's login limits (D6, D13): per
    client address and per email, with the same throttle classes and rates.

    The count comes before Django's check of the password, so that a refused attempt costs
    no password hash. `retry_after` is the wait of a refused attempt, in seconds.
    """

    retry_after: int | None = None

    def clean(self):
        # The form's `username` is the email (the user model's USERNAME_FIELD).
        email = {"email": self.cleaned_data.get("username")}
        self.retry_after = page_request_wait(self.request, LOGIN_THROTTLES, data=email)
        if self.retry_after is not None:
            raise ValidationError(
                TOO_MANY_ATTEMPTS % {"seconds": self.retry_after}, code="throttled"
            )
        return super().clean()


class PlatformAdminSite(admin.AdminSite):
    """Admin site that admits active users whose userType is ADMIN, and nobody else."""

    site_header = _("Estate back office")
    site_title = _("Estate back office")
    index_title = _("Moderation")
    login_form = AdminLoginForm
    # An admin's own "Change password" page saves through user_password_set (tokens revoked).
    password_change_form = OwnPasswordChangeForm

    def has_permission(self, request) -> bool:
        user = request.user
        return bool(user.is_active and user.is_authenticated and user.is_admin)

    def login(self, request, extra_context=None):
        """Django's login page; an attempt over the limits gets it back with 429 and
        Retry-After, as the API's login answers."""
        response = super().login(request, extra_context)
        form = (getattr(response, "context_data", None) or {}).get("form")
        retry_after = getattr(form, "retry_after", None)
        if retry_after is not None:
            response.status_code = 429
            response["Retry-After"] = str(retry_after)
        return response


def adopt_saved(target: models.Model, saved: models.Model) -> None:
    """Make the admin's unsaved `target` the row a service just wrote (`saved`).

    The admin keeps working with the instance its form built (inlines attach to it, the
    history entry names it), while the row itself was written by a service.
    """
    for field in saved._meta.concrete_fields:
        setattr(target, field.attname, getattr(saved, field.attname))
    target._state.adding = False
    target._state.db = saved._state.db


class ServiceModelAdmin(admin.ModelAdmin):
    """A model admin whose writes go through services.

    The change form and the delete view run in one transaction (Django's own): when a
    service refuses (DomainError), everything the request wrote is rolled back, its
    message is shown, and the admin is sent back to the page it came from, unchanged.
    """

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except DomainError as error:
            self.message_user(request, error.detail, messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    def get_deleted_objects(self, objs, request):
        # Rows that go with the deleted one (D14 cascades) are listed on the confirmation
        # page, but their admins being read-only must not block the deletion: an ADMIN may
        # do everything (D7), and the cascade is the service's business.
        deleted, model_count, _perms_needed, protected = super().get_deleted_objects(objs, request)
        return deleted, model_count, set(), protected

    def delete_view(self, request, object_id, extra_context=None):
        try:
            return super().delete_view(request, object_id, extra_context)
        except DomainError as error:
            self.message_user(request, error.detail, messages.ERROR)
            opts = self.opts
            change_url = reverse(
                f"{self.admin_site.name}:{opts.app_label}_{opts.model_name}_change",
                args=[object_id],
            )
            return HttpResponseRedirect(change_url)


class ReadOnlyModelAdmin(admin.ModelAdmin):
    """A list and detail pages to read; rows are written by the platform, not by hand."""

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
