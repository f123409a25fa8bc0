"""The search page's map: clusters when zoomed out, each listing when zoomed in
(static/js/map.js over GET /api/v1/properties/clusters), and an area drawn on it searches
that area (Leaflet.draw's polygon tool)."""

import re
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

from tests.browser.conftest import PHONE, SCREENSHOTS
from tests.browser.test_journeys import HOUSE, published_listing
from tests.factories import ListingFactory

pytestmark = pytest.mark.browser

MAP = "#results-map"


@pytest.fixture
def spread_listings(db):
    """Twelve public listings in Madrid, three columns of four a few streets apart, and
    eight in Barcelona."""
    for number in range(12):
        ListingFactory(
            municipality="Madrid",
            latitude=40.4168 + 0.004 * (number % 4),
            longitude=-3.7038 + 0.004 * (number // 4),
            title=f"Madrid flat {number}",
        )
    for number in range(8):
        ListingFactory(
            municipality="Barcelona",
            latitude=41.3851 + 0.001 * (number % 3),
            longitude=2.1734 + 0.001 * (number // 3),
            title=f"Barcelona flat {number}",
        )


def clusters(page):
    return page.locator(f"{MAP} .map-cluster")


def listing_markers(page):
    return page.locator(f"{MAP} .leaflet-marker-icon:not(.map-cluster)")


def zoom_out(page, steps: int) -> None:
    """Press the map's minus key `steps` times, each once the last zoom has ended (keys
    pressed during a zoom's animation are dropped)."""
    page.locator(MAP).focus()
    for _ in range(steps):
        level = int(page.locator(MAP).get_attribute("data-zoom-level"))
        page.keyboard.press("-")
        expect(page.locator(MAP)).to_have_attribute("data-zoom-level", str(level - 1))


def point_of(page, title: str) -> tuple[float, float]:
    """Where a listing's marker points on the page: the middle of its icon's foot."""
    box = page.locator(f"{MAP} .leaflet-marker-icon[title='{title}']").bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"]


def test_the_map_shows_clusters_zoomed_out_and_listings_zoomed_in(spread_listings, new_context):
    page = new_context().new_page()
    page.goto("/en/")
    map_element = page.locator(MAP)

    # then the results of two cities far apart are two clusters with their counts
    expect(map_element).to_have_attribute("data-showing", "clusters")
    expect(clusters(page)).to_have_count(2)
    expect(clusters(page)).to_have_text(["12", "8"])
    expect(listing_markers(page)).to_have_count(0)
    expect(page.locator("[data-map-status]")).to_have_text(
        "20 listings in 2 groups; zoom in to see each listing."
    )

    # when the visitor opens the Madrid cluster with the keyboard
    madrid = page.get_by_role("button", name=re.compile(r"^12 listings, from"))
    madrid.focus()
    page.keyboard.press("Enter")

    # then the map zooms in on its streets and shows each listing there
    expect(map_element).to_have_attribute("data-showing", "markers")
    expect(listing_markers(page)).to_have_count(20)
    expect(clusters(page)).to_have_count(0)

    # when the visitor zooms out again with the keyboard, the clusters come back
    zoom_out(page, 2)
    expect(map_element).to_have_attribute("data-showing", "clusters")
    expect(clusters(page).first).to_be_visible()

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".map-panel").screenshot(path=SCREENSHOTS / "map-clusters-desktop.png")


def test_the_clusters_follow_the_search_filters(spread_listings, new_context):
    # given a search for Barcelona only
    page = new_context().new_page()
    page.goto("/en/?municipality=barcelona")

    expect(page.locator("[data-testid=result-count]")).to_have_text("8 listings")
    expect(page.locator(MAP)).to_have_attribute("data-showing", "markers")

    # when the visitor zooms out to the whole region
    zoom_out(page, 7)

    # then the map's clusters hold Barcelona's listings and no others
    expect(page.locator(MAP)).to_have_attribute("data-showing", "clusters")
    expect(clusters(page)).to_have_text(["8"])
    expect(page.locator("[data-map-status]")).to_have_text(
        "8 listings in 1 group; zoom in to see each listing."
    )


def test_a_drawn_area_filters_the_results(spread_listings, new_context):
    page = new_context().new_page()
    # given the visitor looks at Madrid's streets
    page.goto("/en/?municipality=madrid")
    expect(page.locator("[data-testid=result-count]")).to_have_text("12 listings")
    map_element = page.locator(MAP)
    expect(map_element).to_have_attribute("data-showing", "markers")

    # when they draw a triangle round the western column of four listings (flats 0 to 3;
    # flat 4 starts the next column) and close it on its first corner
    page.get_by_role("button", name="Draw an area").click()
    expect(page.locator("[data-draw-area-help]")).to_be_visible()
    south, north, east = (point_of(page, f"Madrid flat {number}") for number in (0, 3, 4))
    gap = (east[0] - south[0]) / 2
    corners = [
        (south[0] - gap, south[1] + gap),
        (south[0] + gap, south[1] + gap),
        (north[0], north[1] - gap),
    ]
    for placed, (x, y) in enumerate(corners, start=1):
        page.mouse.click(x, y)
        expect(page.locator(f"{MAP} .leaflet-editing-icon")).to_have_count(placed)
        # Leaflet.draw ignores clicks for 50 ms after a corner (against doubled touch
        # events); a person's next click comes later than that, and so does this one.
        page.wait_for_timeout(100)
    page.mouse.click(*corners[0])

    # then the search runs again for the drawn area alone, which the map shows
    expect(page).to_have_url(re.compile(r"polygon="))
    expect(page.locator("[data-testid=result-count]")).to_have_text("4 listings")
    expect(page.get_by_test_id("drawn-area-notice")).to_be_visible()
    query = parse_qs(urlparse(page.url).query)
    assert query["municipality"] == ["madrid"]
    numbers = [float(part) for part in query["polygon"][0].split(",")]
    assert len(numbers) == 8
    assert numbers[:2] == numbers[-2:]
    expect(page.locator(f"{MAP} path.leaflet-interactive, {MAP} path")).not_to_have_count(0)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=SCREENSHOTS / "map-drawn-area-desktop.png")

    # when the visitor removes the drawn area, every Madrid listing is back
    page.get_by_role("link", name="Remove the drawn area").click()
    expect(page.locator("[data-testid=result-count]")).to_have_text("12 listings")


