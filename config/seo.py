"""What the website tells search engines: /robots.txt and the sitemap (listings.sitemap),
both at the root of the site outside any language prefix, as crawlers look for them; and
every page's canonical address and whether it may be indexed (page_meta).
"""

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from django.utils import translation
from django.views.decorators.http import require_GET

from listings import sitemap

XML = "application/xml; charset=utf-8"
# Private pages, by a route of each area: the whole first section of its path (after the
# language prefix) is kept from crawlers. /accounts/, /me/, /owner/, /visits/, /email/.
PRIVATE_AREAS = (
    ("accounts:profile", {}),
    ("favorites:list", {}),
    ("listings:owner-list", {}),
    ("appointments:reschedule", {"pk": "0"}),
    ("notifications:unsubscribe", {"token": "0"}),
)
# Private actions under a public section: the whole path, with its id as a wildcard.
PRIVATE_ACTIONS = (("favorites:toggle", "pk"), ("appointments:request", "pk"))
# Not pages of the website at all; never prefixed by a language.
UNPREFIXED = ("admin:index", "schema")


# Namespaces whose every page is private (signed-in areas, account pages, email
# preferences and unsubscribing, the owner's photos and videos); and the owner area's
# listing pages, named owner-*.
# OpenGraph names a locale with its territory.
OPENGRAPH_LOCALES = {"en": "en_GB", "es": "es_ES"}
PRIVATE_NAMESPACES = frozenset({"accounts", "favorites", "appointments", "notifications", "media"})


def page_is_private(request: HttpRequest) -> bool:
    """True for pages search engines must not index (their robots meta says noindex)."""
    match = request.resolver_match
    if match is None:
        return False
    if PRIVATE_NAMESPACES.intersection(match.namespaces):
        return True
    return "listings" in match.namespaces and (match.url_name or "").startswith("owner-")


def page_meta(request: HttpRequest) -> dict:
    """Context processor: the page's canonical address (the site's address and the path,
    without the query; a page may name its own) and `noindex_page` for private pages."""
    language = translation.get_language() or settings.LANGUAGE_CODE
    return {
        "canonical_url": f"{settings.SITE_URL}{request.path}",
        "noindex_page": page_is_private(request),
        "og_locale": OPENGRAPH_LOCALES.get(language, translation.to_locale(language)),
    }


def _section(path: str, prefix: str) -> str:
    """The first section of `path` after `prefix`: "/en/owner/listings/" -> "/en/owner/"."""
    return f"{prefix}{path[len(prefix) :].split('/')[0]}/"


def disallowed_paths() -> list[str]:
    """The paths robots.txt disallows, for every language's prefix (reverse() under each
    language, so they follow the URL configuration), without repeats."""
    paths: list[str] = []
    for name in UNPREFIXED:
        paths.append(_section(reverse(name), "/"))
    for code, _name in settings.LANGUAGES:
        with translation.override(code):
            prefix = reverse("home")
            for name, kwargs in PRIVATE_AREAS:
                paths.append(_section(reverse(name, kwargs=kwargs), prefix))
            for name, argument in PRIVATE_ACTIONS:
                paths.append(reverse(name, kwargs={argument: "0"}).replace("/0/", "/*/"))
    return list(dict.fromkeys(paths))


@require_GET
def robots_txt(request: HttpRequest) -> HttpResponse:
    """/robots.txt: every crawler, the private areas disallowed, and the sitemap index."""
    lines = ["User-agent: *", *(f"Disallow: {path}" for path in disallowed_paths())]
    lines += ["", f"Sitemap: {settings.SITE_URL}{reverse('sitemap')}", ""]
    return HttpResponse("\n".join(lines), content_type="text/plain; charset=utf-8")


def _section_url(name: str, part: int | None) -> str:
    if part is None:
        return reverse("sitemap-section", kwargs={"section": name})
    return reverse("sitemap-listings", kwargs={"part": part})


@require_GET
def sitemap_index(request: HttpRequest) -> StreamingHttpResponse:
    """/sitemap.xml: the index of the sitemap's parts."""
    return StreamingHttpResponse(sitemap.index_document(section_url=_section_url), content_type=XML)


@require_GET
def sitemap_section(request: HttpRequest, section: str) -> StreamingHttpResponse:
    """/sitemap-pages.xml: the pages that are not listings."""
    if section != "pages":
        raise Http404("No such sitemap section.")
    return StreamingHttpResponse(sitemap.pages_document(), content_type=XML)


@require_GET
def sitemap_listings(request: HttpRequest, part: int) -> StreamingHttpResponse:
    """/sitemap-listings-<n>.xml: one part of the public listings; 404 past the last."""
    if part < 1:
        raise Http404("Sitemap parts start at 1.")
    document = sitemap.listings_document(part=part)
    if document is None:
        raise Http404("No such sitemap part.")
    return StreamingHttpResponse(document, content_type=XML)
