"""Email preferences: GET and PATCH /notifications/email-preferences, the website's page,
and the one-click unsubscribe links of emails (RFC 8058)."""

from urllib.parse import urlsplit

import pytest
from django.test import Client

from notifications.models import EmailPreferences
from notifications.services import email_unsubscribe_url
from tests.api.support import assert_problem
from tests.site.conftest import signed_in

pytestmark = pytest.mark.django_db

PREFERENCES_URL = "/api/v1/notifications/email-preferences"
EVERYTHING = {"alerts": True, "visits": True, "listings": True, "emailConfirmed": False}


def unsubscribe_path(user, topic: str) -> str:
    """The path of the user's unsubscribe link of a topic, as an email carries it."""
    return urlsplit(email_unsubscribe_url(user=user, topic=topic)).path


def stored(user) -> tuple | None:
    return (
        EmailPreferences.objects.filter(user=user)
        .values_list("alerts", "visits", "listings")
        .first()
    )


def test_a_user_who_never_chose_gets_every_topic(customer_client, customer):
    # when
    response = customer_client.get(PREFERENCES_URL)

    # then
    assert response.status_code == 200
    assert response.json() == EVERYTHING
    assert stored(customer) is None


@pytest.mark.parametrize("path_end", ["", "/"])
def test_a_user_switches_a_topic_off_and_on(customer_client, customer, path_end):
    # when
    off = customer_client.patch(f"{PREFERENCES_URL}{path_end}", {"alerts": False}, format="json")
    on = customer_client.patch(PREFERENCES_URL, {"alerts": True, "visits": False}, format="json")

    # then
    assert off.status_code == 200
    assert off.json() == {**EVERYTHING, "alerts": False}
    assert on.json() == {**EVERYTHING, "visits": False}
    assert stored(customer) == (True, False, True)


@pytest.mark.parametrize("body", [{"alerts": "false"}, {"alerts": 0}, {"visits": None}])
def test_only_true_or_false_is_taken(customer_client, customer, body):
    # when
    response = customer_client.patch(PREFERENCES_URL, body, format="json")

    # then
    assert_problem(response, 400, "validation_error", errors=response.json()["errors"])
    assert stored(customer) is None


def test_email_preferences_need_a_signed_in_user(anonymous_client):
    # when
    response = anonymous_client.get(PREFERENCES_URL)

    # then
    assert_problem(response, 401, "not_authenticated")


def test_the_website_page_saves_the_ticked_topics(customer):
    # given
    session = signed_in(customer)

    # when
    page = session.get("/en/me/email/").text
    saved = session.post("/en/me/email/", {"visits": "on"})

    # then
    assert 'name="alerts"' in page and "checked" in page
    assert saved.status_code == 302
    assert stored(customer) == (False, True, False)


def test_the_unsubscribe_link_asks_then_stops_its_topic(customer):
    # given
    path = unsubscribe_path(customer, "alerts")
    client = Client(enforce_csrf_checks=True)

    # when
    asked = client.get(path)
    untouched = stored(customer)
    done = client.post(path)

    # then
    assert asked.status_code == 200
    assert "Stop the emails about" in asked.text
    assert untouched is None
    assert done.status_code == 200
    assert 'data-testid="unsubscribed"' in done.text
    assert stored(customer) == (False, True, True)


def test_a_mail_providers_one_click_post_unsubscribes_without_cookies(customer):
    # given
    path = unsubscribe_path(customer, "visits")

    # when, as RFC 8058 says a provider posts
    response = Client(enforce_csrf_checks=True).post(
        path,
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )

    # then
    assert response.status_code == 200
    assert stored(customer) == (True, False, True)


def test_an_altered_unsubscribe_link_is_refused(customer):
    # given
    path = unsubscribe_path(customer, "alerts")
    altered = path[:-3] + ("x/" if not path.endswith("x/") else "y/")

    # when
    response = Client().post(altered)

    # then
    assert response.status_code == 400
    assert "This unsubscribe link is not valid." in response.text
    assert stored(customer) is None
