"""The website in a real browser: search, listing pages, accounts, owner and customer areas,
and the admin's approval in between (issue 9's acceptance journeys)."""

import datetime
import io
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone
from PIL import Image as PillowImage
from playwright.sync_api import Page, expect

from accounts.models import UserType
from accounts.services import user_create
from appointments.models import Appointment, AppointmentStatus
from favorites.models import Favorite
from listings.models import Property, PropertyStatus
from listings.services import property_change_status, property_create, type_record_create
from media_app.services import image_upload
from tests.browser.conftest import jpeg_file, wait_for_images
from tests.factories import CategoryFactory

pytestmark = pytest.mark.browser

PASSWORD = "a-long-enough-passphrase"


def card_titles(page: Page) -> list[str]:
    """Titles of the listing cards on a search page, in order."""
    return page.locator("[data-testid=listing-card] .card__title").all_inner_texts()


def photo(name: str, colour: str) -> SimpleUploadedFile:
    """A real JPEG as an upload, for the media service."""
    buffer = io.BytesIO()
    PillowImage.new("RGB", (1600, 1200), colour).save(buffer, "JPEG", quality=85)
    return SimpleUploadedFile(name, buffer.getvalue(), content_type="image/jpeg")


def published_listing(owner, admin, *, title, kind, values, municipality, latitude, longitude):
    """A listing made through the services, with two photos, approved by an admin."""
    listing = property_create(
        by=owner,
        title=title,
        description=f"{title}: bright rooms and a quiet street.",
        price=250000,
        latitude=latitude,
        longitude=longitude,
        transaction_type="SALE",
        municipality=municipality,
        address="1 Main Street",
        area=120,
        category=CategoryFactory(name="Residential"),
    )
    type_record_create(property=listing, by=owner, kind=kind, values=values)
    image_upload(property=listing, by=owner, file=photo("front.jpg", "teal"), title="Front")
    image_upload(property=listing, by=owner, file=photo("garden.jpg", "olive"), title="Garden")
    return property_change_status(property=listing, by=admin, status=PropertyStatus.AVAILABLE)


HOUSE = {"rooms": 5, "bedrooms": 3, "bathrooms": 2, "swimming_pool": True, "parking_space": True}
LAND = {"serviced": True, "land_type": "BUILDABLE"}


def test_anonymous_visitor_filters_the_search_and_sees_a_listings_photos(new_context, screenshot):
    # given three public listings, two in Madrid, one of them a house with photos
    owner = user_create(email="owen@example.com", password=PASSWORD, user_type=UserType.OWNER)
    admin = user_create(email="ada@example.com", password=PASSWORD, user_type=UserType.ADMIN)
    madrid = {"municipality": "Madrid", "latitude": 40.4168, "longitude": -3.7038}
    published_listing(owner, admin, title="Madrid house", kind="house", values=HOUSE, **madrid)
    published_listing(owner, admin, title="Madrid plot", kind="land", values=LAND, **madrid)
    published_listing(
        owner,
        admin,
        title="Seville house",
        kind="house",
        values=HOUSE,
        municipality="Seville",
        latitude=37.3891,
        longitude=-5.9845,
    )
    page = new_context().new_page()

    # when the visitor opens the home page, then filters houses in Madrid
    page.goto("/en/")
    expect(page.locator("[data-testid=result-count]")).to_have_text("3 listings")
    # (two towns far apart: the map shows them zoomed out, as clusters of listings)
    expect(page.locator(".map-cluster")).to_have_text(["2", "1"])
    page.get_by_label("Type").select_option("house")
    page.get_by_label("Municipality").fill("Madrid")
    page.get_by_role("button", name="Search", exact=True).click()

    # then the URL carries the API's parameters and only the Madrid house is left
    expect(page).to_have_url(re.compile(r"type=house.*municipality=Madrid"))
    assert card_titles(page) == ["Madrid house"]
    expect(page.locator(".leaflet-marker-icon")).to_have_count(1)
    screenshot("/en/?type=house", "search")

    # when the visitor asks for the area on the map, the area joins the filters
    page.get_by_role("button", name="Search this area").click()
    expect(page).to_have_url(re.compile(r"bbox=-?[\d.]+%2C"))
    assert card_titles(page) == ["Madrid house"]

    # when the visitor opens the listing, its photos load in the owner's order
    page.get_by_role("link", name="Madrid house").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Madrid house")
    wait_for_images(page)
    gallery = page.locator(".gallery__thumb img")
    expect(gallery).to_have_count(2)
    assert [gallery.nth(index).get_attribute("alt") for index in range(2)] == ["Front", "Garden"]
    assert "400w" in gallery.first.get_attribute("srcset")
    expect(page.locator("[data-testid=facts]")).to_contain_text("Bedrooms")
    screenshot(page.url, "listing")


def register(page: Page, *, name: str, email: str, owner: bool = False) -> None:
    """Fill in and send the registration form, as a customer unless `owner`."""
    page.goto("/en/accounts/register/")
    page.get_by_label("Name").fill(name)
    page.get_by_label("Email").fill(email)
    if owner:
        page.get_by_label("Owner: I want to list properties").check()
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Password again").fill(PASSWORD)
    page.get_by_role("button", name="Register").click()


