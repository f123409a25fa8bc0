"""Writes on accounts: every face of the platform (API, website, admin) calls these."""

import datetime

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.password_validation import validate_password
from django.core import signing
from django.core.exceptions import ValidationError as DjangoValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy

from accounts.models import AccessToken, Admin, Customer, Owner, User, UserType
from accounts.tokens import token_generate, token_hash
from config.errors import (
    Conflict,
    InvalidCredentials,
    PermissionRefused,
    ValidationFailed,
)
from listings.cache import public_reads_changed
from listings.models import Property
from media_app.cleanup import media_files_delete_on_commit, media_files_for_deletion
from notifications.email import absolute_url, email_compose
from notifications.tasks import email_enqueue

EMAIL_TAKEN = gettext_lazy("An account with this email already exists.")
LAST_ADMIN = gettext_lazy(
    "The platform needs an active administrator: make another user an administrator first."
)
INVALID_CREDENTIALS = gettext_lazy("The email or the password is wrong.")


def email_normalize(email: str) -> str:
    """Emails are compared and stored trimmed and lower-cased (D3)."""
    return email.strip().lower()


def admin_profile_ensure(*, user: User) -> Admin:
    """Give an ADMIN user its Admin record (idempotent)."""
    admin, _created = Admin.objects.get_or_create(user=user)
    return admin


def role_record_ensure(*, user: User) -> None:
    """Make sure the user has the role record of its type (Owner, Customer or Admin)."""
    model = {UserType.OWNER: Owner, UserType.CUSTOMER: Customer, UserType.ADMIN: Admin}
    model[user.user_type].objects.get_or_create(user=user)


def password_check(*, password: str, user: User | None = None) -> None:
    """Apply Django's password validators; their messages become one field error."""
    try:
        validate_password(password, user=user)
    except DjangoValidationError as error:
        raise ValidationFailed(" ".join(error.messages), field="password") from error


@transaction.atomic
def language_check(language: str) -> str:
    """A language of the platform (LANGUAGES) as it is; any other code is refused."""
    if language not in dict(settings.LANGUAGES):
        codes = ", ".join(code for code, _name in settings.LANGUAGES)
        raise ValidationFailed(
            gettext_lazy("Unknown language; choose one of: %(codes)s.") % {"codes": codes},
            field="language",
        )
    return language


def user_create(
    *,
    email: str,
    password: str | None,
    name: str | None = None,
    phone: str | None = None,
    user_type: str = UserType.CUSTOMER,
    language: str = settings.LANGUAGE_CODE,
) -> User:
    """Create a user together with the role record its type calls for."""
    is_admin = user_type == UserType.ADMIN
    user = User.objects.create_user(
        email=email_normalize(email),
        password=password,
        name=name,
        phone=phone,
        user_type=user_type,
        language=language_check(language),
        is_staff=is_admin,
        is_superuser=is_admin,
    )
    role_record_ensure(user=user)
    return user


def user_register(
    *,
    email: str,
    password: str,
    name: str | None = None,
    phone: str | None = None,
    user_type: str = UserType.CUSTOMER,
    language: str = settings.LANGUAGE_CODE,
) -> User:
    """Self-service sign-up as CUSTOMER or OWNER (ADMIN is refused, D6); `language` is the
    language of the user's emails, the sign-up's own by default (the callers')."""
    if user_type == UserType.ADMIN:
        raise PermissionRefused(
            gettext_lazy("Administrator accounts cannot be registered."), field="userType"
        )
    language = language_check(language)
    email = email_normalize(email)
    password_check(password=password, user=User(email=email, name=name))
    if User.objects.filter(email__iexact=email).exists():
        raise Conflict(EMAIL_TAKEN, field="email")
    try:
        with transaction.atomic():
            user = user_create(
                email=email,
                password=password,
                name=name,
                phone=phone,
                user_type=user_type,
                language=language,
            )
            email_confirmation_send(user=user)
            return user
    except IntegrityError as error:
        # Another registration with this email committed between the check and the insert.
        raise Conflict(EMAIL_TAKEN, field="email") from error


