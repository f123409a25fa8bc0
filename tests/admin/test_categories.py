"""Categories in the back office (D14, D15): managed through the category services."""

import pytest

from listings.admin import PropertyCategoryAdmin
from listings.models import PropertyCategory
from listings.services import CATEGORY_IN_USE
from tests.admin.support import CATEGORIES_URL, messages_of
from tests.factories import CategoryFactory, ListingFactory

pytestmark = pytest.mark.django_db

REFUSAL = f"“Residential”: {CATEGORY_IN_USE}"


@pytest.fixture
def used_category():
    category = CategoryFactory(name="Residential")
    ListingFactory(category=category)
    ListingFactory(category=category)
    return category


def test_deleting_a_used_category_is_refused_on_its_delete_page(back_office, used_category):
    url = f"{CATEGORIES_URL}{used_category.pk}/delete/"

    # when the delete page is opened
    page = back_office.get(url)

    # then it says why the category cannot go
    assert page.status_code == 200
    assert page.context["title"] == "Cannot delete property category"
    assert page.context["protected"] == ["Residential: used by 2 listings"]
    assert messages_of(page) == [REFUSAL]

    # when the deletion is confirmed anyway
    response = back_office.post(url, {"post": "yes"})

    # then it is refused again and the category is kept
    assert response.status_code == 200
    assert messages_of(response) == [REFUSAL]
    assert PropertyCategory.objects.filter(pk=used_category.pk).exists()


def test_the_bulk_delete_action_reports_a_used_category_and_keeps_it(back_office, used_category):
    # given an unused category selected with the used one
    unused = CategoryFactory(name="Parking")

    # when both are deleted with the bulk action, confirmed
    response = back_office.post(
        CATEGORIES_URL,
        {
            "action": "delete_selected",
            "_selected_action": [used_category.pk, unused.pk],
            "post": "yes",
        },
    )

    # then nothing is deleted and the refusal is shown
    assert response.status_code == 200
    assert response.context["protected"] == ["Residential: used by 2 listings"]
    assert messages_of(response) == [REFUSAL]
    assert set(PropertyCategory.objects.values_list("name", flat=True)) == {
        "Residential",
        "Parking",
    }


def test_a_category_used_since_the_confirmation_is_refused_by_the_service(
    back_office, used_category, monkeypatch
):
    # given a confirmation page that saw no listing (one was filed under it meanwhile)
    monkeypatch.setattr(
        PropertyCategoryAdmin,
        "get_deleted_objects",
        lambda self, objs, request: ([], {}, set(), []),
    )
    url = f"{CATEGORIES_URL}{used_category.pk}/delete/"

    # when the deletion is confirmed
    response = back_office.post(url, {"post": "yes"})

    # then the service's refusal is shown on the category's page and it is kept
    assert response.status_code == 302
    assert response["Location"] == f"{CATEGORIES_URL}{used_category.pk}/change/"
    assert messages_of(response) == [CATEGORY_IN_USE]
    assert PropertyCategory.objects.filter(pk=used_category.pk).exists()


def test_an_unused_category_is_deleted(back_office):
    category = CategoryFactory(name="Parking")

    response = back_office.post(f"{CATEGORIES_URL}{category.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not PropertyCategory.objects.filter(pk=category.pk).exists()


def test_categories_are_added_and_renamed_through_the_services(back_office):
    # when a category is added
    response = back_office.post(
        f"{CATEGORIES_URL}add/", {"name": "Lofts", "description": "Open plan."}
    )

    # then
    assert response.status_code == 302
    category = PropertyCategory.objects.get()
    assert (category.name, category.description) == ("Lofts", "Open plan.")

    # when a second one takes the same name in another case
    response = back_office.post(f"{CATEGORIES_URL}add/", {"name": "LOFTS", "description": ""})

    # then the service refuses it (names are unique whatever their case); the first
    # request's message, never displayed, is still queued before it
    assert response.status_code == 302
    assert messages_of(response)[1:] == ["A category with this name already exists."]
    assert PropertyCategory.objects.count() == 1

    # when the first is renamed
    response = back_office.post(
        f"{CATEGORIES_URL}{category.pk}/change/", {"name": "Loft", "description": "Open."}
    )

    # then
    assert response.status_code == 302
    category.refresh_from_db()
    assert (category.name, category.description) == ("Loft", "Open.")


def test_the_changelist_counts_the_listings_of_each_category(back_office, used_category):
    CategoryFactory(name="Parking")

    response = back_office.get(CATEGORIES_URL)

    assert [(row.name, row.listing_count) for row in response.context["cl"].result_list] == [
        ("Parking", 0),
        ("Residential", 2),
    ]
