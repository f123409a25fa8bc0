"""What pages say to search engines and link previews: meta description, canonical address,
noindex on private pages, OpenGraph and Twitter cards, schema.org JSON-LD checked against
the schema.org vocabulary (tests/site/schema_org.py)."""

import html
import json
import re

import pytest
from django.urls import reverse

from listings.models import PropertyStatus
from listings.services import property_delete
from notifications.models import EmailTopic
from notifications.services import email_unsubscribe_url
from tests.factories import ImageFactory, TypeSpecificRecordFactory
from tests.site.conftest import house
from tests.site.schema_org import vocabulary_problems
from tests.site.test_listing_page import stored

pytestmark = pytest.mark.django_db

SITE = "https://estate.example"
JSON_LD = re.compile(r'<script type="application/ld\+json">(.*?)</script>', re.DOTALL)
META = re.compile(r'<meta (?:name|property)="([^"]+)" content="([^"]*)">')
CANONICAL = re.compile(r'<link rel="canonical" href="([^"]*)">')
NOINDEX = '<meta name="robots" content="noindex">'


@pytest.fixture(autouse=True)
def site(settings):
    settings.SITE_URL = SITE
    settings.CURRENCY = "EUR"


def head(response) -> str:
    assert response.status_code in (200, 404, 410), response.status_code
    return response.text.split("</head>")[0]


def metas(response) -> dict[str, str]:
    return {name: html.unescape(content) for name, content in META.findall(head(response))}


def canonical(response) -> list[str]:
    return [html.unescape(address) for address in CANONICAL.findall(head(response))]


def structured_data(response) -> list[dict]:
    return [json.loads(block) for block in JSON_LD.findall(response.text)]


def apartment():
    fields = {
        "title": "Ático con terraza",
        "description": "Bright attic with a large terrace. " * 10,
        "address": "Calle Larios 5",
        "municipality": "Málaga",
        "price": "325000.00",
        "latitude": 36.72,
        "longitude": -4.42,
        "area": "95.50",
        "status": PropertyStatus.AVAILABLE,
    }
    record = TypeSpecificRecordFactory(
        kind="apartment", **{f"property__{name}": value for name, value in fields.items()}
    )
    return record.property


def test_listing_page_has_its_description_canonical_address_and_share_cards(client):
    listing = apartment()
    copy = stored("p/t_1200.webp")
    photo = ImageFactory(property=listing, position=0, title="Terrace", thumbnails={"1200": copy})

    response = client.get(listing.get_absolute_url())

    address = f"{SITE}{listing.get_absolute_url()}"
    cover = f"{SITE}/media/{copy}"
    description = listing.description[:159] + "…"
    assert canonical(response) == [address]
    assert NOINDEX not in response.text
    assert metas(response) == {
        "viewport": "width=device-width, initial-scale=1",
        "description": description,
        "og:type": "website",
        "og:site_name": "Estate",
        "og:title": "Ático con terraza",
        "og:description": listing.description[:199] + "…",
        "og:url": address,
        "og:locale": "en_GB",
        "og:image": cover,
        "og:image:alt": "Terrace",
        "twitter:card": "summary_large_image",
        "twitter:title": "Ático con terraza",
        "twitter:description": listing.description[:199] + "…",
        "twitter:image": cover,
        "twitter:image:alt": "Terrace",
    }
    assert photo.title == "Terrace"


def test_listing_json_ld_is_a_real_estate_listing_in_schema_org_terms(client):
    listing = apartment()
    copy = stored("p/a_1200.webp")
    ImageFactory(property=listing, position=0, thumbnails={"1200": copy})
    record = listing.type_record

    [data] = structured_data(client.get(listing.get_absolute_url()))

    address = f"{SITE}{listing.get_absolute_url()}"
    assert data == {
        "@context": "https://schema.org",
        "@type": "RealEstateListing",
        "name": "Ático con terraza",
        "description": listing.description,
        "url": address,
        "datePosted": listing.created_at.isoformat(timespec="seconds"),
        "offers": {
            "@type": "Offer",
            "price": "325000.00",
            "priceCurrency": "EUR",
            "availability": "https://schema.org/InStock",
            "url": address,
        },
        "about": {
            "@type": "Apartment",
            "address": {
                "@type": "PostalAddress",
                "streetAddress": "Calle Larios 5",
                "addressLocality": "Málaga",
            },
            "geo": {"@type": "GeoCoordinates", "latitude": 36.72, "longitude": -4.42},
            "floorSize": {"@type": "QuantitativeValue", "value": 95.5, "unitCode": "MTK"},
            "numberOfRooms": record.rooms,
            "numberOfBedrooms": record.bedrooms,
            "numberOfBathroomsTotal": record.bathrooms,
        },
        "image": [f"{SITE}/media/{copy}"],
    }
    assert vocabulary_problems(data) == []


