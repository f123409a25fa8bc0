"""The website on a phone (375 x 667): the search's filters folded behind "Filters (n)", the
list and the map one tap apart, and touch targets of at least 24 x 24 CSS pixels (WCAG 2.2,
2.5.8) on the home, search and listing pages; wide screens keep everything in view."""

import io

import pytest
from django.core.files.base import ContentFile
from django.urls import reverse
from PIL import Image as PillowImage
from playwright.sync_api import expect

from listings.models import PropertyStatus
from media_app.services import image_upload
from tests.browser.conftest import DESKTOP, SCREENSHOTS, wait_for_images
from tests.factories import ListingFactory

pytestmark = pytest.mark.browser

PHONE = {"width": 375, "height": 667}
# Every element a finger or a pointer may aim at.
INTERACTIVE = (
    "a[href], button, input:not([type=hidden]), select, textarea, summary, "
    "[tabindex]:not([tabindex='-1'])"
)
# The visible ones narrower or lower than 24 CSS pixels, with what they are.
SMALL_TARGETS = """selector => [...document.querySelectorAll(selector)]
  .filter(element => element.checkVisibility({visibilityProperty: true}))
  .map(element => [element, element.getBoundingClientRect()])
  .filter(([element, box]) => box.width > 0 && box.height > 0)
  .filter(([element, box]) => box.width < 24 || box.height < 24)
  .map(([element, box]) => `${element.outerHTML.slice(0, 90)} ${box.width}x${box.height}`)"""


@pytest.fixture
def listings(db):
    """Fifteen public houses in Madrid for sale (two pages), the first with two photos."""
    made = [
        ListingFactory(
            title=f"Madrid house {number}",
            municipality="Madrid",
            latitude=40.4168 + 0.002 * (number % 5),
            longitude=-3.7038 + 0.002 * (number // 5),
            status=PropertyStatus.AVAILABLE,
            transaction_type="SALE",
        )
        for number in range(15)
    ]
    for colour in ("teal", "orange"):
        buffer = io.BytesIO()
        PillowImage.new("RGB", (1600, 1200), colour).save(buffer, "JPEG", quality=85)
        image_upload(
            property=made[0],
            by=made[0].owner.user,
            file=ContentFile(buffer.getvalue(), name=f"{colour}.jpg"),
        )
    return made


def small_targets(page) -> list[str]:
    return page.evaluate(SMALL_TARGETS, INTERACTIVE)


def test_the_filters_fold_behind_a_button_with_their_count(listings, new_context):
    page = new_context(PHONE).new_page()
    page.goto(reverse("home") + "?municipality=Madrid&minPrice=1000&sort=price")
    toggle = page.get_by_role("button", name="Filters (2)")

    # then the keywords and the Search button are there, the other fields folded
    expect(toggle).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(toggle).to_have_attribute("aria-controls", "search-filters")
    expect(page.get_by_label("Keywords")).to_be_visible()
    expect(page.get_by_role("button", name="Search", exact=True)).to_be_visible()
    expect(page.get_by_label("Minimum price")).to_be_hidden()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "phone-filters-closed.png")

    # when the visitor opens them with the keyboard
    toggle.focus()
    page.keyboard.press("Enter")

    # then every field shows, with the search's values
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(page.get_by_label("Minimum price")).to_have_value("1000")
    expect(page.get_by_label("Municipality")).to_have_value("Madrid")
    page.screenshot(path=SCREENSHOTS / "phone-filters-open.png", full_page=True)

    # when Space closes them again
    page.keyboard.press("Space")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_label("Minimum price")).to_be_hidden()


def test_the_list_and_the_map_switch_with_one_tap(listings, new_context):
    page = new_context(PHONE, has_touch=True).new_page()
    page.goto(reverse("home") + "?municipality=Madrid")
    results = page.locator(".results")
    map_element = page.locator("#results-map")

    # then the list is shown first, and the map is not
    expect(page.get_by_role("radio", name="List")).to_be_checked()
    expect(results).to_be_visible()
    expect(map_element).to_be_hidden()
    wait_for_images(page)
    page.screenshot(path=SCREENSHOTS / "phone-list.png")
    # and Leaflet has not even been fetched (static/js/leaflet-loader.js)
    assert page.evaluate("() => typeof window.L") == "undefined"

    # when the visitor taps "Map"
    page.get_by_text("Map", exact=True).tap()

    # then the map takes the list's place, drawn at its size with the results' markers
    expect(map_element).to_be_visible()
    expect(results).to_be_hidden()
    expect(map_element).to_have_attribute("data-showing", "markers")
    expect(page.locator("#results-map .leaflet-marker-icon")).to_have_count(15)
    box = map_element.bounding_box()
    assert box["width"] > 300 and box["height"] > 250
    expect(page.get_by_role("button", name="Search this area")).to_be_visible()
    page.screenshot(path=SCREENSHOTS / "phone-map.png")

    # when the visitor goes back with the keyboard: the arrow keys choose within the group
    page.get_by_role("radio", name="Map").focus()
    page.keyboard.press("ArrowLeft")
    expect(results).to_be_visible()
    expect(map_element).to_be_hidden()


def test_wide_screens_show_the_filters_the_list_and_the_map_together(listings, new_context):
    page = new_context(DESKTOP).new_page()
    page.goto(reverse("home") + "?municipality=Madrid")

    expect(page.get_by_role("button", name="Filters (1)")).to_be_hidden()
    expect(page.get_by_role("radio", name="Map")).to_be_hidden()
    expect(page.get_by_label("Minimum price")).to_be_visible()
    expect(page.locator(".results")).to_be_visible()
    expect(page.locator("#results-map")).to_be_visible()


def test_without_javascript_a_phone_shows_every_filter(listings, new_context):
    page = new_context(PHONE, java_script_enabled=False).new_page()
    page.goto(reverse("home"))

    expect(page.get_by_role("button", name="Filters (0)")).to_be_hidden()
    expect(page.get_by_label("Minimum price")).to_be_visible()
    expect(page.get_by_label("Sort by")).to_be_visible()


def test_touch_targets_are_at_least_24_pixels_on_a_phone(listings, new_context):
    page = new_context(PHONE).new_page()
    # (page, path, the name of its filters button)
    pages = [
        ("home", reverse("home"), "Filters (0)"),
        ("search", reverse("home") + "?municipality=Madrid&sort=price", "Filters (1)"),
        ("listing", listings[0].get_absolute_url(), None),
    ]
    for name, path, filters in pages:
        # when every part of the page is shown (the filters, the list, then the map)
        page.goto(path)
        wait_for_images(page)
        if filters:
            page.get_by_role("button", name=filters).click()
            expect(page.get_by_role("link", name="Next page")).to_be_visible()
        assert small_targets(page) == [], name
        if filters:
            page.get_by_text("Map", exact=True).click()
            expect(page.locator("#results-map .leaflet-marker-icon").first).to_be_visible()
            assert small_targets(page) == [], f"{name}, map"
