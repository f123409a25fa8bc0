"""The search page's town field suggests towns as one types, and is used with the keyboard
alone (static/js/place-suggest.js over GET /api/v1/places)."""

import re

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import DESKTOP, PHONE, SCREENSHOTS
from tests.factories import ListingFactory

pytestmark = pytest.mark.browser


@pytest.fixture
def towns(db):
    """Public listings in Málaga (two), Madrid and Mallorca, and one in Segovia."""
    for town in ("Málaga", "Málaga", "Madrid", "Mallorca", "Segovia"):
        ListingFactory(municipality=town)


def test_a_visitor_picks_a_suggested_town_with_the_keyboard_alone(towns, new_context):
    page = new_context().new_page()
    page.goto("/en/")
    field = page.get_by_role("combobox", name="Municipality")
    suggestions = page.get_by_role("listbox", name="Towns")

    # when the visitor types the first letters, without the accent
    field.focus()
    page.keyboard.type("mal")

    # then the towns that start with them are listed with their listings
    expect(suggestions).to_be_visible()
    options = suggestions.get_by_role("option")
    expect(options).to_have_text(["Málaga2 listings", "Mallorca1 listing"])
    expect(field).to_have_attribute("aria-expanded", "true")
    expect(page.locator("#municipality-status")).to_have_text("2 towns suggested")

    # when the visitor moves down twice and back up, the first town is the chosen one
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("ArrowUp")
    expect(options.first).to_have_attribute("aria-selected", "true")
    expect(field).to_have_attribute("aria-activedescendant", "municipality-suggestions-0")
    page.keyboard.press("Enter")

    # then the field holds its name as the listings spell it, and the list is closed
    expect(field).to_have_value("Málaga")
    expect(suggestions).to_be_hidden()
    expect(field).to_have_attribute("aria-expanded", "false")

    # when Enter is pressed again, the search runs for that town
    page.keyboard.press("Enter")
    expect(page).to_have_url(re.compile(r"municipality=M%C3%A1laga"))
    expect(page.locator("[data-testid=result-count]")).to_have_text("2 listings")


def test_escape_closes_the_suggestions_and_a_click_picks_one(towns, new_context):
    page = new_context().new_page()
    page.goto("/en/")
    field = page.get_by_role("combobox", name="Municipality")
    suggestions = page.get_by_role("listbox", name="Towns")

    field.focus()
    page.keyboard.type("MADRI")
    expect(suggestions.get_by_role("option")).to_have_text(["Madrid1 listing"])
    page.keyboard.press("Escape")
    expect(suggestions).to_be_hidden()
    expect(field).to_have_value("MADRI")

    page.keyboard.press("ArrowDown")
    expect(suggestions).to_be_visible()
    suggestions.get_by_role("option", name=re.compile("Madrid")).click()
    expect(field).to_have_value("Madrid")
    expect(suggestions).to_be_hidden()


@pytest.mark.parametrize(("width_name", "viewport"), [("desktop", DESKTOP), ("phone", PHONE)])
def test_the_suggestions_screenshot(towns, new_context, width_name, viewport):
    page = new_context(viewport).new_page()
    page.goto("/en/")
    if width_name == "phone":
        # a phone folds the town field with the other filters
        page.get_by_role("button", name="Filters (0)").click()
    page.get_by_role("combobox", name="Municipality").focus()
    page.keyboard.type("ma")
    options = page.get_by_role("listbox", name="Towns").get_by_role("option")
    expect(options).to_have_count(3)
    page.keyboard.press("ArrowDown")
    expect(options.first).to_have_attribute("aria-selected", "true")

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / f"place-suggestions-{width_name}.png")

    # The list lies over the page, not under it: its first option is what is at its place.
    box = options.first.bounding_box()
    on_top = page.evaluate(
        "([x, y]) => document.elementFromPoint(x, y).closest('[role=option]') !== null",
        [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2],
    )
    assert on_top is True
