"""GET /places: towns to search in, from the first letters of their name (listings.places)."""

import random
import unicodedata

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from listings import places, services
from listings.models import HIDDEN_STATUSES, Property, PropertyStatus
from tests.factories import ListingFactory
from tests.properties.support import PROPERTIES_URL, assert_validation_error

pytestmark = pytest.mark.django_db

PLACES_URL = "/api/v1/places"


def suggested(client, text: str, **query) -> list[dict]:
    response = client.get(PLACES_URL, {"q": text, **query})
    assert response.status_code == 200, response.content
    assert set(response.json()) == {"places"}
    return response.json()["places"]


def listings_in(*towns: str, status: str = PropertyStatus.AVAILABLE) -> None:
    for town in towns:
        ListingFactory(municipality=town, status=status)


# --- A reference, written straight from the rule ----------------------------------------


def plain(text: str) -> str:
    """Without accents, lowercased."""
    return "".join(
        letter
        for letter in unicodedata.normalize("NFD", text)
        if unicodedata.category(letter) != "Mn"
    ).lower()


def one_edit(first: str, second: str) -> bool:
    """Whether one letter changed, added or removed makes `first` into `second`."""
    if first == second:
        return True
    if len(first) == len(second):
        return sum(a != b for a, b in zip(first, second, strict=True)) == 1
    shorter, longer = sorted((first, second), key=len)
    if len(longer) - len(shorter) != 1:
        return False
    return any(longer[:cut] + longer[cut + 1 :] == shorter for cut in range(len(longer)))


def expected_places(text: str, limit: int = 10) -> list[dict]:
    """The suggestions recomputed from the listings: public ones, by LOWER(municipality),
    named as the oldest spells it; starting with the text first, then one letter away
    after the first (from four letters), most listings first, then by name."""
    towns: dict[str, list] = {}
    public = Property.objects.exclude(status__in=HIDDEN_STATUSES).order_by("created_at", "id")
    for municipality in public.values_list("municipality", flat=True):
        towns.setdefault(municipality.lower(), [municipality, 0])[1] += 1
    typed = plain(" ".join(text.split()))
    ranked = []
    for name, count in towns.values():
        if plain(name).startswith(typed):
            ranked.append((0, -count, name))
        elif (
            len(typed) >= 4
            and plain(name)[0] == typed[0]
            and any(
                one_edit(typed, plain(name)[:length])
                for length in (len(typed) - 1, len(typed), len(typed) + 1)
            )
        ):
            ranked.append((1, -count, name))
    return [{"name": name, "listings": -count} for _, count, name in sorted(ranked)[:limit]]


# --- Behaviour --------------------------------------------------------------------------


def test_towns_are_suggested_from_their_first_letters_accents_and_case_aside(
    anonymous_client,
):
    # given public listings in four towns, and one waiting for approval
    listings_in("Málaga", "Málaga", "Madrid", "Madrid", "Madrid", "Mallorca", "Segovia")
    listings_in("Marbella", status=PropertyStatus.PENDING)

    # then typing without accents, in capitals or with extra spaces finds them
    assert suggested(anonymous_client, "ma") == [
        {"name": "Madrid", "listings": 3},
        {"name": "Málaga", "listings": 2},
        {"name": "Mallorca", "listings": 1},
    ]
    assert suggested(anonymous_client, "  MALAG ") == [{"name": "Málaga", "listings": 2}]
    assert suggested(anonymous_client, "mál") == [
        {"name": "Málaga", "listings": 2},
        {"name": "Mallorca", "listings": 1},
    ]
    assert suggested(anonymous_client, "mar") == []