def user_authenticate(*, email: str, password: str) -> User:
    """The active user with these credentials; one error for unknown email and wrong password."""
    user = authenticate(None, email=email_normalize(email), password=password)
    if user is None:
        raise InvalidCredentials(INVALID_CREDENTIALS)
    return user


def access_token_issue(*, user: User) -> tuple[str, AccessToken]:
    """A new bearer token for the user; the clear token is returned once and never stored."""
    token = token_generate()
    lifetime = datetime.timedelta(seconds=settings.API_TOKEN_LIFETIME_SECONDS)
    access_token = AccessToken.objects.create(
        user=user, key_hash=token_hash(token), expires_at=timezone.now() + lifetime
    )
    return token, access_token


def access_token_revoke(*, access_token: AccessToken) -> None:
    """Revoke one token (log out of one client)."""
    AccessToken.objects.filter(pk=access_token.pk).delete()


def _keep_an_administrator(*, user: User) -> None:
    """Refuse to delete or demote the last active administrator: nobody could moderate,
    manage categories or make another administrator afterwards (only an administrator
    can). The administrators' rows are locked, so that two of them removing each other
    at once cannot both pass."""
    if user.user_type != UserType.ADMIN:
        return
    administrators = User.objects.select_for_update().filter(
        user_type=UserType.ADMIN, is_active=True
    )
    if not any(pk != user.pk for pk in administrators.values_list("pk", flat=True)):
        raise Conflict(LAST_ADMIN)


@transaction.atomic
def user_password_set(
    *, user: User, password: str | None, keep_token: AccessToken | None = None
) -> User:
    """Set a user's password and end the user's other credentials: the one place that does.

    Every bearer token of the user is revoked, except `keep_token`: the token a request was
    authenticated with when users change their own password through the API, so that the
    client making the change stays signed in. The user's sessions end by themselves, since
    Django's session auth hash follows the password; a page that keeps its own session
    signed in calls update_session_auth_hash after this.

    `password` None disables password sign-in (the admin's password page offers that). Who
    may set a password is the caller's rule (user_update's, the admin site's); Django's
    validators are applied here.
    """
    if password is None:
        user.set_unusable_password()
    else:
        password_check(password=password, user=user)
        user.set_password(password)
    user.save(update_fields=["password", "updated_at"])
    tokens = AccessToken.objects.filter(user=user)
    if keep_token is not None:
        tokens = tokens.exclude(pk=keep_token.pk)
    tokens.delete()
    return user


