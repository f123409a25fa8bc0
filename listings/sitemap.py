"""The sitemap of the website: an index at /sitemap.xml and its parts, written by hand.

Layout (sitemaps.org protocol, with Google's `xhtml:link` alternates):

- `/sitemap.xml`: the index. It names `/sitemap-pages.xml` and `/sitemap-listings-<n>.xml`
  for n = 1 .. ceil(public listings / LISTINGS_PER_PART); no <lastmod> (finding the latest
  change would read every listing).
- `/sitemap-pages.xml`: the home and search page.
- `/sitemap-listings-<n>.xml`: public listings (listings.selectors.property_visible_to of
  a visitor: AVAILABLE, SOLD, RENTED) in id order, from (n - 1) * LISTINGS_PER_PART on,
  each with its <lastmod> (updated_at).

With the website's languages in its URLs (/en/..., /es/...), each page is one <url> per
language, each listing the other languages' addresses as `<xhtml:link rel="alternate"
hreflang>`, so a part holds 50,000 // languages listings and stays within the protocol's
50,000 URLs. Without language prefixes (every language reverses to the same path) each page
is one <url>, without alternates.

Fast at 1,000,000 listings (docs/performance.md, "Sitemap"): the index counts public
listings and a part reads its (id, slug, updated_at) from the partial index
listings_prop_pub_sitemap_idx alone, the deepest offset skipping index entries, not table
rows (index 0.1 s, a part of 25,000 listings 0.3 to 0.5 s from a cold cache, against 17 s
and 8 to 10 s with django.contrib.sitemaps). No reverse() and no template per URL:
`Addresses` reverses a placeholder listing once per language and joins strings.

How it stays correct: the addresses come from the same route (`listings:detail`, by
reverse()), so they follow the URL configuration and its language prefixes; a test checks
every written <loc> against listings.models.listing_url for each language. Ids are cuid2
(lower-case letters and digits) and slugs SlugField values, and are escaped all the same,
like the site's address, with xml.sax.saxutils, so the XML is well-formed whatever the data.
"""

import math
from collections.abc import Iterator
from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from django.conf import settings
from django.urls import reverse
from django.utils import translation

from listings import selectors

# The protocol's limit of URLs in one sitemap file.
URLS_PER_FILE = 50_000
# Placeholders of the one listing address reversed per language; both fit the route's
# patterns and appear nowhere else in it.
ID_PLACEHOLDER = "0idplaceholder0"
SLUG_PLACEHOLDER = "0slugplaceholder0"
# Listings written per chunk of a streamed part.
CHUNK = 1_000

HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n'
URLSET = (
    '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" '
    'xmlns:xhtml="http://www.w3.org/1999/xhtml">\n'
)


@dataclass(frozen=True)
class LanguageAddresses:
    """How one language writes a listing's address: `start` + id + `middle` + slug + `end`
    (absolute, XML-escaped), and its home page."""

    code: str
    start: str
    middle: str
    end: str
    home: str

    def listing(self, pk: str, slug: str) -> str:
        return f"{self.start}{escape(pk)}{self.middle}{escape(slug)}{self.end}"


def language_addresses() -> list[LanguageAddresses]:
    """One entry per language with its own addresses (settings.LANGUAGES order); a single
    entry when every language reverses to the same paths (no language prefixes)."""
    found: list[LanguageAddresses] = []
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            path = reverse(
                "listings:detail", kwargs={"pk": ID_PLACEHOLDER, "slug": SLUG_PLACEHOLDER}
            )
            home = reverse("home")
        start, rest = path.split(ID_PLACEHOLDER)
        middle, end = rest.split(SLUG_PLACEHOLDER)
        site = settings.SITE_URL
        entry = LanguageAddresses(
            code=code,
            start=escape(f"{site}{start}"),
            middle=escape(middle),
            end=escape(end),
            home=escape(f"{site}{home}"),
        )
        if any(
            (other.start, other.middle, other.end) == (entry.start, entry.middle, entry.end)
            for other in found
        ):
            continue
        found.append(entry)
    return found


def listings_per_part(languages: int) -> int:
    """Listings in one part: its URLs (one per language and listing) stay within 50,000."""
    return URLS_PER_FILE // max(languages, 1)


def part_count() -> int:
    """How many listing parts the index names (at least one, empty when there is none)."""
    per_part = listings_per_part(len(language_addresses()))
    return max(1, math.ceil(selectors.public_listing_count() / per_part))


def index_document(*, section_url) -> Iterator[str]:
    """The sitemap index: the pages' part, then each listing part. `section_url(name,
    part)` gives a part's path (reverse() of its route)."""
    site = settings.SITE_URL
    yield HEADER
    yield '<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n'
    yield f"<sitemap><loc>{escape(site + section_url('pages', None))}</loc></sitemap>\n"
    for part in range(1, part_count() + 1):
        yield f"<sitemap><loc>{escape(site + section_url('listings', part))}</loc></sitemap>\n"
    yield "</sitemapindex>\n"


def _alternates(addresses: list[str], languages: list[LanguageAddresses]) -> str:
    if len(languages) < 2:
        return ""
    return "".join(
        f'<xhtml:link rel="alternate" hreflang={quoteattr(language.code)} href="{address}"/>'
        for language, address in zip(languages, addresses, strict=True)
    )


def pages_document() -> Iterator[str]:
    """The part of the pages that are not listings: the home and search page."""
    languages = language_addresses()
    homes = [language.home for language in languages]
    alternates = _alternates(homes, languages)
    yield HEADER
    yield URLSET
    for home in homes:
        yield f"<url><loc>{home}</loc>{alternates}</url>\n"
    yield "</urlset>\n"


def listings_document(*, part: int) -> Iterator[str] | None:
    """Listing part `part` (from 1), streamed in chunks; None past the last part."""
    languages = language_addresses()
    per_part = listings_per_part(len(languages))
    rows = selectors.public_listing_addresses(offset=(part - 1) * per_part, limit=per_part)
    if not rows and part > 1:
        return None
    return _listing_chunks(rows, languages)


def _listing_chunks(rows, languages: list[LanguageAddresses]) -> Iterator[str]:
    yield HEADER
    yield URLSET
    for start in range(0, len(rows), CHUNK):
        entries = []
        for pk, slug, updated_at in rows[start : start + CHUNK]:
            addresses = [language.listing(pk, slug) for language in languages]
            alternates = _alternates(addresses, languages)
            lastmod = updated_at.isoformat(timespec="seconds")
            entries.extend(
                f"<url><loc>{address}</loc><lastmod>{lastmod}</lastmod>{alternates}</url>\n"
                for address in addresses
            )
        yield "".join(entries)
    yield "</urlset>\n"
