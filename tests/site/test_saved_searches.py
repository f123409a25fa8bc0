"""Saved searches on the website: "Save this search" on the results, and the page to open,
rename, change the frequency of, or delete each one."""

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from notifications.models import AlertFrequency, SavedSearch
from tests.factories import SavedSearchFactory
from tests.site.conftest import house

pytestmark = pytest.mark.django_db

SEARCH = "/en/?transactionType=RENT&type=apartment&municipality=Madrid&sort=price&page=2"


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def test_the_results_offer_to_save_the_search_with_a_name_that_says_it(customer_session):
    # given
    house(municipality="Madrid")

    # when
    page = customer_session.get(SEARCH).text

    # then the form carries the criteria without order or page, and a suggested name
    assert 'data-testid="save-search"' in page
    assert (
        'name="criteria" value="type=apartment&amp;transactionType=RENT&amp;municipality=Madrid"'
        in page
    )
    assert 'value="Apartments for rent in Madrid"' in page


def test_an_unfiltered_search_offers_no_saving(customer_session):
    # when
    page = customer_session.get("/en/?sort=price").text

    # then
    assert 'data-testid="save-search"' not in page


def test_a_visitor_is_asked_to_log_in_first(db):
    # when
    page = Client().get(SEARCH).text

    # then
    assert 'data-testid="save-search"' in page
    assert "to save this search" in page
    login = "/en/accounts/login/?next=/en/%3FtransactionType%3DRENT%26type%3Dapartment"
    assert f'href="{login}' in page
    assert 'name="criteria"' not in page


def test_a_customer_saves_the_search_of_the_page(customer_session, customer):
    # when
    response = customer_session.post(
        "/en/me/saved-searches/new/",
        {
            "criteria": "type=apartment&transactionType=RENT&municipality=Madrid",
            "name": "Rentals in Madrid",
            "frequency": "INSTANT",
            "next": SEARCH,
        },
    )

    # then
    assert response.status_code == 302
    assert response["Location"] == SEARCH
    saved_search = SavedSearch.objects.get()
    assert (saved_search.user_id, saved_search.name, saved_search.frequency) == (
        customer.id,
        "Rentals in Madrid",
        AlertFrequency.INSTANT,
    )
    assert saved_search.criteria == {
        "type": "apartment",
        "transactionType": "RENT",
        "municipality": "Madrid",
    }
    assert messages_of(response) == [
        "Search “Rentals in Madrid” saved: you will be alerted of new listings (as they appear)."
    ]


def test_refused_criteria_are_said_and_nothing_is_saved(customer_session):
    # when
    response = customer_session.post(
        "/en/me/saved-searches/new/",
        {"criteria": "minPrice=9&maxPrice=1", "name": "Odd", "frequency": "DAILY", "next": "/en/"},
    )

    # then
    assert response.status_code == 302
    assert SavedSearch.objects.count() == 0
    assert messages_of(response) == [
        "The search was not saved: minPrice: minPrice must not be greater than maxPrice."
    ]


def test_a_visitor_posting_is_sent_to_log_in_and_nothing_is_saved(db):
    # when
    response = Client().post(
        "/en/me/saved-searches/new/",
        {
            "criteria": "type=house",
            "name": "Houses",
            "frequency": "DAILY",
            "next": "/en/?type=house",
        },
    )

    # then
    assert response.status_code == 302
    assert response["Location"].startswith("/en/accounts/login/")
    assert SavedSearch.objects.count() == 0


def test_my_saved_searches_open_their_search_and_hide_others(
    customer_session, customer, django_assert_max_num_queries
):
    # given
    SavedSearchFactory(user=customer, name="Flats in Madrid", criteria={"municipality": "Madrid"})
    SavedSearchFactory(name="Someone else's", criteria={"type": "land"})

    # when
    with django_assert_max_num_queries(4):
        response = customer_session.get("/en/me/saved-searches/")

    # then
    page = response.text
    assert response.status_code == 200
    assert "Flats in Madrid" in page
    assert 'href="/en/?municipality=Madrid"' in page
    assert "Someone else" not in page


def test_a_customer_renames_and_pauses_a_saved_search(customer_session, customer):
    # given
    saved_search = SavedSearchFactory(user=customer, name="Old name")

    # when
    response = customer_session.post(
        f"/en/me/saved-searches/{saved_search.pk}/",
        {f"{saved_search.pk}-name": "New name", f"{saved_search.pk}-frequency": "PAUSED"},
    )

    # then
    assert response.status_code == 302
    saved_search.refresh_from_db()
    assert (saved_search.name, saved_search.frequency) == ("New name", AlertFrequency.PAUSED)


def test_a_customer_deletes_a_saved_search(customer_session, customer):
    # given
    saved_search = SavedSearchFactory(user=customer)
    kept = SavedSearchFactory(user=customer)

    # when
    response = customer_session.post(f"/en/me/saved-searches/{saved_search.pk}/delete/")

    # then
    assert response.status_code == 302
    assert list(SavedSearch.objects.values_list("pk", flat=True)) == [kept.pk]


@pytest.mark.parametrize("action", ["", "delete/"])
def test_someone_elses_saved_search_is_404_and_stays(customer_session, action):
    # given
    saved_search = SavedSearchFactory(name="Theirs", frequency=AlertFrequency.DAILY)

    # when
    response = customer_session.post(
        f"/en/me/saved-searches/{saved_search.pk}/{action}",
        {f"{saved_search.pk}-name": "Mine now", f"{saved_search.pk}-frequency": "PAUSED"},
    )

    # then
    assert response.status_code == 404
    saved_search.refresh_from_db()
    assert (saved_search.name, saved_search.frequency) == ("Theirs", AlertFrequency.DAILY)
