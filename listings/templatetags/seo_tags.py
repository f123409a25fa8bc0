"""Template filters of what the website's pages say to search engines and link previews."""

import json

from django import template
from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

# As django.utils.html.json_script escapes: no "</script>" or "<!--" can appear in the
# element, whatever a listing's title says; JSON readers decode them back.
SCRIPT_ESCAPES = {ord(">"): "\\u003E", ord("<"): "\\u003C", ord("&"): "\\u0026"}


@register.filter
def json_ld(data: dict) -> SafeString:
    """A <script type="application/ld+json"> element holding `data` (schema.org JSON-LD).

    Django's json_script writes type="application/json", which search engines do not
    read as structured data; the escaping is the same. A data block is never executed,
    so the site's Content-Security-Policy (script-src 'self') does not apply to it.
    """
    text = json.dumps(data, cls=DjangoJSONEncoder, ensure_ascii=False).translate(SCRIPT_ESCAPES)
    return format_html('<script type="application/ld+json">{}</script>', mark_safe(text))  # noqa: S308
