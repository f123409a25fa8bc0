"""/robots.txt and the sitemap (config.seo, listings.sitemap), with and without language
prefixes in the website's addresses."""

import xml.etree.ElementTree as ElementTree

import pytest
from django.urls import reverse
from django.utils import translation

from listings import sitemap
from listings.models import PropertyStatus, listing_url
from tests.site.conftest import house

pytestmark = pytest.mark.django_db

SITE = "https://estate.example"
NAMESPACES = {
    "s": "http://www.sitemaps.org/schemas/sitemap/0.9",
    "x": "http://www.w3.org/1999/xhtml",
}


@pytest.fixture(autouse=True)
def site_url(settings):
    settings.SITE_URL = SITE


def xml_of(response) -> ElementTree.Element:
    assert response.status_code == 200
    assert response["Content-Type"] == "application/xml; charset=utf-8"
    # The document is the platform's own answer in a test, not untrusted input.
    return ElementTree.fromstring(b"".join(response.streaming_content))  # noqa: S314


def entries(document: ElementTree.Element) -> list[dict]:
    """Each <url>: its loc, lastmod and alternates {hreflang: href}."""
    return [
        {
            "loc": url.findtext("s:loc", namespaces=NAMESPACES),
            "lastmod": url.findtext("s:lastmod", namespaces=NAMESPACES),
            "alternates": {
                link.get("hreflang"): link.get("href")
                for link in url.findall("x:link", NAMESPACES)
                if link.get("rel") == "alternate"
            },
        }
        for url in document.findall("s:url", NAMESPACES)
    ]


def index_parts(client) -> list[str]:
    document = xml_of(client.get(reverse("sitemap")))
    assert document.tag == "{http://www.sitemaps.org/schemas/sitemap/0.9}sitemapindex"
    return [loc.text for loc in document.findall("s:sitemap/s:loc", NAMESPACES)]


def public_and_hidden():
    """Three public listings (one sold, one rented) and two hidden ones, by id."""
    public = [
        house(title="Casa con jardín"),
        house(title="Sold villa", status=PropertyStatus.SOLD),
        house(title="Rented flat", status=PropertyStatus.RENTED, transaction_type="RENT"),
    ]
    house(status=PropertyStatus.PENDING)
    house(status=PropertyStatus.SUSPENDED)
    return sorted(public, key=lambda listing: listing.pk)


def test_robots_txt_keeps_private_areas_out_and_names_the_sitemap(client):
    response = client.get("/robots.txt")

    assert response.status_code == 200
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    assert response.text.splitlines() == [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /api/",
        "Disallow: /en/accounts/",
        "Disallow: /en/me/",
        "Disallow: /en/owner/",
        "Disallow: /en/visits/",
        "Disallow: /en/email/",
        "Disallow: /en/listings/*/favorite/",
        "Disallow: /en/listings/*/visit/",
        "Disallow: /es/accounts/",
        "Disallow: /es/me/",
        "Disallow: /es/owner/",
        "Disallow: /es/visits/",
        "Disallow: /es/email/",
        "Disallow: /es/listings/*/favorite/",
        "Disallow: /es/listings/*/visit/",
        "",
        f"Sitemap: {SITE}/sitemap.xml",
    ]


def test_sitemap_lists_every_public_listing_once_with_its_canonical_address(
    client, django_assert_num_queries
):
    public = public_and_hidden()

    with django_assert_num_queries(1):
        parts = index_parts(client)
    with django_assert_num_queries(1):
        listed = entries(xml_of(client.get(reverse("sitemap-listings", kwargs={"part": 1}))))
    pages = entries(xml_of(client.get(reverse("sitemap-section", kwargs={"section": "pages"}))))

    assert parts == [f"{SITE}/sitemap-pages.xml", f"{SITE}/sitemap-listings-1.xml"]
    expected = []
    for listing in public:
        alternates = {language: addressed(listing, language) for language in ("en", "es")}
        lastmod = listing.updated_at.isoformat(timespec="seconds")
        expected += [
            {"loc": alternates[language], "lastmod": lastmod, "alternates": alternates}
            for language in ("en", "es")
        ]
    assert listed == expected
    assert expected[1]["loc"] == f"{SITE}/es/listings/{public[0].pk}/{public[0].slug}/"
    homes = {"en": f"{SITE}/en/", "es": f"{SITE}/es/"}
    assert pages == [
        {"loc": homes["en"], "lastmod": None, "alternates": homes},
        {"loc": homes["es"], "lastmod": None, "alternates": homes},
    ]


def addressed(listing, language: str) -> str:
    """A listing's canonical address in one language."""
    with translation.override(language):
        return f"{SITE}{listing_url(pk=listing.pk, slug=listing.slug)}"


def test_sitemap_splits_listings_into_parts_of_at_most_the_limit(client, monkeypatch):
    public = public_and_hidden()
    # two listings a part: each is listed once per language
    monkeypatch.setattr(sitemap, "URLS_PER_FILE", 4)

    parts = index_parts(client)
    first = entries(xml_of(client.get(reverse("sitemap-listings", kwargs={"part": 1}))))
    second = entries(xml_of(client.get(reverse("sitemap-listings", kwargs={"part": 2}))))
    past = client.get(reverse("sitemap-listings", kwargs={"part": 3}))
    zero = client.get(reverse("sitemap-listings", kwargs={"part": 0}))

    assert parts[1:] == [f"{SITE}/sitemap-listings-1.xml", f"{SITE}/sitemap-listings-2.xml"]
    assert [entry["loc"] for entry in first + second] == [
        addressed(listing, language) for listing in public for language in ("en", "es")
    ]
    assert (len(first), len(second)) == (4, 2)
    assert past.status_code == 404
    assert zero.status_code == 404


def test_an_empty_site_has_one_empty_listing_part(client):
    parts = index_parts(client)
    empty = entries(xml_of(client.get(reverse("sitemap-listings", kwargs={"part": 1}))))

    assert parts == [f"{SITE}/sitemap-pages.xml", f"{SITE}/sitemap-listings-1.xml"]
    assert empty == []
