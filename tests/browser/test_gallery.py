"""The listing page's gallery in a browser (static/js/gallery.js): thumbnails by keyboard,
the full-size view in a <dialog>, swipes, and no request for a file the storage lacks."""

import io

import pytest
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.urls import reverse
from PIL import Image as PillowImage
from playwright.sync_api import expect

from listings.models import PropertyStatus
from media_app.services import image_upload
from tests.browser.conftest import PHONE, SCREENSHOTS, wait_for_images
from tests.factories import ListingFactory

pytestmark = pytest.mark.browser

COLOURS = ("teal", "orange", "purple", "olive")


def jpeg(colour: str) -> ContentFile:
    """A real 1600 x 1200 JPEG photo, for the upload service."""
    buffer = io.BytesIO()
    PillowImage.new("RGB", (1600, 1200), colour).save(buffer, "JPEG", quality=85)
    return ContentFile(buffer.getvalue(), name=f"{colour}.jpg")


@pytest.fixture
def listing(db):
    """A public listing with four photos uploaded as its owner would, with their copies."""
    listing = ListingFactory(title="Bright flat", status=PropertyStatus.AVAILABLE)
    for colour in COLOURS:
        image_upload(
            property=listing, by=listing.owner.user, file=jpeg(colour), title=colour.title()
        )
    return listing


def stage(page):
    return page.locator("[data-testid=gallery-stage] img")


def thumbnail(page, number: int):
    return page.locator(".gallery__thumb").nth(number - 1)


def test_the_gallery_by_keyboard(listing, new_context):
    page = new_context().new_page()
    page.goto(listing.get_absolute_url())
    expect(page.locator("[data-gallery-ready]")).to_have_count(1)
    expect(stage(page)).to_have_attribute("alt", "Teal")

    # when the visitor tabs from the stage to the thumbnails, the focus is on the current one
    page.locator("[data-testid=gallery-stage]").focus()
    page.keyboard.press("Tab")
    expect(thumbnail(page, 1)).to_be_focused()
    outline = "() => getComputedStyle(document.activeElement).outlineStyle"
    assert page.evaluate(outline) == "solid"

    # when the arrow keys move along, the stage shows each photo in turn
    page.keyboard.press("ArrowRight")
    expect(thumbnail(page, 2)).to_be_focused()
    expect(thumbnail(page, 2)).to_have_attribute("aria-current", "true")
    expect(stage(page)).to_have_attribute("alt", "Orange")
    page.keyboard.press("End")
    expect(thumbnail(page, 4)).to_be_focused()
    expect(stage(page)).to_have_attribute("alt", "Olive")
    page.keyboard.press("ArrowRight")
    expect(thumbnail(page, 1)).to_be_focused()
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(thumbnail(page, 3)).to_be_focused()
    expect(stage(page)).to_have_attribute("alt", "Purple")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(stage(page)).to_have_attribute("alt", "Orange")
    # and the thumbnails stay one stop of the Tab key, at the current photo
    tabindexes = [thumbnail(page, number).get_attribute("tabindex") for number in range(1, 5)]
    assert tabindexes == ["-1", "0", "-1", "-1"]
    wait_for_images(page)
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".gallery").screenshot(path=SCREENSHOTS / "gallery-desktop.png")

    # when Enter opens the photo, the dialog shows it full size
    page.keyboard.press("Enter")
    dialog = page.get_by_role("dialog", name="Photo 2 of 4")
    expect(dialog).to_be_visible()
    full = page.locator(".gallery__full")
    expect(full).to_have_attribute("alt", "Orange")
    assert "1600w" in full.get_attribute("srcset")
    expect(dialog.get_by_role("button", name="Close")).to_be_focused()
    page.wait_for_function(
        "() => document.querySelector('.gallery__full').complete"
        " && document.querySelector('.gallery__full').naturalWidth > 0"
    )
    page.screenshot(path=SCREENSHOTS / "gallery-dialog-desktop.png")

    # when the arrow keys move on in the dialog, then Escape closes it
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("dialog", name="Photo 3 of 4")).to_be_visible()
    expect(full).to_have_attribute("alt", "Purple")
    page.keyboard.press("Escape")

    # then the dialog is closed and the focus is back on the thumbnail of the last photo seen
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(thumbnail(page, 3)).to_be_focused()
    expect(stage(page)).to_have_attribute("alt", "Purple")


