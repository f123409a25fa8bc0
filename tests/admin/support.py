"""URLs and form-building helpers shared by the back-office tests."""

from django.contrib.messages import get_messages
from django.forms import NullBooleanSelect

LISTINGS_URL = "/admin/listings/property/"
CATEGORIES_URL = "/admin/listings/propertycategory/"
MODERATION_LOG_URL = "/admin/listings/moderationlog/"


def change_url(listing_id: str) -> str:
    return f"{LISTINGS_URL}{listing_id}/change/"


def messages_of(response) -> list[str]:
    """The texts of the messages the request queued, in order."""
    return [str(message) for message in get_messages(response.wsgi_request)]


def action_data(action: str, *ids: str, **extra: str) -> dict:
    """The POST body of the changelist's action form applied to these rows."""
    return {"action": action, "_selected_action": list(ids), "index": "0", **extra}


def _form_values(form, data: dict) -> None:
    for bound_field in form:
        value = bound_field.value()
        if isinstance(bound_field.field.widget, NullBooleanSelect):
            data[bound_field.html_name] = {True: "true", False: "false"}.get(value, "unknown")
        elif value is None or value is False:
            continue  # An unchecked checkbox or an empty value is simply not posted.
        else:
            data[bound_field.html_name] = "on" if value is True else str(value)


def change_form_data(client, url: str) -> dict:
    """The POST body the change page would send unchanged: the form and every inline."""
    response = client.get(url)
    assert response.status_code == 200
    data: dict = {}
    _form_values(response.context["adminform"].form, data)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        _form_values(formset.management_form, data)
        for form in formset.forms:
            _form_values(form, data)
    return data
