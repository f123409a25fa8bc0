"""Email to users: composed from templates into a text and an HTML part, and sent by the
worker (notifications.tasks.email_send), never inside a request (docs/email.md).

    email = email_compose(to=user.email, language=user.language, subject=_("..."),
                          template="alert", context={...}, unsubscribe_url=...)
    email_enqueue(email)   # in the transaction of the change that caused it

A composed email is a plain dict of strings (Email), so that it travels as a task's
argument. Each message names the platform, and a message that may be unsubscribed from
carries a one-click unsubscribe (RFC 8058: List-Unsubscribe and List-Unsubscribe-Post) and
the link to the user's email preferences in its body.
"""

import datetime
import logging
import smtplib
from email.utils import make_msgid
from typing import NotRequired, TypedDict
from urllib.parse import urlsplit

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.functional import lazy

logger = logging.getLogger("notifications.email")


class Email(TypedDict):
    """An email ready to send: who to, its subject, its two parts, its unsubscribe URL."""

    to: str
    subject: str
    text: str
    html: str
    # Empty for a message that cannot be unsubscribed from (a password reset).
    unsubscribe_url: str
    # Made once when composed, so that every attempt (a retry, a task given back after its
    # worker died) sends the same Message-ID, by which mail systems drop a duplicate.
    message_id: NotRequired[str]


def _absolute_url(view_name: str, *args: str) -> str:
    return f"{settings.SITE_URL}{reverse(view_name, args=args)}"


# The address of a page of the website, starting with SITE_URL (emails have no request to
# take the host from). Lazy: it is reversed when an email is rendered, under its recipient's
# language (email_compose), so that its links carry the recipient's /en/ or /es/ prefix.
absolute_url = lazy(_absolute_url, str)


def email_compose(
    *,
    to: str,
    language: str | None = None,
    subject: str,
    template: str,
    context: dict,
    unsubscribe_url: str = "",
) -> Email:
    """Render templates/email/<template>.txt and .html with `context`, the platform's name
    and the unsubscribe and preferences links; the subject is prefixed with the name.

    Everything is rendered in `language` (the recipient's, one of LANGUAGES; LANGUAGE_CODE
    when not given): the texts of the templates, a lazily translated subject, and the lazy
    links of absolute_url.

    The subject's runs of whitespace become single spaces: it is one header line, and a
    line break in what it quotes (a listing's title) would make the message unsendable.
    """
    with translation.override(language or settings.LANGUAGE_CODE):
        unsubscribe_url = str(unsubscribe_url)
        context = {
            **context,
            "platform_name": settings.PLATFORM_NAME,
            "site_url": settings.SITE_URL,
            "unsubscribe_url": unsubscribe_url,
            "preferences_url": str(absolute_url("notifications:email-preferences")),
        }
        return Email(
            to=to,
            subject=" ".join(f"{settings.PLATFORM_NAME}: {subject}".split()),
            text=render_to_string(f"email/{template}.txt", context),
            html=render_to_string(f"email/{template}.html", context),
            unsubscribe_url=unsubscribe_url,
            message_id=make_msgid(domain=urlsplit(settings.SITE_URL).hostname or "localhost"),
        )


def email_message(email: Email) -> EmailMultiAlternatives:
    """The message Django's email framework sends: text first, HTML as its alternative."""
    headers = {}
    if email.get("message_id"):
        headers["Message-ID"] = email["message_id"]
    if email["unsubscribe_url"]:
        headers["List-Unsubscribe"] = f"<{email['unsubscribe_url']}>"
        headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    message = EmailMultiAlternatives(
        subject=email["subject"],
        body=email["text"],
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[email["to"]],
        headers=headers,
    )
    message.attach_alternative(email["html"], "text/html")
    return message


def email_deliver(email: Email, *, attempt: int) -> bool:
    """Send one email through the configured backend; False when this attempt failed.

    A failure is logged with the attempt's number and the error's kind, never the server's
    credentials or the message.
    """
    try:
        email_message(email).send()
    except (smtplib.SMTPException, OSError) as error:
        logger.warning(
            "email %r could not be sent (attempt %s): %s",
            email["subject"],
            attempt,
            type(error).__name__,
        )
        return False
    return True


def email_retry_after(email: Email, *, attempt: int) -> datetime.datetime | None:
    """When to try again an email whose attempt `attempt` failed (EMAIL_RETRY_SCHEDULE), or
    None, logged as an error, when that was the last one."""
    schedule = settings.EMAIL_RETRY_SCHEDULE
    if attempt > len(schedule):
        logger.error("email %r given up after %s attempts", email["subject"], attempt)
        return None
    return timezone.now() + datetime.timedelta(seconds=schedule[attempt - 1])
