"""Template tags of the website's languages: the same page in each language (the language
switcher and the `<link rel="alternate" hreflang>` of every page's head)."""

from dataclasses import dataclass

from django import template
from django.conf import settings
from django.urls import translate_url
from django.utils import translation

register = template.Library()


@dataclass(frozen=True)
class LanguageVersion:
    """One language's version of the page being shown: its code, its name in that language,
    its path and its absolute URL, and whether it is the language being shown.

    Absolute URLs start with SITE_URL, the platform's public address, never with the
    request's Host header (the 400 page of a host that is not allowed shows them too)."""

    code: str
    name: str
    path: str
    url: str
    current: bool


def _unprefixed(path: str) -> str:
    """The path without its language prefix: the address that picks the visitor's language."""
    language = translation.get_language_from_path(path)
    if not language:
        return path
    return path.removeprefix(f"/{language}") or "/"


@register.simple_tag(takes_context=True)
def language_versions(context: template.Context) -> list[LanguageVersion]:
    """The page being shown in each of LANGUAGES; nothing when there is no request (the 500
    page is rendered without one)."""
    request = context.get("request")
    if request is None:
        return []
    path = request.get_full_path()
    shown = translation.get_language()
    path_language = translation.get_language_from_path(path)
    versions = []
    for code, name in settings.LANGUAGES:
        translated = translate_url(path, code)
        if translated == path and path_language and code != path_language:
            # A path that resolves to no page (a 404) keeps its own words: swap the prefix.
            translated = f"/{code}{path.removeprefix(f'/{path_language}')}"
        versions.append(
            LanguageVersion(
                code=code,
                name=name,
                path=translated,
                url=f"{settings.SITE_URL}{translated}",
                current=code == shown,
            )
        )
    return versions


@register.simple_tag(takes_context=True)
def language_neutral_url(context: template.Context) -> str:
    """The absolute URL of the page without a language prefix (hreflang x-default): it
    redirects each visitor to the language their browser asks for."""
    request = context.get("request")
    if request is None:
        return ""
    return f"{settings.SITE_URL}{_unprefixed(request.get_full_path())}"
