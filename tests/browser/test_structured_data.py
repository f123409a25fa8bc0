"""The structured data in a real browser: the JSON-LD data blocks of the listing and search
pages raise no console error, under the site's Content-Security-Policy included (the
new_context fixture fails the test on any refusal)."""

import json

import pytest

from tests.site.conftest import house

pytestmark = pytest.mark.browser


def test_json_ld_blocks_cause_no_console_error(new_context):
    listing = house(title="Casa </script> con jardín")
    page = new_context().new_page()
    errors: list[str] = []

    def note_error(message) -> None:
        # The site has no favicon yet; the browser's request for one is not these pages'.
        if message.type == "error" and not message.location["url"].endswith("/favicon.ico"):
            errors.append(message.text)

    page.on("console", note_error)

    page.goto(listing.get_absolute_url())
    listing_data = page.locator('script[type="application/ld+json"]').text_content()
    page.goto("/")
    search_data = page.locator('script[type="application/ld+json"]').text_content()

    assert json.loads(listing_data)["name"] == "Casa </script> con jardín"
    assert json.loads(search_data)["itemListElement"][0]["name"] == listing.title
    assert errors == []