def test_owner_lists_admin_approves_customer_books_and_owner_confirms(
    new_context, screenshot, tmp_path
):
    CategoryFactory(name="Residential")
    user_create(email="ada@example.com", password=PASSWORD, user_type=UserType.ADMIN)
    owner_context, customer_context, admin_context, visitor_context = (
        new_context(),
        new_context(),
        new_context(),
        new_context(),
    )

    # a new owner registers and creates a listing in two steps, with a photo
    owner = owner_context.new_page()
    register(owner, name="Olivia Owner", email="olivia@example.com", owner=True)
    expect(owner).to_have_url(re.compile(r"/en/owner/listings/$"))
    owner.get_by_role("link", name="New listing").click()
    owner.get_by_label("Title").fill("Cottage by the river")
    owner.get_by_label("Description").fill("Stone walls, a garden and the river at the end.")
    owner.get_by_label("Category").select_option(label="Residential")
    owner.get_by_label("For sale").check()
    owner.get_by_label("Price").fill("185000")
    owner.get_by_label("Area (m²)").fill("96.5")
    owner.get_by_label("Municipality").fill("Cuenca")
    owner.get_by_label("Address").fill("2 River Lane")
    owner.get_by_label("Latitude", exact=True).fill("40.0704")
    owner.get_by_label("Longitude", exact=True).fill("-2.1374")
    owner.get_by_role("button", name="Continue to step 2").click()
    owner.get_by_label("House").check()
    owner.get_by_role("button", name="Next").click()
    owner.get_by_label("Rooms", exact=True).fill("5")
    owner.get_by_label("Bedrooms").fill("3")
    owner.get_by_label("Bathrooms").fill("2")
    owner.get_by_role("group", name="Swimming pool").get_by_label("No").check()
    owner.get_by_role("group", name="Parking space").get_by_label("Yes").check()
    owner.get_by_role("button", name="Create the listing").click()
    expect(owner.get_by_role("heading", level=1)).to_contain_text("Photos and videos")
    owner.get_by_label("Photo (JPEG, PNG or WebP)").set_input_files(
        jpeg_file(tmp_path, "cottage.jpg", "sienna")
    )
    owner.get_by_label("Description (used as its alternative text)").fill("Front of the cottage")
    owner.get_by_role("button", name="Upload the photo").click()
    expect(owner.get_by_text("Photo added.")).to_be_visible()
    owner.get_by_role("link", name="My listings", exact=True).click()
    row = owner.locator("[data-testid=owner-listing]", has_text="Cottage by the river")
    expect(row).to_contain_text("Pending review")
    expect(row).to_contain_text("1 photo")
    listing = Property.objects.get(title="Cottage by the river")
    assert listing.status == PropertyStatus.PENDING
    screenshot("/en/owner/listings/", "owner-area", storage_state=owner_context.storage_state())

    # a visitor does not find it yet
    visitor = visitor_context.new_page()
    visitor.goto("/en/?q=cottage")
    expect(visitor.locator("[data-testid=result-count]")).to_have_text("0 listings")

    # an admin approves it in the back office
    admin = admin_context.new_page()
    admin.goto("/admin/listings/property/")
    admin.get_by_label("Email").fill("ada@example.com")
    admin.get_by_label("Password").fill(PASSWORD)
    admin.get_by_role("button", name="Log in").click()
    admin.locator(f"input.action-select[value='{listing.pk}']").check()
    admin.locator("select[name=action]").first.select_option("approve")
    admin.locator("button[name=index]").first.click()
    expect(admin.locator(".messagelist")).to_contain_text("Cottage by the river")
    listing.refresh_from_db()
    assert listing.status == PropertyStatus.AVAILABLE

    # the listing now appears in the anonymous search
    visitor.goto("/en/?q=cottage")
    assert card_titles(visitor) == ["Cottage by the river"]

    # a new customer registers, favorites it and requests a visit
    customer = customer_context.new_page()
    register(customer, name="Carl Customer", email="carl@example.com")
    customer.goto("/en/?q=cottage")
    customer.get_by_role("link", name="Cottage by the river").click()
    customer.get_by_role("button", name="Save to favorites").click()
    expect(customer.get_by_role("button", name="Saved to favorites")).to_be_visible()
    when = (timezone.now() + datetime.timedelta(days=3)).replace(
        hour=10, minute=30, second=0, microsecond=0
    )
    customer.get_by_label("Date and time (UTC)").fill(when.strftime("%Y-%m-%dT%H:%M"))
    customer.get_by_label("Message to the owner (optional)").fill("Saturday morning?")
    customer.get_by_role("button", name="Request a visit").click()
    expect(customer).to_have_url(re.compile(r"/en/me/visits/$"))
    expect(customer.locator("[data-testid=visit-status]")).to_have_text("Pending")
    assert Favorite.objects.filter(user__email="carl@example.com", property=listing).exists()
    visit = Appointment.objects.get(property=listing)
    assert (visit.date, visit.notes) == (when, "Saturday morning?")

    # the owner confirms the visit, and the customer sees it confirmed
    owner.get_by_role("link", name="Visit requests").click()
    owner.get_by_role("button", name="Confirm the visit of Cottage by the river").click()
    expect(owner.locator("[data-testid=visit-status]")).to_have_text("Confirmed")
    customer.goto("/en/me/visits/")
    expect(customer.locator("[data-testid=visit-status]")).to_have_text("Confirmed")
    expect(customer.get_by_test_id("notifications-link")).to_contain_text("1 unread")
    visit.refresh_from_db()
    assert visit.status == AppointmentStatus.CONFIRMED
