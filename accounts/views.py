"""Website pages of accounts: register, log in, log out, profile and password.

Sessions with CSRF (D6). Every check is accounts.services' (user_register, user_authenticate,
user_update); sign-in and sign-up attempts count against the API's own rate limits (D13),
with the same throttle classes and settings, so a page is no way around them.
"""

from django.contrib import messages
from django.contrib.auth import login, logout, update_session_auth_hash
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import PasswordResetConfirmView, PasswordResetView
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse, reverse_lazy
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.forms import (
    LoginForm,
    PasswordChangeForm,
    PasswordForgottenForm,
    PasswordResetSetForm,
    ProfileForm,
    RegisterForm,
)
from accounts.models import UserType
from accounts.services import (
    email_confirmation_send,
    user_authenticate,
    user_email_confirm,
    user_register,
    user_update,
)
from config.api.throttling import (
    LOGIN_THROTTLES,
    LoginAddressThrottle,
    RegisterAddressThrottle,
    page_request_wait,
)
from config.errors import DomainError
from config.website import TOO_MANY_ATTEMPTS, add_domain_error, next_url


def _home_of(user) -> str:
    return reverse("listings:owner-list") if user.user_type == UserType.OWNER else reverse("home")


@sensitive_post_parameters("password", "password_again")
@require_http_methods(["GET", "POST"])
def register(request: HttpRequest) -> HttpResponse:
    """Create a customer or owner account (user_register) and sign in."""
    form = RegisterForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        wait = page_request_wait(request, [RegisterAddressThrottle])
        if wait is not None:
            form.is_valid()
            form.add_error(None, TOO_MANY_ATTEMPTS % {"seconds": wait})
            status = 429
        elif form.is_valid():
            data = form.cleaned_data
            try:
                user = user_register(
                    email=data["email"],
                    password=data["password"],
                    name=data["name"],
                    phone=data["phone"],
                    user_type=data["user_type"],
                    # The user's emails speak the language the sign-up page spoke.
                    language=translation.get_language(),
                )
            except DomainError as error:
                add_domain_error(form, error)
                status = error.status_code
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                messages.success(
                    request, _("Welcome, %(name)s.") % {"name": user.name or user.email}
                )
                return redirect(next_url(request, _home_of(user)))
    context = {"form": form, "next": next_url(request, "")}
    return render(request, "accounts/register.html", context, status=status)


@sensitive_post_parameters("password")
@require_http_methods(["GET", "POST"])
def login_view(request: HttpRequest) -> HttpResponse:
    """Sign in with email and password (user_authenticate), then Django's session login."""
    form = LoginForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        wait = page_request_wait(request, LOGIN_THROTTLES)
        if wait is not None:
            form.is_valid()
            form.add_error(None, TOO_MANY_ATTEMPTS % {"seconds": wait})
            status = 429
        elif form.is_valid():
            try:
                user = user_authenticate(**form.cleaned_data)
            except DomainError as error:
                # One message for a wrong email and a wrong password (D5), above the form.
                form.add_error(None, error.detail)
                status = 401
            else:
                login(request, user)
                return redirect(next_url(request, _home_of(user)))
    context = {"form": form, "next": next_url(request, "")}
    return render(request, "accounts/login.html", context, status=status)


@require_POST
def logout_view(request: HttpRequest) -> HttpResponse:
    """End the session (POST only, so that no link or image can sign anyone out)."""
    logout(request)
    messages.success(request, _("You are signed out."))
    return redirect("home")


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    """Change my name, phone and the language of my emails (user_update)."""
    user = request.user
    form = ProfileForm(
        request.POST or None,
        initial={"name": user.name, "phone": user.phone, "language": user.language},
    )
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                data = form.cleaned_data
                fields = {"name", "phone", *(["language"] if data["language"] else [])}
                user_update(
                    user=user,
                    by=user,
                    fields=fields,
                    name=data["name"],
                    phone=data["phone"],
                    language=data["language"] or None,
                )
            except DomainError as error:
                add_domain_error(form, error)
                status = error.status_code
            else:
                messages.success(request, _("Profile saved."))
                return redirect("accounts:profile")
    return render(request, "accounts/profile.html", {"form": form}, status=status)


@sensitive_post_parameters("current_password", "new_password", "new_password_again")
@login_required
@require_http_methods(["GET", "POST"])
def password_change(request: HttpRequest) -> HttpResponse:
    """Change my password; the current one is required (user_update checks it), and the
    user's API tokens are revoked (user_password_set)."""
    form = PasswordChangeForm(request.POST or None)
    status = 200
    if request.method == "POST":
        status = 400
        if form.is_valid():
            try:
                user = user_update(
                    user=request.user,
                    by=request.user,
                    password=form.cleaned_data["new_password"],
                    current_password=form.cleaned_data["current_password"],
                    fields={"password"},
                )
            except DomainError as error:
                add_domain_error(form, error, {"password": "new_password"})
                status = error.status_code
            else:
                # Keeps this session signed in; the user's other sessions end, and
                # user_password_set has revoked every API token of theirs.
                update_session_auth_hash(request, user)
                messages.success(request, _("Password changed."))
                return redirect("accounts:profile")
    return render(request, "accounts/password.html", {"form": form}, status=status)


class PasswordForgottenView(PasswordResetView):
    """ "Forgot your password?": an email address, and the same answer whether an account
    has it or not (Django's view). Attempts count against the sign-in limits of the address
    and of the email (429 with the time to wait); the email goes to the worker."""

    form_class = PasswordForgottenForm
    template_name = "accounts/password_reset.html"
    success_url = reverse_lazy("accounts:password-reset-done")

    def post(self, request, *args, **kwargs):
        wait = page_request_wait(request, LOGIN_THROTTLES)
        if wait is None:
            return super().post(request, *args, **kwargs)
        form = self.get_form()
        form.is_valid()
        form.add_error(None, TOO_MANY_ATTEMPTS % {"seconds": wait})
        response = self.render_to_response(self.get_context_data(form=form), status=429)
        response["Retry-After"] = str(wait)
        return response


class PasswordResetSetView(PasswordResetConfirmView):
    """The page of a password reset link: a new password twice (Django's view checks the
    link), saved by user_password_set."""

    form_class = PasswordResetSetForm
    template_name = "accounts/password_reset_confirm.html"
    success_url = reverse_lazy("accounts:password-reset-complete")


@require_GET
def email_confirm(request: HttpRequest, token: str) -> HttpResponse:
    """The link of a confirmation email: the address it names is confirmed (a second visit
    changes nothing); an expired or outdated link says so."""
    try:
        user_email_confirm(token=token)
    except DomainError as error:
        messages.error(request, error.detail)
    else:
        messages.success(request, _("Your email address is confirmed."))
    return redirect("accounts:profile" if request.user.is_authenticated else "accounts:login")


@login_required
@require_POST
def email_confirmation_again(request: HttpRequest) -> HttpResponse:
    """Send my confirmation link again (counted against the sign-in limits of my address)."""
    wait = page_request_wait(request, [LoginAddressThrottle])
    if wait is not None:
        messages.error(request, TOO_MANY_ATTEMPTS % {"seconds": wait})
    elif request.user.email_verified is None:
        email_confirmation_send(user=request.user)
        messages.success(
            request,
            _("A new confirmation link is on its way to %(email)s.")
            % {"email": request.user.email},
        )
    return redirect("accounts:profile")
