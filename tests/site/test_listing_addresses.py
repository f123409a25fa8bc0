"""A listing's address: the canonical one with its slug, 301s to it, and what a listing that
left the market (sold, rented, hidden, deleted) answers there."""

from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import translation

from listings.models import DeletedListing, Property, PropertyStatus, listing_slug, listing_url
from listings.services import property_create, property_delete, property_update, type_record_create
from tests.factories import RECORD_VALUES
from tests.site.conftest import house

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("title", "kind", "slug"),
    [
        ("Ático luminoso en Málaga", "apartment", "atico-luminoso-en-malaga"),
        ("  Piso   3 dormitorios, ¡con piscina!  ", None, "piso-3-dormitorios-con-piscina"),
        ("Façade 'N' Čapek—Øresund", None, "facade-n-capekresund"),
        ("東京の家", "house", "house"),
        ("!!!", "commercial", "commercial-premises"),
        ("!!!", None, "listing"),
        ("Visit", None, "visit-listing"),
        ("favorite", "house", "favorite-listing"),
    ],
)
def test_slug_is_the_title_in_ascii_words_with_a_fallback(title, kind, slug):
    assert listing_slug(title=title, kind=kind) == slug


def test_a_long_title_is_cut_between_words():
    title = "Villa " + " ".join(["wonderful"] * 30)

    slug = listing_slug(title=title, kind=None)

    assert len(slug) <= 80
    assert slug.startswith("villa-wonderful-wonderful")
    assert slug.endswith("-wonderful")


def test_the_canonical_address_carries_the_slug_and_shows_the_page(client):
    listing = house(title="Casa con jardín")

    response = client.get(listing.get_absolute_url())

    assert listing.get_absolute_url() == reverse(
        "listings:detail", kwargs={"pk": listing.pk, "slug": "casa-con-jardin"}
    )
    assert listing.get_absolute_url() == listing_url(pk=listing.pk, slug=listing.slug)
    assert response.status_code == 200
    assert "<h1>Casa con jardín</h1>" in response.text


def test_the_short_address_and_a_wrong_slug_answer_301_to_the_canonical_one(client):
    listing = house(title="Casa con jardín")
    canonical = listing.get_absolute_url()

    short = client.get(listing_url(pk=listing.pk))
    wrong = client.get(listing_url(pk=listing.pk, slug="old-title"), {"photo": "2"})

    assert short.status_code == 301
    assert short["Location"] == canonical
    assert wrong.status_code == 301
    assert wrong["Location"] == f"{canonical}?photo=2"


def test_an_address_from_before_the_language_prefixes_answers_one_301(client):
    listing = house(title="Casa con jardín")
    with translation.override("es"):
        spanish = listing.get_absolute_url()

    english = client.get(f"/listings/{listing.pk}/")
    chosen = client.get(f"/listings/{listing.pk}/", headers={"accept-language": "es"})
    unknown = client.get("/listings/zzzzzzzzzzzzzzzzzzzzzzzzz/")

    assert (english.status_code, english["Location"]) == (301, listing.get_absolute_url())
    assert (chosen.status_code, chosen["Location"]) == (301, spanish)
    assert spanish == f"/es/listings/{listing.pk}/casa-con-jardin/"
    # an unknown id is left to the language's redirect, to its prefixed address, a 404
    assert (unknown.status_code, unknown["Location"]) == (
        302,
        "/en/listings/zzzzzzzzzzzzzzzzzzzzzzzzz/",
    )


def test_a_title_that_reads_like_a_listing_route_still_has_its_page(client):
    listing = house(title="Visit")

    response = client.get(listing.get_absolute_url())

    assert listing.slug == "visit-listing"
    assert response.status_code == 200


def test_the_services_keep_the_slug_with_the_title_and_the_kind(owner, category):
    listing = property_create(
        by=owner,
        title="!!!",
        description="A place.",
        price=Decimal("100000"),
        latitude=40.0,
        longitude=-3.0,
        transaction_type="SALE",
        municipality="Madrid",
        address="1 Gran Via",
        area=Decimal("80"),
        category=category,
    )
    assert listing.slug == "listing"

    type_record_create(property=listing, by=owner, kind="house", values=RECORD_VALUES["house"])
    assert Property.objects.get(pk=listing.pk).slug == "house"

    property_update(
        property=Property.objects.get(pk=listing.pk), by=owner, changes={"title": "Casa Ñandú"}
    )
    assert Property.objects.get(pk=listing.pk).slug == "casa-nandu"


def test_a_hidden_listing_is_404_at_any_address_without_telling_its_slug(client, owner):
    pending = house(owner, title="Secret house", status=PropertyStatus.PENDING)

    short = client.get(listing_url(pk=pending.pk))
    canonical = client.get(pending.get_absolute_url())
    client.force_login(owner)
    own = client.get(pending.get_absolute_url())

    assert short.status_code == 404
    assert canonical.status_code == 404
    assert "secret-house" not in short.text
    assert own.status_code == 200


@pytest.mark.parametrize(
    ("status", "transaction_type", "banner"),
    [("SOLD", "SALE", "Sold."), ("RENTED", "RENT", "Rented.")],
)
def test_a_sold_or_rented_listing_keeps_its_page_with_a_banner(
    client, status, transaction_type, banner
):
    listing = house(status=status, transaction_type=transaction_type)

    response = client.get(listing.get_absolute_url())

    assert response.status_code == 200
    page = response.text
    closed = page.split('data-testid="closed-banner"')[1].split("</p>")[0]
    assert f"<strong>{banner}</strong>" in closed


def test_an_available_listing_has_no_banner(client):
    response = client.get(house().get_absolute_url())

    assert response.status_code == 200
    assert 'data-testid="closed-banner"' not in response.text


def test_a_deleted_listing_is_410_gone_and_an_unknown_one_404(client, owner):
    listing = house(owner, title="Gone house")
    deleted_id = listing.pk
    addresses = [listing.get_absolute_url(), listing_url(pk=listing.pk)]
    property_delete(property=listing, by=owner)

    gone = [client.get(address) for address in addresses]
    unknown = client.get(listing_url(pk="zzzzzzzzzzzzzzzzzzzzzzzzz"))

    assert [response.status_code for response in gone] == [410, 410]
    assert "This listing was removed" in gone[0].text
    assert list(DeletedListing.objects.values_list("pk", flat=True)) == [deleted_id]
    assert unknown.status_code == 404
