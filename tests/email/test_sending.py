"""Email through a real SMTP server: composed with both parts, the platform's name and the
one-click unsubscribe headers; sent by the worker, retried with backoff, logged."""

import datetime

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from notifications.email import email_compose
from notifications.tasks import email_enqueue, email_send
from tests.fixtures import smtp_mailers
from tests.webhooks.support import run_ready_tasks

pytestmark = pytest.mark.django_db

UNSUBSCRIBE = "https://estate.example/unsubscribe/abc"


def a_reset_email(**extra) -> dict:
    return email_compose(
        to="ana@example.com",
        subject="Choose a new password",
        template="password_reset",
        context={"name": "Ana", "reset_url": "https://estate.example/reset/xyz/"},
        **extra,
    )


def test_the_worker_sends_both_parts_with_the_unsubscribe_headers(smtp_server, settings):
    # given an email queued as a change would queue it
    settings.PLATFORM_NAME = "Estate"
    settings.DEFAULT_FROM_EMAIL = "Estate <no-reply@estate.example>"
    email_enqueue(a_reset_email(unsubscribe_url=UNSUBSCRIBE))
    assert smtp_server.messages == []

    # when the worker runs
    run_ready_tasks()

    # then one message reached the server, to its address, with a text and an HTML part
    [message] = smtp_server.messages
    assert smtp_server.recipients == [["ana@example.com"]]
    assert message["Subject"] == "Estate: Choose a new password"
    assert message["From"] == "Estate <no-reply@estate.example>"
    assert message["To"] == "ana@example.com"
    assert message["List-Unsubscribe"] == f"<{UNSUBSCRIBE}>"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert message.get_content_type() == "multipart/alternative"
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    assert "Hello Ana," in text and "https://estate.example/reset/xyz/" in text
    assert f"Stop these emails: {UNSUBSCRIBE}" in text
    assert f"Your email preferences: {settings.SITE_URL}/en/me/email/" in text
    assert 'href="https://estate.example/reset/xyz/"' in html and "Estate" in html
    assert f'href="{UNSUBSCRIBE}"' in html


def test_an_email_without_unsubscribe_carries_no_such_header(smtp_server):
    # when
    assert email_send.call(a_reset_email()) == "sent"

    # then
    [message] = smtp_server.messages
    assert message["List-Unsubscribe"] is None
    assert "Stop these emails" not in message.get_body(preferencelist=("plain",)).get_content()


def test_a_failed_send_is_tried_again_later_and_logged(settings, caplog):
    # given an SMTP server that refuses connections, with credentials
    settings.MAILERS = smtp_mailers(9, username="mailer", password="s3cret-password")
    settings.EMAIL_RETRY_SCHEDULE = [60, 300]
    before = timezone.now()

    # when
    outcome = email_send.call(a_reset_email(), 1)

    # then the next attempt is queued a minute later, and the failure is logged without
    # the server's credentials
    assert outcome == "retrying"
    [retry] = DBTaskResult.objects.all()
    assert retry.task_path == "notifications.tasks.email_send"
    assert retry.args_kwargs["args"][1] == 2
    assert before + datetime.timedelta(seconds=59) < retry.run_after
    assert retry.run_after < timezone.now() + datetime.timedelta(seconds=61)
    assert "could not be sent (attempt 1)" in caplog.text
    assert "s3cret" not in caplog.text and "mailer" not in caplog.text


def test_the_last_failure_gives_up_and_logs_an_error(settings, caplog):
    # given
    settings.MAILERS = smtp_mailers(9)
    settings.EMAIL_RETRY_SCHEDULE = [60, 300]

    # when the third attempt fails
    outcome = email_send.call(a_reset_email(), 3)

    # then
    assert outcome == "failed"
    assert DBTaskResult.objects.count() == 0
    assert "given up after 3 attempts" in caplog.text


def test_a_subject_quoting_a_line_break_is_sent_on_one_line(smtp_server):
    # given a subject that quotes a title with a line break, as a listing's may have
    email_enqueue(
        email_compose(
            to="ana@example.com",
            subject="Listing approved: Loft\r\nwith  terrace",
            template="password_reset",
            context={"name": "Ana", "reset_url": "https://estate.example/reset/xyz/"},
        )
    )

    # when the worker runs
    run_ready_tasks()

    # then the message is sent, its subject on one line
    [message] = smtp_server.messages
    assert message["Subject"] == "Estate: Listing approved: Loft with terrace"


def test_every_attempt_of_an_email_sends_the_message_id_it_was_composed_with(smtp_server):
    # given one composed email, sent twice (a retry, or a task given back after its worker
    # died after sending)
    email = a_reset_email()

    # when
    assert email_send.call(email) == "sent"
    assert email_send.call(email) == "sent"

    # then both copies carry the same Message-ID, of the site's host, by which a mail
    # system drops the second; another email has another
    first, second = smtp_server.messages
    assert first["Message-ID"] == email["message_id"] == second["Message-ID"]
    assert email["message_id"].endswith("@127.0.0.1>")
    assert a_reset_email()["message_id"] != email["message_id"]