def test_one_wrong_missing_or_extra_letter_is_forgiven_from_four_letters(anonymous_client):
    listings_in("Barcelona", "Barcelona", "Badajoz", "Burgos", "Cáceres")

    assert suggested(anonymous_client, "barcelna") == [{"name": "Barcelona", "listings": 2}]
    assert suggested(anonymous_client, "brcel") == [{"name": "Barcelona", "listings": 2}]
    assert suggested(anonymous_client, "barrce") == [{"name": "Barcelona", "listings": 2}]
    assert suggested(anonymous_client, "bxrc") == [{"name": "Barcelona", "listings": 2}]
    assert suggested(anonymous_client, "caceras") == [{"name": "Cáceres", "listings": 1}]
    # Two letters wrong, a wrong one in fewer than four, or a wrong first letter: nothing.
    assert suggested(anonymous_client, "bxrxel") == []
    assert suggested(anonymous_client, "bxr") == []
    assert suggested(anonymous_client, "varcelona") == []
    assert suggested(anonymous_client, "arcelona") == []


def test_towns_that_start_with_the_text_come_before_those_one_letter_away(anonymous_client):
    # given a town one letter from "sala" with more listings than the one starting with it
    listings_in("Salamanca", "Sala", "Sala", "Sala")
    listings_in("Salou")

    # then the town starting with the text comes first
    assert suggested(anonymous_client, "salam") == [
        {"name": "Salamanca", "listings": 1},
        {"name": "Sala", "listings": 3},
    ]
    assert suggested(anonymous_client, "salo") == [
        {"name": "Salou", "listings": 1},
        {"name": "Sala", "listings": 3},
        {"name": "Salamanca", "listings": 1},
    ]


def test_a_text_that_unfolds_longer_than_any_name_finds_nothing(anonymous_client):
    # given a town, and a text of 120 characters that each unfold into 18 letters
    listings_in("Madrid")

    # then it is answered, with nothing
    assert suggested(anonymous_client, "\ufdfa" * 120) == []


def test_like_wildcards_in_the_text_are_letters(anonymous_client):
    listings_in("Madrid", "Mas_de_Barberans")

    assert suggested(anonymous_client, "%") == []
    assert suggested(anonymous_client, "m_d") == []
    assert suggested(anonymous_client, "mas_") == [{"name": "Mas_de_Barberans", "listings": 1}]


def test_limit_keeps_the_first_suggestions(anonymous_client):
    listings_in("Alcalá", "Alcalá", "Alcorcón", "Almería", "Almería", "Almería")

    assert suggested(anonymous_client, "al", limit=2) == [
        {"name": "Almería", "listings": 3},
        {"name": "Alcalá", "listings": 2},
    ]


def test_a_suggestions_count_is_the_total_of_a_search_for_its_name(anonymous_client):
    # given one town written in several ways, and a hidden listing in it
    listings_in("Ávila", "ÁVILA", "ávila")
    listings_in("Ávila", status=PropertyStatus.SUSPENDED)

    # when it is suggested and then searched for
    [place] = suggested(anonymous_client, "avi")
    response = anonymous_client.get(PROPERTIES_URL, {"municipality": place["name"]})

    # then the search finds as many listings as the suggestion said, named as the oldest
    assert place == {"name": "Ávila", "listings": 3}
    assert response.json()["totalItems"] == 3


def test_places_follow_every_kind_of_write_to_listings(anonymous_client, admin):
    # given listings in three towns
    first, second, third = (ListingFactory(municipality=town) for town in ("Toledo",) * 3)
    cuenca = ListingFactory(municipality="Cuenca")
    pending = ListingFactory(municipality="Teruel", status=PropertyStatus.PENDING)
    assert suggested(anonymous_client, "t") == [{"name": "Toledo", "listings": 3}]

    # when they are moved, hidden, approved, changed in bulk and deleted
    services.property_update(property=first, by=admin, changes={"municipality": "Talavera"})
    services.property_change_status(
        property=second, by=admin, status=PropertyStatus.SUSPENDED, reason="Checking"
    )
    services.property_change_status(property=pending, by=admin, status=PropertyStatus.AVAILABLE)
    Property.objects.filter(pk=third.pk).update(municipality="Teruel")
    services.property_delete(property=cuenca, by=admin)

    # then the suggestions are the listings' own
    assert suggested(anonymous_client, "t") == [
        {"name": "Teruel", "listings": 2},
        {"name": "Talavera", "listings": 1},
    ]
    assert suggested(anonymous_client, "cuen") == []
    assert suggested(anonymous_client, "t") == expected_places("t")