@transaction.atomic
def user_update(
    *,
    user: User,
    by: User,
    name: str | None = None,
    phone: str | None = None,
    image: str | None = None,
    password: str | None = None,
    current_password: str | None = None,
    email: str | None = None,
    user_type: str | None = None,
    language: str | None = None,
    fields: set[str],
    keep_token: AccessToken | None = None,
) -> User:
    """Change a user's profile (D7).

    `fields` names the attributes the caller sent (so None can clear a nullable value).
    The user may change name, phone, image and, with the current password, the password;
    email and userType are changed by admins only. A new password is set by
    user_password_set, which revokes the user's tokens but `keep_token`.
    """
    acting_admin = by.is_admin
    if not acting_admin and by.pk != user.pk:
        raise PermissionRefused(gettext_lazy("You may change only your own account."))
    confirm_new_email = False
    if "email" in fields and email is not None and email_normalize(email) != user.email:
        if not acting_admin:
            raise PermissionRefused(
                gettext_lazy("Only administrators change an email address."), field="email"
            )
        email = email_normalize(email)
        if User.objects.filter(email__iexact=email).exclude(pk=user.pk).exists():
            raise Conflict(EMAIL_TAKEN, field="email")
        user.email = email
        # A new address is confirmed again before alerts go to it.
        user.email_verified = None
        confirm_new_email = True
    if "user_type" in fields and user_type is not None and user_type != user.user_type:
        if not acting_admin:
            raise PermissionRefused(
                gettext_lazy("Only administrators change a user type."), field="userType"
            )
        _keep_an_administrator(user=user)
        user.user_type = user_type
        user.is_staff = user.is_superuser = user_type == UserType.ADMIN
    changes_password = "password" in fields and password is not None
    if changes_password:
        # An admin resetting someone else's password does not know theirs.
        resetting_other = acting_admin and by.pk != user.pk
        if not resetting_other and not (current_password and user.check_password(current_password)):
            raise ValidationFailed(
                gettext_lazy("The current password is wrong."), field="currentPassword"
            )
    if "language" in fields and language is not None:
        user.language = language_check(language)
    for attribute, value in (("name", name), ("phone", phone), ("image", image)):
        if attribute in fields:
            setattr(user, attribute, value)
    try:
        with transaction.atomic():
            user.save()
    except IntegrityError as error:
        raise Conflict(EMAIL_TAKEN, field="email") from error
    if changes_password:
        user_password_set(user=user, password=password, keep_token=keep_token)
    if confirm_new_email:
        email_confirmation_send(user=user)
    role_record_ensure(user=user)
    # A listing's detail shows its owner's name, email and phone.
    public_reads_changed()
    return user


@transaction.atomic
def user_delete(*, user: User, by: User) -> None:
    """Delete an account and everything that hangs on it (D14); self or an admin.

    An owner's listings go with it, and their media files once the deletion commits.
    """
    if not by.is_admin and by.pk != user.pk:
        raise PermissionRefused(gettext_lazy("You may delete only your own account."))
    _keep_an_administrator(user=user)
    # The file names are read (under the listings' locks) before the rows cascade away.
    files = media_files_for_deletion(properties=Property.objects.filter(owner__user=user))
    user.delete()
    public_reads_changed()
    media_files_delete_on_commit(files)


# --- Email confirmation -------------------------------------------------------------------

EMAIL_CONFIRMATION_SALT = "accounts.email-confirmation"
EMAIL_CONFIRMATION_INVALID = gettext_lazy(
    "This link has expired or is not valid: ask for a new one."
)


def email_confirmation_token(*, user: User) -> str:
    """A signed, timestamped token naming the user and the address to confirm: it stops
    working when the address changes, and after EMAIL_CONFIRMATION_MAX_AGE seconds."""
    return signing.dumps([user.pk, user.email], salt=EMAIL_CONFIRMATION_SALT, compress=True)


def email_confirmation_send(*, user: User) -> None:
    """Queue the email that asks the user to confirm their address (with the transaction
    of the change that calls for it: a sign-up, a new address)."""
    url = absolute_url("accounts:email-confirm", email_confirmation_token(user=user))
    email = email_compose(
        to=user.email,
        language=user.language,
        subject=gettext_lazy("Confirm your email address"),
        template="email_confirmation",
        context={"name": user.name or user.email, "confirm_url": url},
    )
    email_enqueue(email)


def user_email_confirm(*, token: str) -> User:
    """Mark the address a confirmation link names as confirmed (once: a second use changes
    nothing); an expired, altered or outdated link is ValidationFailed."""
    try:
        user_id, address = signing.loads(
            token, salt=EMAIL_CONFIRMATION_SALT, max_age=settings.EMAIL_CONFIRMATION_MAX_AGE
        )
    except (signing.BadSignature, ValueError, TypeError) as error:
        raise ValidationFailed(EMAIL_CONFIRMATION_INVALID) from error
    user = User.objects.filter(pk=user_id, email=address, is_active=True).first()
    if user is None:
        raise ValidationFailed(EMAIL_CONFIRMATION_INVALID)
    if user.email_verified is None:
        user.email_verified = timezone.now()
        user.save(update_fields=["email_verified", "updated_at"])
    return user
