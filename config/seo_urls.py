"""Routes for crawlers at the root of the site, outside any language prefix (config.seo)."""

from django.urls import path

from config import seo

urlpatterns = [
    path("robots.txt", seo.robots_txt, name="robots"),
    path("sitemap.xml", seo.sitemap_index, name="sitemap"),
    path("sitemap-listings-<int:part>.xml", seo.sitemap_listings, name="sitemap-listings"),
    path("sitemap-<slug:section>.xml", seo.sitemap_section, name="sitemap-section"),
]
