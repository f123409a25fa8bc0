"""Forms of the website's account pages and of the admin's password pages; accounts.services
checks every rule (D6, D7).

Password strength, email uniqueness and the current-password check are the services' (and
Django's validators'); the forms only collect the fields and check that a new password was
typed the same twice, which is a matter of the page, not of the account.
"""

from django import forms
from django.conf import settings
from django.contrib.admin.forms import AdminPasswordChangeForm as AdminOwnPasswordForm
from django.contrib.auth.forms import AdminPasswordChangeForm as AdminUserPasswordForm
from django.contrib.auth.forms import PasswordResetForm, SetPasswordForm
from django.urls import reverse
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext_lazy as _

from accounts.models import User, UserType
from accounts.services import user_password_set
from notifications.email import email_compose
from notifications.tasks import email_enqueue

REGISTRABLE_TYPES = [
    (UserType.CUSTOMER, _("Customer: I am looking for a place")),
    (UserType.OWNER, _("Owner: I want to list properties")),
]
PASSWORDS_DIFFER = _("The two passwords differ.")


def _password_field(label: Promise, autocomplete: str) -> forms.CharField:
    return forms.CharField(
        label=label,
        strip=False,
        widget=forms.PasswordInput(attrs={"autocomplete": autocomplete}),
    )


class RegisterForm(forms.Form):
    """Sign up as a customer or an owner (user_register)."""

    name = forms.CharField(
        label=_("Name"), max_length=200, widget=forms.TextInput(attrs={"autocomplete": "name"})
    )
    email = forms.EmailField(
        label=_("Email"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    phone = forms.CharField(
        label=_("Phone (optional)"),
        max_length=40,
        required=False,
        empty_value=None,
        widget=forms.TextInput(attrs={"autocomplete": "tel", "type": "tel"}),
    )
    user_type = forms.ChoiceField(
        label=_("Account type"),
        choices=REGISTRABLE_TYPES,
        initial=UserType.CUSTOMER,
        widget=forms.RadioSelect,
    )
    password = _password_field(_("Password"), "new-password")
    password_again = _password_field(_("Password again"), "new-password")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["password"].help_text = _(
            "At least 8 characters, not too common, not only digits."
        )

    def clean(self):
        data = super().clean()
        if data.get("password") and data.get("password_again") != data["password"]:
            self.add_error("password_again", PASSWORDS_DIFFER)
        return data


class LoginForm(forms.Form):
    """Sign in with email and password (user_authenticate)."""

    email = forms.EmailField(
        label=_("Email"), max_length=254, widget=forms.EmailInput(attrs={"autocomplete": "email"})
    )
    password = _password_field(_("Password"), "current-password")


class ProfileForm(forms.Form):
    """What a user changes about themselves: name, phone and the language of their emails
    (user_update)."""

    name = forms.CharField(
        label=_("Name"),
        max_length=200,
        required=False,
        empty_value=None,
        widget=forms.TextInput(attrs={"autocomplete": "name"}),
    )
    phone = forms.CharField(
        label=_("Phone"),
        max_length=40,
        required=False,
        empty_value=None,
        widget=forms.TextInput(attrs={"autocomplete": "tel", "type": "tel"}),
    )
    # Left out of a post, the language stays as it is.
    language = forms.ChoiceField(
        label=_("Language of your emails"), choices=settings.LANGUAGES, required=False
    )


class PasswordChangeForm(forms.Form):
    """A new password, with the current one (user_update checks it)."""

    current_password = _password_field(_("Current password"), "current-password")
    new_password = _password_field(_("New password"), "new-password")
    new_password_again = _password_field(_("New password again"), "new-password")

    def clean(self):
        data = super().clean()
        if data.get("new_password") and data.get("new_password_again") != data["new_password"]:
            self.add_error("new_password_again", PASSWORDS_DIFFER)
        return data


class UserPasswordSetForm(AdminUserPasswordForm):
    """The admin's "Set a new password" page of a user: Django's form (a new password, or
    password sign-in disabled), saved by user_password_set, which revokes the user's tokens.
    """

    def save(self, commit: bool = True) -> User:
        # Always saved: the password and the revocation of the tokens go together.
        data = self.cleaned_data
        password = data["password1"] if data["set_usable_password"] else None
        return user_password_set(user=self.user, password=password)


class OwnPasswordChangeForm(AdminOwnPasswordForm):
    """The admin's own "Change password" page: Django's form (the old password, the new one
    twice), saved by user_password_set, which revokes the admin's tokens."""

    def save(self, commit: bool = True) -> User:
        # Always saved: the password and the revocation of the tokens go together.
        return user_password_set(user=self.user, password=self.cleaned_data["new_password1"])


class PasswordForgottenForm(PasswordResetForm):
    """ "Forgot your password?": Django's form, which finds the active accounts of the email
    and makes each a one-time link, and says nothing of whether one exists; its email goes
    to the worker (notifications.tasks.email_send) instead of being sent by the request."""

    def send_mail(
        self,
        subject_template_name,
        email_template_name,
        context,
        from_email,
        to_email,
        html_email_template_name=None,
    ) -> None:
        user = context["user"]
        # The link opens the reset page in the language of the user's emails.
        with translation.override(user.language):
            path = reverse(
                "accounts:password-reset-confirm",
                kwargs={"uidb64": context["uid"], "token": context["token"]},
            )
        email = email_compose(
            to=to_email,
            language=user.language,
            subject=_("Choose a new password"),
            template="password_reset",
            context={
                "name": context["user"].name,
                "reset_url": f"{context['protocol']}://{context['domain']}{path}",
            },
        )
        email_enqueue(email)


class PasswordResetSetForm(SetPasswordForm):
    """The new password of a password reset link: Django's form (the password twice, its
    validators), saved by user_password_set, which revokes the user's API tokens."""

    def save(self, commit: bool = True) -> User:
        # Always saved: the password and the revocation of the tokens go together.
        return user_password_set(user=self.user, password=self.cleaned_data["new_password1"])
