"""Writes on notifications and webhooks: the API, the admin and the platform call these."""

from collections.abc import Iterable, Mapping

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.utils import translation
from django.utils.translation import gettext, gettext_lazy, ngettext

from accounts.models import User, UserType
from accounts.selectors import user_id_named
from config.errors import Conflict, PermissionRefused, ValidationFailed
from listings.models import Property
from listings.search import PARAMETERS, SearchParamsInvalid, search_params, search_query
from listings.search.params import Refusal
from notifications.email import absolute_url, email_compose
from notifications.events import NewEvent, events_record
from notifications.matching import saved_search_columns
from notifications.models import (
    ALL_EVENTS,
    AlertFrequency,
    EmailPreferences,
    EmailTopic,
    EventType,
    Notification,
    NotificationStatus,
    SavedSearch,
    WebhookEndpoint,
)
from notifications.representations import notification_representations
from notifications.selectors import email_recipients
from notifications.signing import secret_generate, secret_is_valid
from notifications.targets import TargetRefused, target_check
from notifications.tasks import email_enqueue


def _is_recipient_or_admin(*, notification: Notification, by: User) -> bool:
    return by.is_authenticated and (by.pk == notification.user_id or by.is_admin)


def _require_recipient(*, notification: Notification, by: User) -> None:
    if not _is_recipient_or_admin(notification=notification, by=by):
        raise PermissionRefused(gettext_lazy("Only the recipient may change this notification."))


def _created_events(notifications: list[Notification]) -> list[NewEvent]:
    """notification.created of each notification, for its recipient's webhooks alone.

    The listing's owner is not in the audience: a notification to a customer (a price drop,
    a visit) is the customer's, and its payload names them.
    """
    payloads = notification_representations(notifications)
    return [
        NewEvent(
            type=EventType.NOTIFICATION_CREATED,
            payload=payload,
            listing_id=notification.property_id,
            participant_id=notification.user_id,
        )
        for notification, payload in zip(notifications, payloads, strict=True)
    ]


def _texts_in(language: str, title: str, message: str) -> dict[str, str]:
    """A notification's title and message written in `language` (the site's when empty):
    lazy texts are translated, plain ones stay as they are."""
    with translation.override(language or settings.LANGUAGE_CODE):
        return {"title": str(title), "message": str(message)}


@transaction.atomic
def notification_send(
    *,
    user: User,
    property: Property,
    title: str,
    message: str,
    status: str = NotificationStatus.SUCCESS,
    emit_event: bool = True,
) -> Notification:
    """Send one unread notification about a listing to a user, with its notification.created.

    The title and message are stored in the user's language (a lazy text is translated:
    the platform's own notifications; an admin's typed text stays as typed).

    Who may send is the caller's check: the API lets admins send, and the platform sends
    its own (D7, D12). `emit_event=False` is for notices about webhooks themselves.
    """
    notification = Notification.objects.create(
        user=user, property=property, status=status, **_texts_in(user.language, title, message)
    )
    if emit_event:
        events_record(_created_events([notification]))
    return notification


@transaction.atomic
def notification_send_bulk(
    *,
    users: Iterable[User],
    property: Property,
    title: str,
    message: str,
    status: str = NotificationStatus.SUCCESS,
) -> list[Notification]:
    """Send the same notification to several users with one bulk insert, in one transaction,
    each in the user's language (as notification_send).

    A user named twice gets one notification; the result follows the order of first mention.
    Their notification.created events are written with one more insert.
    """
    recipients = list({user.pk: user for user in users}.values())
    texts = {
        language: _texts_in(language, title, message)
        for language in {user.language for user in recipients}
    }
    notifications = [
        Notification(user=user, property=property, status=status, **texts[user.language])
        for user in recipients
    ]
    notifications = Notification.objects.bulk_create(notifications)
    events_record(_created_events(notifications))
    return notifications


def notification_mark_read(
    *, notification: Notification, by: User, read: bool = True
) -> Notification:
    """Set the read flag (true or false) of a notification; the recipient and admins may."""
    _require_recipient(notification=notification, by=by)
    if notification.read != read:
        notification.read = read
        notification.save(update_fields=["read"])
    return notification


MARK_ONLY_YOUR_OWN = gettext_lazy("You may mark only your own notifications.")


def notification_mark_all_read(*, user: User, by: User) -> int:
    """Mark every unread notification of the user read, in one UPDATE; returns how many changed.

    The user themselves and admins may (D7).
    """
    user_id_named(viewer=by, user_id=user.pk, refusal=MARK_ONLY_YOUR_OWN)
    return Notification.objects.filter(user=user, read=False).update(read=True)


