""" "Forgot your password?": the same answer whether the address has an account or not, an
email with a one-time link sent by the worker through SMTP, a new password that ends the
user's API tokens, and the sign-in rate limits."""

import re

import pytest
from django.test import Client
from django_tasks_db.models import DBTaskResult

from accounts.models import AccessToken
from accounts.services import access_token_issue
from tests.support import PASSWORD
from tests.webhooks.support import run_ready_tasks

pytestmark = pytest.mark.django_db

FORGOTTEN_URL = "/en/accounts/password/forgotten/"
NEW_PASSWORD = "maple-window-77"


def reset_link(message) -> str:
    """The path of the reset link in an email's text part."""
    text = message.get_body(preferencelist=("plain",)).get_content()
    [url] = re.findall(r"https?://\S+/accounts/password/reset/\S+/", text)
    return url.split("testserver", 1)[1]


def test_a_customer_resets_their_password_from_the_emailed_link(smtp_server, customer):
    # given a token of the customer's API client
    access_token_issue(user=customer)
    client = Client()

    # when they ask for a link: no email leaves during the request
    asked = client.post(FORGOTTEN_URL, {"email": customer.email.upper()})
    assert smtp_server.messages == []
    run_ready_tasks()

    # then one email with a one-time link reached their address
    assert asked.status_code == 302
    assert asked["Location"] == "/en/accounts/password/forgotten/sent/"
    [message] = smtp_server.messages
    assert smtp_server.recipients == [[customer.email]]
    assert message["Subject"] == "Estate: Choose a new password"
    link = reset_link(message)

    # when they open it and choose a new password
    opened = client.get(link)
    form_url = opened["Location"]
    chosen = client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    # then the password is the new one, the API tokens are gone, the link is spent
    assert chosen.status_code == 302
    assert chosen["Location"] == "/en/accounts/password/reset/done/"
    customer.refresh_from_db()
    assert customer.check_password(NEW_PASSWORD)
    assert not AccessToken.objects.filter(user=customer).exists()
    again = Client().get(link, follow=True)
    assert "This link has expired or was already used." in again.text


def test_an_unknown_address_gets_the_same_answer_and_no_email(client, customer):
    # when
    response = client.post(FORGOTTEN_URL, {"email": "nobody@example.com"})

    # then
    assert response.status_code == 302
    assert response["Location"] == "/en/accounts/password/forgotten/sent/"
    assert DBTaskResult.objects.count() == 0
    customer.refresh_from_db()
    assert customer.check_password(PASSWORD)


def test_asking_counts_against_the_sign_in_limits(client, customer, throttle_rates):
    # given
    throttle_rates(login="2/min")
    for _ in range(2):
        assert client.post(FORGOTTEN_URL, {"email": customer.email}).status_code == 302

    # when
    response = client.post(FORGOTTEN_URL, {"email": customer.email})

    # then
    assert response.status_code == 429
    assert int(response["Retry-After"]) >= 1
    assert DBTaskResult.objects.count() == 2


def test_the_log_in_page_offers_the_reset(client):
    # when
    page = client.get("/en/accounts/login/").text

    # then
    assert f'href="{FORGOTTEN_URL}"' in page
