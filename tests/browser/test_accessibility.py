"""axe-core on every page of the website, signed out and signed in as a customer and an
owner: no violation of any rule axe runs by default (WCAG 2.x A and AA, best practices).

axe-core is the npm package of package.json (node_modules/, installed by `make test`), put
into each page by Playwright; the contexts bypass the Content-Security-Policy for that
script only, the pages' own scripts run under it as everywhere else.
"""

import datetime
import json
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from appointments.services import appointment_book
from favorites.services import favorite_add
from notifications.services import email_unsubscribe_url, saved_search_create
from tests.browser.conftest import DESKTOP, PHONE
from tests.browser.test_journeys import HOUSE, published_listing

pytestmark = pytest.mark.browser

AXE = Path(settings.BASE_DIR) / "node_modules" / "axe-core" / "axe.min.js"


@pytest.fixture
def world(owner, customer, admin):
    """A published listing with photos, saved by the customer, who asked to visit it and
    keeps a saved search: every page then has something to show."""
    listing = published_listing(
        owner,
        admin,
        title="Bright flat near the park",
        kind="house",
        values=HOUSE,
        municipality="Madrid",
        latitude=40.4168,
        longitude=-3.7038,
    )
    favorite_add(user=customer, property=listing, by=customer)
    visit = appointment_book(
        by=customer,
        property=listing,
        date=(timezone.now() + datetime.timedelta(days=3)).replace(
            hour=10, minute=0, second=0, microsecond=0
        ),
        duration=60,
    )
    saved_search_create(by=customer, name="Flats in Madrid", criteria={"municipality": "Madrid"})
    return {"listing": listing, "visit": visit}


def violations(page) -> list[str]:
    """What axe-core finds on the page as it is now: one line per rule and element."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: `npm ci` installs it (make test does).")
    page.add_script_tag(path=str(AXE))
    found = page.evaluate("async () => (await axe.run(document)).violations")
    return [
        f"{violation['id']}: {node['target']} ({violation['help']})"
        for violation in found
        for node in violation["nodes"]
    ]


def signed_in(new_context, live_server, user, viewport):
    """A browser context with the session of `user` (signed in by Django's test client)."""
    client = Client()
    client.force_login(user)
    context = new_context(viewport, bypass_csp=True)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": live_server.url,
            }
        ]
    )
    return context


def audit(context, paths: list[str]) -> dict[str, list[str]]:
    """Each path's violations, for those that have any."""
    page = context.new_page()
    found = {}
    for path in paths:
        response = page.goto(path)
        assert response is not None
        page.wait_for_load_state("load")
        problems = violations(page)
        if problems:
            found[f"{path} ({response.status})"] = problems
    page.close()
    return found


@pytest.mark.parametrize("viewport", [DESKTOP, PHONE], ids=["desktop", "phone"])
def test_public_pages_have_no_axe_violations(new_context, world, viewport):
    listing = world["listing"]
    paths = [
        reverse("home"),
        reverse("home") + "?transactionType=SALE&type=apartment&sort=price",
        reverse("home") + "?minPrice=abc",
        listing.get_absolute_url(),
        reverse("accounts:login"),
        reverse("accounts:register"),
        reverse("accounts:password-reset"),
        reverse("accounts:password-reset-done"),
        "/no-such-page/",
    ]

    # when
    found = audit(new_context(viewport, bypass_csp=True), paths)

    # then
    assert found == {}, json.dumps(found, indent=2)


def test_customer_pages_have_no_axe_violations(new_context, live_server, world, customer):
    listing = world["listing"]
    paths = [
        listing.get_absolute_url(),
        reverse("favorites:list"),
        reverse("notifications:list"),
        reverse("notifications:saved-searches"),
        reverse("notifications:email-preferences"),
        urlsplit(email_unsubscribe_url(user=customer, topic="alerts")).path,
        reverse("appointments:mine"),
        reverse("appointments:reschedule", args=[world["visit"].pk]),
        reverse("accounts:profile"),
        reverse("accounts:password"),
    ]

    # when
    found = audit(signed_in(new_context, live_server, customer, DESKTOP), paths)

    # then
    assert found == {}, json.dumps(found, indent=2)


def test_owner_pages_have_no_axe_violations(new_context, live_server, world, owner):
    listing = world["listing"]
    paths = [
        reverse("listings:owner-list"),
        reverse("listings:owner-create"),
        reverse("listings:owner-edit", args=[listing.pk]),
        reverse("listings:owner-details", args=[listing.pk]),
        reverse("media:manage", args=[listing.pk]),
        reverse("appointments:incoming"),
        reverse("notifications:list"),
        reverse("accounts:profile"),
    ]

    # when
    found = audit(signed_in(new_context, live_server, owner, DESKTOP), paths)

    # then
    assert found == {}, json.dumps(found, indent=2)