def notification_delete(*, notification: Notification, by: User) -> None:
    """Delete a notification; the recipient and admins may."""
    _require_recipient(notification=notification, by=by)
    notification.delete()


# --- Webhooks (decisions D7, D12) -----------------------------------------------------------

# A secret the registrant chooses: long enough not to be guessed, short enough to store.
SECRET_MIN_LENGTH = 16
SECRET_MAX_LENGTH = 200


def webhook_events_check(events: list[str]) -> list[str]:
    """The subscribed event names, repeats dropped; an unknown name is 400 on `events`."""
    if not events:
        raise ValidationFailed(
            gettext_lazy('Name at least one event, or "*" for all.'), field="events"
        )
    unknown = [name for name in events if name != ALL_EVENTS and name not in EventType.values]
    if unknown:
        raise ValidationFailed(
            gettext('Unknown events: %(unknown)s. Known events: %(known)s, or "*" for all.')
            % {"unknown": ", ".join(dict.fromkeys(unknown)), "known": ", ".join(EventType.values)},
            field="events",
        )
    return list(dict.fromkeys(events))


def webhook_register(
    *, by: User, url: str, events: list[str], secret: str | None = None
) -> WebhookEndpoint:
    """Register a URL for signed event deliveries; OWNER users and admins may (D7).

    The URL must be https and resolve only to public addresses (400 on `url`, see
    notifications.targets). A user has at most WEBHOOKS_MAX_PER_USER webhooks, active or
    not (409 past that: an admin may turn a disabled one back on). Without a secret the
    server makes one (`whsec_` + base64 of 32 random bytes). The returned endpoint carries
    the secret: the registration answer is the only place it is ever shown.
    """
    if not (by.is_authenticated and by.user_type in (UserType.OWNER, UserType.ADMIN)):
        raise PermissionRefused(gettext_lazy("Only owners and administrators register webhooks."))
    events = webhook_events_check(events)
    try:
        target_check(url)
    except TargetRefused as error:
        raise ValidationFailed(str(error), field="url") from error
    if secret is None:
        secret = secret_generate()
    elif not SECRET_MIN_LENGTH <= len(secret) <= SECRET_MAX_LENGTH:
        raise ValidationFailed(
            gettext("A secret has %(min)d to %(max)d characters.")
            % {"min": SECRET_MIN_LENGTH, "max": SECRET_MAX_LENGTH},
            field="secret",
        )
    elif not secret_is_valid(secret):
        raise ValidationFailed(gettext_lazy("What follows whsec_ must be base64."), field="secret")
    limit = settings.WEBHOOKS_MAX_PER_USER
    with transaction.atomic():
        # One registration of a user at a time, so that racing ones cannot pass the limit.
        # FOR NO KEY UPDATE: see listings.services._lock.
        User.objects.select_for_update(no_key=True).get(pk=by.pk)
        if WebhookEndpoint.objects.filter(user=by).count() >= limit:
            raise Conflict(
                ngettext(
                    "A user may have at most %(limit)d webhook; delete it to register another.",
                    "A user may have at most %(limit)d webhooks; delete one to register another.",
                    limit,
                )
                % {"limit": limit}
            )
        return WebhookEndpoint.objects.create(user=by, url=url, events=events, secret=secret)


def webhook_delete(*, endpoint: WebhookEndpoint, by: User) -> None:
    """Delete a webhook endpoint and its deliveries; the registrant and admins may."""
    if not (by.is_authenticated and (by.pk == endpoint.user_id or by.is_admin)):
        raise PermissionRefused(gettext_lazy("Only the registrant may delete this webhook."))
    endpoint.delete()


# --- Saved searches (alerts) ----------------------------------------------------------------

SAVED_SEARCH_NAME_MAX_LENGTH = 100
# Search parameters a saved search does not keep: the order its alerts come in is theirs.
UNSAVED_PARAMETERS = ("sort",)
CHANGE_ONLY_YOUR_OWN = gettext_lazy("You may change only your own saved searches.")


