"""Confirming an email address: a signed link emailed (by the worker) on sign-up and when
the address changes, which marks the address confirmed; a profile asks for it again."""

import re
from urllib.parse import urlsplit

import pytest
from django.contrib.messages import get_messages
from django.test import Client
from django_tasks_db.models import DBTaskResult

from accounts.models import User
from accounts.services import email_confirmation_token, user_update
from tests.webhooks.support import run_ready_tasks

pytestmark = pytest.mark.django_db


def confirmation_link(message) -> str:
    text = message.get_body(preferencelist=("plain",)).get_content()
    [url] = re.findall(r"https?://\S+/accounts/email/confirm/\S+/", text)
    return urlsplit(url).path


def queued_emails() -> list[dict]:
    """The emails waiting for the worker."""
    return [
        task.args_kwargs["args"][0]
        for task in DBTaskResult.objects.filter(task_path="notifications.tasks.email_send")
    ]


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_a_new_account_confirms_its_address_from_the_emailed_link(smtp_server):
    # given someone signs up on the website
    client = Client()
    client.post(
        "/en/accounts/register/",
        {
            "name": "Nina New",
            "email": "nina@example.com",
            "phone": "",
            "user_type": "CUSTOMER",
            "password": "tulip-garden-42",
            "password_again": "tulip-garden-42",
        },
    )
    user = User.objects.get(email="nina@example.com")
    assert user.email_verified is None

    # when the worker sends the confirmation and they open its link, twice
    run_ready_tasks()
    [message] = smtp_server.messages
    link = confirmation_link(message)
    first = client.get(link)
    user.refresh_from_db()
    confirmed_at = user.email_verified
    second = client.get(link)

    # then the address is confirmed once
    assert message["Subject"] == "Estate: Confirm your email address"
    assert smtp_server.recipients == [["nina@example.com"]]
    assert (first.status_code, first["Location"]) == (302, "/en/accounts/profile/")
    assert messages_of(first) == ["Welcome, Nina New.", "Your email address is confirmed."]
    assert confirmed_at is not None
    assert second.status_code == 302
    user.refresh_from_db()
    assert user.email_verified == confirmed_at


def test_registering_through_the_api_queues_the_confirmation(anonymous_client):
    # when
    response = anonymous_client.post(
        "/api/v1/users/register",
        {"name": "Api User", "email": "API@example.com", "password": "tulip-garden-42"},
        format="json",
    )

    # then
    assert response.status_code == 201, response.content
    [email] = queued_emails()
    assert email["to"] == "api@example.com"
    assert "/en/accounts/email/confirm/" in email["text"]


@pytest.mark.parametrize("how", ["altered", "expired", "outdated"])
def test_a_bad_link_confirms_nothing_and_says_so(client, customer, settings, how):
    # given
    token = email_confirmation_token(user=customer)
    if how == "altered":
        token = token[:-2] + ("aa" if not token.endswith("aa") else "bb")
    elif how == "expired":
        settings.EMAIL_CONFIRMATION_MAX_AGE = -1
    else:
        User.objects.filter(pk=customer.pk).update(email="new-address@example.com")

    # when
    response = client.get(f"/en/accounts/email/confirm/{token}/")

    # then
    assert (response.status_code, response["Location"]) == (302, "/en/accounts/login/")
    assert messages_of(response) == ["This link has expired or is not valid: ask for a new one."]
    customer.refresh_from_db()
    assert customer.email_verified is None


def test_a_changed_address_must_be_confirmed_again(admin, customer):
    # given a confirmed customer
    User.objects.filter(pk=customer.pk).update(email_verified="2026-01-01T00:00:00Z")
    customer.refresh_from_db()

    # when an administrator changes the address
    user_update(user=customer, by=admin, fields={"email"}, email="Carla.New@example.com")

    # then it is not confirmed, and a link goes to the new address
    customer.refresh_from_db()
    assert customer.email_verified is None
    assert [email["to"] for email in queued_emails()] == ["carla.new@example.com"]


def test_the_profile_sends_the_link_again_until_confirmed(customer_session, customer):
    # when the address is not confirmed
    page = customer_session.get("/en/accounts/profile/").text
    sent = customer_session.post("/en/accounts/email/confirmation/")

    # then the link is offered and sent
    assert "Send the confirmation link again" in page
    assert sent.status_code == 302
    assert [email["to"] for email in queued_emails()] == [customer.email]

    # when it is confirmed
    User.objects.filter(pk=customer.pk).update(email_verified="2026-01-01T00:00:00Z")
    confirmed_page = customer_session.get("/en/accounts/profile/").text

    # then nothing is offered, and asking sends nothing
    assert "Send the confirmation link again" not in confirmed_page
    assert "(confirmed)" in confirmed_page
    customer_session.post("/en/accounts/email/confirmation/")
    assert len(queued_emails()) == 1
