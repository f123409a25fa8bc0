"""JSON rendering by orjson for bodies whose keys are already the API's camelCase.

The default renderer (djangorestframework-camel-case) walks every body to rename its keys;
views whose bodies are built with camelCase keys directly (the API's hottest reads) skip
that walk and DRF's encoder (CamelCasedActionsMixin; docs/performance.md).
"""

from rest_framework.renderers import BaseRenderer

from config.json import json_bytes


class CamelCasedJSONRenderer(BaseRenderer):
    """application/json by orjson; datetimes in UTC end in Z, as everywhere in the API (D3)."""

    media_type = "application/json"
    format = "json"
    charset = None

    def render(self, data, accepted_media_type=None, renderer_context=None) -> bytes:
        if data is None:
            return b""
        return json_bytes(data)


class CamelCasedActionsMixin:
    """For viewsets whose `camel_cased_actions` build their bodies with camelCase keys
    themselves (rows shaped without serializers): their JSON goes out through
    CamelCasedJSONRenderer as it is; the other formats (the browsable API) are unchanged."""

    camel_cased_actions: tuple[str, ...] = ("list",)

    def get_renderers(self):
        renderers = super().get_renderers()
        if self.action not in self.camel_cased_actions:
            return renderers
        return [
            CamelCasedJSONRenderer() if renderer.format == "json" else renderer
            for renderer in renderers
        ]