def saved_search_criteria(criteria: object) -> dict[str, str]:
    """A saved search's criteria as GET /properties reads them, cleaned by the same search
    parameters (listings.search.params), `sort` and paging aside.

    Each value is a string or a number, never empty; the answer holds the parameters in
    their canonical form (search_query). An unknown or refused parameter raises
    SearchParamsInvalid naming each; criteria that filter nothing raise ValidationFailed
    on `criteria`: such a search would alert of every listing.
    """
    if not isinstance(criteria, Mapping):
        raise ValidationFailed(
            gettext_lazy("criteria is an object of GET /properties' query parameters."),
            field="criteria",
        )
    errors: dict[str, list[Refusal]] = {}
    query: dict[str, str] = {}
    for name, value in criteria.items():
        if name not in PARAMETERS or name in UNSAVED_PARAMETERS:
            saved = ", ".join(name for name in PARAMETERS if name not in UNSAVED_PARAMETERS)
            message = gettext(
                "Not a search parameter a saved search keeps; those are: %(saved)s."
            ) % {"saved": saved}
            errors[str(name)] = [Refusal(message, "invalid")]
        elif isinstance(value, bool) or not isinstance(value, str | int | float):
            errors[name] = [Refusal(gettext("The value is a string or a number."), "invalid")]
        elif isinstance(value, str) and not value.strip():
            errors[name] = [
                Refusal(gettext("An empty value filters nothing: leave it out."), "blank")
            ]
        else:
            query[name] = str(value)
    try:
        params = search_params(query)
    except SearchParamsInvalid as invalid:
        errors.update(invalid.errors)
    if errors:
        raise SearchParamsInvalid(errors)
    cleaned = search_query(params)
    if not cleaned:
        raise ValidationFailed(
            gettext_lazy("A saved search has at least one criterion."), field="criteria"
        )
    return cleaned


def _saved_search_name(name: str) -> str:
    name = name.strip()
    if not 1 <= len(name) <= SAVED_SEARCH_NAME_MAX_LENGTH:
        raise ValidationFailed(
            gettext("A name has 1 to %(max)d characters.") % {"max": SAVED_SEARCH_NAME_MAX_LENGTH},
            field="name",
        )
    return name


def _saved_search_frequency(frequency: str) -> str:
    if frequency not in AlertFrequency.values:
        raise ValidationFailed(
            gettext("The frequency is one of %(frequencies)s.")
            % {"frequencies": ", ".join(AlertFrequency.values)},
            field="frequency",
        )
    return frequency


def _require_saved_search_user(*, saved_search: SavedSearch, by: User) -> None:
    """Only a saved search's user changes it: administrators read saved searches only."""
    if not (by.is_authenticated and by.pk == saved_search.user_id):
        raise PermissionRefused(CHANGE_ONLY_YOUR_OWN)


@transaction.atomic
def saved_search_create(
    *,
    by: User,
    name: str,
    criteria: object,
    frequency: str = AlertFrequency.DAILY,
) -> SavedSearch:
    """Save a search of the signed-in user `by`, to be alerted of its new matches.

    Criteria as saved_search_criteria cleans them (400 naming each refused parameter); a
    user keeps at most SAVED_SEARCHES_MAX_PER_USER searches (409 past that).
    """
    if not by.is_authenticated:
        raise PermissionRefused(gettext_lazy("Sign in to save a search."))
    name = _saved_search_name(name)
    criteria = saved_search_criteria(criteria)
    frequency = _saved_search_frequency(frequency)
    limit = settings.SAVED_SEARCHES_MAX_PER_USER
    # One save of a user at a time, so that racing ones cannot pass the limit.
    # FOR NO KEY UPDATE: see listings.services._lock.
    User.objects.select_for_update(no_key=True).get(pk=by.pk)
    if SavedSearch.objects.filter(user=by).count() >= limit:
        raise Conflict(
            ngettext(
                "A user may save at most %(limit)d search; delete it to save another.",
                "A user may save at most %(limit)d searches; delete one to save another.",
                limit,
            )
            % {"limit": limit}
        )
    return SavedSearch.objects.create(
        user=by,
        name=name,
        criteria=criteria,
        frequency=frequency,
        **saved_search_columns(search_params(criteria)),
    )


def saved_search_update(
    *,
    saved_search: SavedSearch,
    by: User,
    name: str | None = None,
    criteria: object = None,
    frequency: str | None = None,
) -> SavedSearch:
    """Rename a saved search, change its criteria or its frequency; only its user may.

    Values that differ count as a change: a change of nothing leaves updatedAt alone.
    """
    _require_saved_search_user(saved_search=saved_search, by=by)
    changes = {}
    if name is not None:
        changes["name"] = _saved_search_name(name)
    if criteria is not None:
        changes["criteria"] = saved_search_criteria(criteria)
    if frequency is not None:
        changes["frequency"] = _saved_search_frequency(frequency)
    changed = [field for field, value in changes.items() if getattr(saved_search, field) != value]
    if not changed:
        return saved_search
    for field in changed:
        setattr(saved_search, field, changes[field])
    columns = []
    if "criteria" in changed:
        for column, value in saved_search_columns(search_params(saved_search.criteria)).items():
            setattr(saved_search, column, value)
            columns.append(column)
    saved_search.save(update_fields=[*changed, *columns, "updated_at"])
    return saved_search