def swipe(page, locator, dx: int) -> None:
    """Drag across the middle of an element with the primary pointer, `dx` pixels sideways."""
    box = locator.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + dx / 2, y + 4, steps=4)
    page.mouse.move(x + dx, y + 6, steps=4)
    page.mouse.up()


def test_a_swipe_shows_the_next_or_previous_photo(listing, new_context):
    page = new_context(PHONE).new_page()
    page.goto(listing.get_absolute_url())
    expect(page.locator("[data-gallery-ready]")).to_have_count(1)

    # when the visitor swipes the stage to the left twice, then to the right
    swipe(page, stage(page), -150)
    expect(stage(page)).to_have_attribute("alt", "Orange")
    swipe(page, stage(page), -150)
    expect(stage(page)).to_have_attribute("alt", "Purple")
    swipe(page, stage(page), 150)

    # then the stage follows, and no swipe opened the photo
    expect(stage(page)).to_have_attribute("alt", "Orange")
    expect(page.get_by_role("dialog")).to_have_count(0)
    wait_for_images(page)
    page.locator(".gallery").screenshot(path=SCREENSHOTS / "gallery-phone.png")

    # when a tap opens it, a swipe in the dialog moves on too
    stage(page).click()
    dialog = page.get_by_role("dialog", name="Photo 2 of 4")
    expect(dialog).to_be_visible()
    swipe(page, dialog.locator("img"), -150)
    expect(page.get_by_role("dialog", name="Photo 3 of 4")).to_be_visible()
    page.screenshot(path=SCREENSHOTS / "gallery-dialog-phone.png")
    page.get_by_role("button", name="Close").click()
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(stage(page)).to_have_attribute("alt", "Purple")


def test_without_javascript_each_photo_is_a_link_to_its_file(listing, new_context):
    page = new_context(java_script_enabled=False).new_page()
    page.goto(listing.get_absolute_url())

    links = page.locator(".gallery__thumb")
    expect(links).to_have_count(4)
    first = links.first.get_attribute("href")
    assert first.endswith(".jpg")
    response = page.request.get(first)
    assert response.status == 200
    assert response.headers["content-type"] == "image/jpeg"


def test_no_request_fails_for_a_photo_file_the_storage_lacks(listing, new_context):
    # given a second listing whose only photo lost its files, and a first photo whose
    # 1200 px copy is gone
    lost = ListingFactory(title="Lost photos", status=PropertyStatus.AVAILABLE)
    image = image_upload(property=lost, by=lost.owner.user, file=jpeg("navy"))
    for name in [image.file.name, *image.thumbnails.values()]:
        default_storage.delete(name)
    first = listing.images.order_by("position").first()
    default_storage.delete(first.thumbnails["1200"])

    page = new_context().new_page()
    failures = []

    def note(response) -> None:
        if response.request.resource_type in ("document", "image") and response.status >= 400:
            failures.append(response.url)

    page.on("response", note)

    # when the visitor opens the search page, both listings and their full-size photos
    page.goto(reverse("home"))
    wait_for_images(page)
    page.goto(lost.get_absolute_url())
    expect(page.get_by_test_id("gallery-placeholder")).to_have_text("No photos yet.")
    page.goto(listing.get_absolute_url())
    wait_for_images(page)
    stage(page).click()
    expect(page.get_by_role("dialog")).to_be_visible()
    page.wait_for_function("() => document.querySelector('.gallery__full').complete")

    # then no page and no picture failed to load
    assert failures == []
