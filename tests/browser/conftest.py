"""Fixtures of the browser tests: Debian's headless Chromium, driven by Playwright, against
pytest-django's live server (docs/website.md).

Chromium is the system package (/usr/bin/chromium, installed by `make test`); Playwright's own
browser downloads are never used. Screenshots go to artifacts/screenshots/.
"""

import io
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from django.core.cache import cache
from PIL import Image as PillowImage
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

ASYNC_UNSAFE = "DJANGO_ALLOW_ASYNC_UNSAFE"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]
SCREENSHOTS = Path(django_settings.BASE_DIR) / "artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 375, "height": 812}
# Long enough for a first page load on a busy CI machine, short enough to fail fast.
TIMEOUT_MS = 15_000


@pytest.fixture(scope="package")
def browser() -> Iterator[Browser]:
    """One headless Chromium for the browser tests.

    Playwright's sync API keeps an event loop on the test's thread while it runs; Django
    would then refuse the database calls the tests make themselves (fixtures, assertions)
    as if they came from async code. They do not: the test thread is synchronous. So
    DJANGO_ALLOW_ASYNC_UNSAFE is set while the browser runs, for these tests only.
    """
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make chromium` installs it (make test does).")
    previous = os.environ.get(ASYNC_UNSAFE)
    os.environ[ASYNC_UNSAFE] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop(ASYNC_UNSAFE, None)
        else:
            os.environ[ASYNC_UNSAFE] = previous


@pytest.fixture(autouse=True)
def site(settings, tmp_path, transactional_db, live_server):
    """Every browser test: the live server with local media, a private media folder, an
    empty cache (sign-in rate limits), and a blank map background (no tile server)."""
    settings.ROOT_URLCONF = "tests.browser.urls"
    settings.MEDIA_ROOT = tmp_path / "media"
    settings.MAP_TILE_URL = ""
    cache.clear()
    yield live_server
    cache.clear()


@pytest.fixture
def new_context(browser, live_server) -> Iterator[Callable[..., BrowserContext]]:
    """Open browser contexts (one per person) on the live server; all closed at the end."""
    contexts: list[BrowserContext] = []
    # What the browser refused under the Content-Security-Policy: a page the policy breaks.
    refused: list[str] = []

    def note_refusal(message) -> None:
        if "Content Security Policy" in message.text:
            refused.append(message.text)

    def open_context(viewport: dict[str, int] = DESKTOP, **options) -> BrowserContext:
        context = browser.new_context(base_url=live_server.url, viewport=viewport, **options)
        context.set_default_timeout(TIMEOUT_MS)
        context.on("console", note_refusal)
        contexts.append(context)
        return context

    yield open_context
    for context in contexts:
        context.close()
    assert refused == []


@pytest.fixture
def screenshot(new_context) -> Callable[..., None]:
    """Save a full-page screenshot of a path at desktop and phone widths, as someone signed
    in (`storage_state` of their context) or anonymous."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def take(path: str, name: str, storage_state=None) -> None:
        for width_name, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
            page = new_context(viewport, storage_state=storage_state).new_page()
            page.goto(path)
            wait_for_images(page)
            page.screenshot(path=SCREENSHOTS / f"{name}-{width_name}.png", full_page=True)
            page.close()

    return take


def wait_for_images(page: Page) -> None:
    """Scroll every image into view (they load lazily) and wait until each has loaded."""
    for image in page.locator("main img").all():
        image.scroll_into_view_if_needed()
    page.wait_for_function(
        "() => [...document.querySelectorAll('main img')]"
        ".every(image => image.complete && image.naturalWidth > 0)"
    )
    page.evaluate("() => window.scrollTo(0, 0)")


def jpeg_file(directory: Path, name: str, colour: str, size=(1600, 1200)) -> Path:
    """A real JPEG photo on disk, for an upload field."""
    path = directory / name
    buffer = io.BytesIO()
    PillowImage.new("RGB", size, colour).save(buffer, "JPEG", quality=85)
    path.write_bytes(buffer.getvalue())
    return path