@pytest.mark.parametrize(
    ("status", "transaction_type", "availability"),
    [("SOLD", "SALE", "SoldOut"), ("RENTED", "RENT", "SoldOut")],
)
def test_a_closed_listings_offer_is_sold_out(client, status, transaction_type, availability):
    listing = house(status=status, transaction_type=transaction_type)

    [data] = structured_data(client.get(listing.get_absolute_url()))

    assert data["offers"]["availability"] == f"https://schema.org/{availability}"
    assert data["about"]["@type"] == "House"
    assert "image" not in data
    assert vocabulary_problems(data) == []


def test_a_title_cannot_end_the_json_ld_script(client):
    title = '</script><script>alert("x")</script><!--'
    listing = house(title=title)

    response = client.get(listing.get_absolute_url())

    [block] = JSON_LD.findall(response.text)
    assert "</script" not in block and "<!--" not in block
    assert json.loads(block)["name"] == title
    assert "<script>alert" not in response.text


def test_search_page_lists_its_results_as_an_item_list(client):
    listings = [house(title=f"House {number}") for number in range(14)]

    first = client.get(reverse("home"))
    second = client.get(reverse("home"), {"page": "2"})

    [page_one] = structured_data(first)
    [page_two] = structured_data(second)
    newest = sorted(listings, key=lambda listing: (listing.created_at, listing.pk), reverse=True)
    assert page_one["@type"] == "ItemList"
    assert page_one["numberOfItems"] == 12
    assert page_one["itemListElement"][0] == {
        "@type": "ListItem",
        "position": 1,
        "url": f"{SITE}{newest[0].get_absolute_url()}",
        "name": newest[0].title,
    }
    assert page_two["itemListElement"] == [
        {
            "@type": "ListItem",
            "position": 13 + offset,
            "url": f"{SITE}{listing.get_absolute_url()}",
            "name": listing.title,
        }
        for offset, listing in enumerate(newest[12:])
    ]
    assert vocabulary_problems(page_one) == []
    assert vocabulary_problems(page_two) == []


def test_search_page_describes_a_filtered_search_and_drops_the_order_from_its_address(client):
    house(municipality="Madrid", transaction_type="RENT")

    plain = client.get(reverse("home"))
    filtered = client.get(
        reverse("home"), {"type": "house", "transactionType": "RENT", "sort": "price"}
    )

    assert metas(plain)["description"].startswith("Houses, apartments, land")
    assert canonical(plain) == [f"{SITE}/en/"]
    assert metas(filtered)["description"] == (
        "Houses for rent: listings with photos, prices and a map."
    )
    assert canonical(filtered) == [f"{SITE}/en/?type=house&transactionType=RENT"]
    assert NOINDEX not in filtered.text


def test_private_pages_say_noindex_and_public_ones_do_not(client, customer, owner):
    listing = house(owner)
    public = [client.get(reverse("home")), client.get(listing.get_absolute_url())]
    anonymous = [
        client.get(reverse("accounts:login")),
        client.get(reverse("accounts:register")),
        client.get(reverse("accounts:password-reset")),
        client.get(
            email_unsubscribe_url(user=customer, topic=EmailTopic.ALERTS).removeprefix(SITE)
        ),
    ]
    client.force_login(customer)
    signed_in = [
        client.get(reverse(name))
        for name in (
            "favorites:list",
            "appointments:mine",
            "notifications:list",
            "notifications:saved-searches",
            "notifications:email-preferences",
            "accounts:profile",
        )
    ]
    client.force_login(owner)
    owner_area = [
        client.get(reverse("listings:owner-list")),
        client.get(reverse("listings:owner-edit", kwargs={"pk": listing.pk})),
        client.get(reverse("media:manage", kwargs={"pk": listing.pk})),
        client.get(reverse("appointments:incoming")),
    ]

    for response in public:
        assert response.status_code == 200
        assert NOINDEX not in response.text
    for response in anonymous + signed_in + owner_area:
        assert response.status_code == 200, response.request["PATH_INFO"]
        assert NOINDEX in head(response), response.request["PATH_INFO"]
        assert len(canonical(response)) == 1
        assert metas(response)["description"]


def test_error_pages_say_noindex_without_a_canonical_address(client, owner):
    hidden = house(status=PropertyStatus.PENDING)
    gone = house(owner)
    gone_address = gone.get_absolute_url()
    property_delete(property=gone, by=owner)

    for response in (client.get(hidden.get_absolute_url()), client.get(gone_address)):
        assert NOINDEX in head(response)
        assert canonical(response) == []
        assert metas(response)["description"]