def saved_search_delete(*, saved_search: SavedSearch, by: User) -> None:
    """Delete a saved search; only its user may."""
    _require_saved_search_user(saved_search=saved_search, by=by)
    saved_search.delete()


# --- Email preferences and unsubscribing (docs/email.md) -----------------------------------

UNSUBSCRIBE_SALT = "notifications.unsubscribe"
UNSUBSCRIBE_INVALID = gettext_lazy("This unsubscribe link is not valid.")


def email_preferences_update(
    *, user: User, by: User, changes: Mapping[str, object]
) -> EmailPreferences:
    """Switch the user's emails of some topics on (true) or off (false); only the user.

    `changes` maps EmailTopic values to booleans; anything else is ValidationFailed on its
    key.
    """
    if not (by.is_authenticated and by.pk == user.pk):
        raise PermissionRefused(gettext_lazy("You may change only your own email preferences."))
    for topic, wanted in changes.items():
        if topic not in EmailTopic.values:
            raise ValidationFailed(
                gettext("Not an email topic; those are: %(topics)s.")
                % {"topics": ", ".join(EmailTopic.values)},
                field=topic,
            )
        if not isinstance(wanted, bool):
            raise ValidationFailed(gettext_lazy("true or false."), field=topic)
    preferences, _created = EmailPreferences.objects.update_or_create(
        user=user, defaults=dict(changes)
    )
    return preferences


def email_unsubscribe_url(*, user: User, topic: str) -> str:
    """The one-click link that stops the user's emails of `topic` (RFC 8058): a signed token
    of the user and the topic, which does not expire. Its page speaks the user's language."""
    token = signing.dumps([user.pk, topic], salt=UNSUBSCRIBE_SALT, compress=True)
    with translation.override(user.language):
        return str(absolute_url("notifications:unsubscribe", token))


def email_unsubscribe_topic(*, token: str) -> tuple[User, str]:
    """The user and topic an unsubscribe link names, or ValidationFailed."""
    try:
        user_id, topic = signing.loads(token, salt=UNSUBSCRIBE_SALT)
    except (signing.BadSignature, ValueError, TypeError) as error:
        raise ValidationFailed(UNSUBSCRIBE_INVALID) from error
    user = User.objects.filter(pk=user_id).first()
    if user is None or topic not in EmailTopic.values:
        raise ValidationFailed(UNSUBSCRIBE_INVALID)
    return user, topic


def email_unsubscribe(*, token: str) -> tuple[User, str]:
    """Stop the emails an unsubscribe link names (idempotent); returns the user and topic."""
    user, topic = email_unsubscribe_topic(token=token)
    email_preferences_update(user=user, by=user, changes={topic: False})
    return user, topic


def topic_email_enqueue(
    *, user: User, topic: str, subject: str, template: str, context: dict
) -> None:
    """Queue an email of `topic` (EmailTopic) to a user whom email_recipients chose, with
    the caller's transaction: the topic's one-click unsubscribe link and the user's name as
    `name` in its template's context."""
    email = email_compose(
        to=user.email,
        language=user.language,
        subject=subject,
        template=template,
        context={"name": user.name or user.email, **context},
        unsubscribe_url=email_unsubscribe_url(user=user, topic=topic),
    )
    email_enqueue(email)


def users_email_send(
    *, users: Iterable[User], topic: str, subject: str, template: str, context: dict
) -> int:
    """Queue the same email of `topic` to each of `users` who may get it, with the caller's
    transaction: their address is confirmed and the topic is on (email_recipients, one
    query). Returns how many were queued."""
    recipients = email_recipients(users=users, topic=topic)
    for user in recipients:
        topic_email_enqueue(
            user=user, topic=topic, subject=subject, template=template, context=context
        )
    return len(recipients)


def user_email_send(*, user: User, topic: str, subject: str, template: str, context: dict) -> bool:
    """Queue an email of `topic` to the user when they may get it (users_email_send);
    returns whether it was queued."""
    queued = users_email_send(
        users=[user], topic=topic, subject=subject, template=template, context=context
    )
    return queued == 1