def test_places_follow_the_bulk_seeders_copy(anonymous_client, bulk_loaded):
    for text in ("a", "m", "s", "val", "bar", "zar"):
        assert suggested(anonymous_client, text, limit=20) == expected_places(text, 20)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_suggestions_equal_the_reference_on_generated_towns(anonymous_client, seed):
    # given towns with accents and capitals, written in several ways, in several statuses
    rng = random.Random(seed)
    towns = ["Málaga", "Mallorca", "Madrid", "Móstoles", "Marbella", "Mataró", "Manresa"]
    towns += ["Alcalá de Henares", "Alcorcón", "Almería", "Ávila", "Avilés", "Salamanca"]
    statuses = [PropertyStatus.AVAILABLE] * 4
    statuses += [PropertyStatus.PENDING, PropertyStatus.SOLD, PropertyStatus.RENTED]
    for _ in range(60):
        town = rng.choice(towns)
        town = rng.choice([town, town.upper(), town.lower()])
        ListingFactory(municipality=town, status=rng.choice(statuses))

    # when texts are typed: prefixes, without accents, and with a letter wrong or missing
    texts = []
    for _ in range(40):
        name = plain(rng.choice(towns))
        text = name[: rng.randint(1, len(name))]
        if len(text) >= 4 and rng.random() < 0.5:
            cut = rng.randrange(len(text))
            text = text[:cut] + rng.choice(["", "x", "e"]) + text[cut + 1 :]
        texts.append(text)

    # then every answer is the reference's
    for text in texts:
        assert suggested(anonymous_client, text, limit=5) == expected_places(text, 5), text


def test_suggestions_take_one_query(anonymous_client):
    listings_in("Madrid", "Málaga", "Mallorca")

    with CaptureQueriesContext(connection) as queries:
        assert len(suggested(anonymous_client, "ma")) == 3
        assert len(suggested(anonymous_client, "malaga")) == 1

    assert len(queries) == 2


@pytest.mark.parametrize(
    ("query", "fields"),
    [
        ({}, ["q"]),
        ({"q": ""}, ["q"]),
        ({"q": "   "}, ["q"]),
        ({"q": "m" * 121}, ["q"]),
        ({"q": "ma", "limit": "0"}, ["limit"]),
        ({"q": "ma", "limit": "21"}, ["limit"]),
        ({"q": "ma", "limit": "ten"}, ["limit"]),
        ({"limit": "-1"}, ["q", "limit"]),
    ],
)
def test_a_bad_query_is_a_400_naming_each_refused_parameter(anonymous_client, query, fields):
    response = anonymous_client.get(PLACES_URL, query)

    assert_validation_error(response, *fields)


def test_places_only_read(anonymous_client, customer_client):
    listings_in("Madrid")

    for client in (anonymous_client, customer_client):
        assert client.post(PLACES_URL, {"q": "ma"}).status_code == 405
        assert client.get(f"{PLACES_URL}/madrid").status_code == 404
    assert suggested(anonymous_client, "ma") == [{"name": "Madrid", "listings": 1}]


@pytest.mark.postgres_only
def test_postgresql_folds_names_as_python_does():
    names = ["Málaga", "ÁVILA", "Alcorcón", "Cádiz", "A Coruña", "L'Hospitalet", "Castelló"]

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT listings_place_folded(name)"
            " FROM unnest(%s::text[]) WITH ORDINALITY AS names (name, place) ORDER BY place",
            [names],
        )
        folded = [name for (name,) in cursor.fetchall()]

    assert folded == [places.folded(name) for name in names]