def test_the_map_on_a_phone(spread_listings, new_context):
    page = new_context(PHONE).new_page()
    page.goto("/en/")
    # a phone shows the list first; the map is one tap away
    page.get_by_text("Map", exact=True).click()
    expect(clusters(page)).to_have_count(2)
    expect(page.get_by_role("button", name="Draw an area")).to_be_visible()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".map-panel").screenshot(path=SCREENSHOTS / "map-clusters-phone.png")


def test_a_listings_map_below_the_photos_loads_when_scrolled_to_on_a_phone(
    owner, admin, new_context
):
    listing = published_listing(
        owner,
        admin,
        title="House with a garden",
        kind="house",
        values=HOUSE,
        municipality="Madrid",
        latitude=40.4168,
        longitude=-3.7038,
    )
    page = new_context(PHONE).new_page()
    page.goto(listing.get_absolute_url())
    map_element = page.locator("#listing-map")

    # then the map, below the fold, waits: Leaflet is not fetched yet
    expect(page.locator(".gallery")).to_be_visible()
    assert page.evaluate("() => typeof window.L") == "undefined"

    # when the visitor scrolls down to it
    map_element.scroll_into_view_if_needed()

    # then Leaflet is loaded and the map shows the listing's marker, by its image's real URL
    expect(map_element.locator(".leaflet-marker-icon")).to_have_count(1)
    icon = map_element.locator(".leaflet-marker-icon").get_attribute("src")
    assert "/static/leaflet/images/marker-icon" in icon


def test_the_map_speaks_the_pages_language(spread_listings, new_context):
    page = new_context().new_page()
    page.goto("/es/")

    # then the map's status and its clusters' names come from the Spanish JavaScript catalog
    expect(clusters(page)).to_have_count(2)
    expect(page.locator("[data-map-status]")).to_have_text(
        "20 anuncios en 2 grupos; acerca el mapa para ver cada anuncio."
    )
    expect(
        page.get_by_role("button", name="12 anuncios, desde 250.000; acerca el mapa", exact=True)
    ).to_have_count(1)
