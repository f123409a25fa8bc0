"""The users endpoints: every row of D7 for anonymous, self, another user and an admin."""

import datetime

import pytest
from django.utils import timezone

from accounts.models import AccessToken, Admin, Owner, User, UserType
from appointments.models import Appointment
from favorites.models import Favorite
from listings.models import Property, PropertyType
from notifications.models import Notification
from tests.api.conftest import RecordingAPIClient
from tests.api.support import (
    PASSWORD,
    USER_DETAIL_KEYS,
    USER_KEYS,
    assert_problem,
    password_material_in,
    user_body,
)
from tests.factories import (
    AppointmentFactory,
    FavoriteFactory,
    NotificationFactory,
    PropertyFactory,
    TypeSpecificRecordFactory,
)
from tests.support import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("password_material_check")]

USERS = "/api/v1/users"
LOGIN = "/api/v1/users/login"
NEW_PASSWORD = "new-secret-passphrase-42"
UNKNOWN_ID = "zzzzzzzzzzzzzzzzzzzzzzzzz"
WRONG_CURRENT_PASSWORD = {
    "field": "currentPassword",
    "message": "The current password is wrong.",
    "code": "invalid",
}


def detail_body(user: User, owner: dict | None = None) -> dict:
    """The detail shape of a user; `owner` is given for an OWNER."""
    user.refresh_from_db()
    return {**user_body(user), "owner": owner}


def spread_creation_times(*users: User) -> None:
    """Give the users creation times one minute apart, in the order given (oldest first)."""
    start = timezone.now() - datetime.timedelta(days=1)
    for minutes, user in enumerate(users):
        User.objects.filter(pk=user.pk).update(
            created_at=start + datetime.timedelta(minutes=minutes)
        )
        user.refresh_from_db()


def snapshot() -> list[tuple]:
    """Every user row, to show that a refused request changed nothing."""
    return list(User.objects.order_by("pk").values_list())


# --- The password-material check itself -------------------------------------------------


def test_the_password_material_check_finds_what_it_looks_for():
    # given bodies that each betray credential material
    planted = {
        '{"password": "x"}': "a key",
        '{"user": {"passwordHash": null}}': "a nested key",
        '{"note": "salted"}': "a value",
        '{"items": ["argon2$argon2id$v=19"]}': "a value in a list",
        '{"name": "s3cret-words-here"}': "the clear password",
        '{"id": "pbkdf2_sha256$1$abc"}': "the stored hash",
    }

    for body, what in planted.items():
        # when it is checked
        findings = password_material_in(
            body, passwords={"s3cret-words-here"}, hashes={"pbkdf2_sha256$1$abc"}
        )
        # then something is found
        assert findings != [], what

    # and a clean body, or a random token or id that spells a word by chance, passes
    clean = (
        '{"token": "est_HashSaltPassword", "user": {"id": "xqfxow7ncyip9salt9ago7hhs",'
        ' "ownerId": "k2hashq", "name": "Ana"}}'
    )
    assert password_material_in(clean, passwords={"s3cret-words-here"}, hashes=set()) == []


# --- GET /users -------------------------------------------------------------------------


def test_anonymous_cannot_list_users(api_client, customer):
    # when
    response = api_client.get(USERS)

    # then
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("user_type", [UserType.CUSTOMER, UserType.OWNER])
def test_customers_and_owners_may_not_list_users(sign_in, user_type):
    # given
    client = sign_in(make_user(user_type))

    # when
    response = client.get(USERS)

    # then
    body = assert_problem(response, 403, "permission_denied")
    assert body["detail"] == "Only administrators may do this."


def test_an_admin_lists_every_user_newest_first(admin_api, admin, customer, owner):
    # given three users created in a known order
    spread_creation_times(customer, admin, owner)

    # when
    response = admin_api.get(USERS)

    # then
    assert response.status_code == 200
    body = response.json()
    assert set(body) == {"data", "pagination"}
    assert body["pagination"] == {"total": 3, "page": 1, "limit": 20, "pages": 1}
    assert all(set(item) == USER_KEYS for item in body["data"])
    assert body["data"] == [user_body(owner), user_body(admin), user_body(customer)]


def test_the_user_list_filters_by_user_type(admin_api):
    # given two owners and a customer
    first_owner = make_user(UserType.OWNER)
    make_user(UserType.CUSTOMER)
    second_owner = make_user(UserType.OWNER)
    spread_creation_times(first_owner, second_owner)

    # when
    response = admin_api.get(USERS, {"userType": "OWNER"})

    # then
    assert response.status_code == 200
    assert response.json() == {
        "data": [user_body(second_owner), user_body(first_owner)],
        "pagination": {"total": 2, "page": 1, "limit": 20, "pages": 1},
    }


@pytest.mark.parametrize("typed", ["customer1@example.com", "CUSTOMER1@Example.COM"])
def test_the_user_list_filters_by_email_in_any_case(admin_api, typed):
    # given
    wanted = make_user(UserType.CUSTOMER, email="customer1@example.com")
    make_user(UserType.CUSTOMER, email="customer10@example.com")

    # when
    response = admin_api.get(USERS, {"email": typed})

    # then
    assert response.status_code == 200
    assert response.json() == {
        "data": [user_body(wanted)],
        "pagination": {"total": 1, "page": 1, "limit": 20, "pages": 1},
    }


def test_an_unknown_user_type_filter_is_400_naming_user_type(admin_api):
    # when
    response = admin_api.get(USERS, {"userType": "LANDLORD"})

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {
                "field": "userType",
                "message": "Select a valid choice. LANDLORD is not one of the available choices.",
                "code": "invalid_choice",
            }
        ],
    )


def test_the_user_list_is_paginated_by_page_and_limit(admin_api, admin):
    # given five users, oldest first
    users = [admin, *(make_user() for _number in range(4))]
    spread_creation_times(*users)
    newest_first = [user_body(user) for user in reversed(users)]

    # when the second page of two is asked for, then the last and one past the end
    second = admin_api.get(USERS, {"page": 2, "limit": 2})
    last = admin_api.get(USERS, {"page": 3, "limit": 2})
    beyond = admin_api.get(USERS, {"page": 4, "limit": 2})

    # then
    assert second.status_code == 200
    assert second.json() == {
        "data": newest_first[2:4],
        "pagination": {"total": 5, "page": 2, "limit": 2, "pages": 3},
    }
    assert last.json() == {
        "data": newest_first[4:],
        "pagination": {"total": 5, "page": 3, "limit": 2, "pages": 3},
    }
    assert beyond.status_code == 200
    assert beyond.json() == {
        "data": [],
        "pagination": {"total": 5, "page": 4, "limit": 2, "pages": 3},
    }


@pytest.mark.parametrize(
    ("query", "error"),
    [
        (
            {"limit": 101},
            {
                "field": "limit",
                "message": "Ensure this value is less than or equal to 100.",
                "code": "max_value",
            },
        ),
        (
            {"limit": 0},
            {
                "field": "limit",
                "message": "Ensure this value is greater than or equal to 1.",
                "code": "min_value",
            },
        ),
        (
            {"page": 0},
            {
                "field": "page",
                "message": "Ensure this value is greater than or equal to 1.",
                "code": "min_value",
            },
        ),
        (
            {"page": "first"},
            {"field": "page", "message": "A valid integer is required.", "code": "invalid"},
        ),
    ],
    ids=["limit-101", "limit-0", "page-0", "page-not-a-number"],
)
def test_out_of_range_pagination_is_400_naming_the_parameter(admin_api, query, error):
    # when
    response = admin_api.get(USERS, query)

    # then
    assert_problem(response, 400, "validation_error", errors=[error])


# --- GET /users/:id ---------------------------------------------------------------------


@pytest.mark.parametrize("user_type", [UserType.CUSTOMER, UserType.ADMIN])
def test_a_user_who_is_not_an_owner_sees_themselves_with_owner_null(sign_in, user_type):
    # given
    user = make_user(user_type)

    # when
    response = sign_in(user).get(f"{USERS}/{user.pk}")

    # then
    assert response.status_code == 200
    assert set(response.json()) == USER_DETAIL_KEYS
    assert response.json() == detail_body(user, owner=None)


def test_an_owner_sees_their_owner_record_and_listings_newest_first(owner, owner_api):
    # given two listings of the owner and one of someone else
    older = PropertyFactory(owner=owner.owner, title="Old farmhouse")
    newer = TypeSpecificRecordFactory(
        property__owner=owner.owner, property__title="New loft", kind=PropertyType.APARTMENT
    ).property
    PropertyFactory(title="Someone else's villa")
    Property.objects.filter(pk=older.pk).update(
        created_at=timezone.now() - datetime.timedelta(days=2)
    )

    # when
    response = owner_api.get(f"{USERS}/{owner.pk}")

    # then
    assert response.status_code == 200
    assert response.json() == detail_body(
        owner,
        owner={
            "id": owner.owner.pk,
            "properties": [
                {"id": newer.pk, "title": "New loft", "type": "apartment"},
                {"id": older.pk, "title": "Old farmhouse", "type": None},
            ],
        },
    )


def test_an_owner_without_listings_has_an_empty_list(owner, owner_api):
    # when
    response = owner_api.get(f"{USERS}/{owner.pk}")

    # then
    assert response.status_code == 200
    assert response.json()["owner"] == {"id": owner.owner.pk, "properties": []}


@pytest.mark.parametrize("user_type", [UserType.CUSTOMER, UserType.OWNER])
def test_another_users_detail_is_404(sign_in, other_customer, user_type):
    # given
    client = sign_in(make_user(user_type))

    # when
    response = client.get(f"{USERS}/{other_customer.pk}")

    # then
    assert_problem(response, 404, "not_found")


def test_an_admin_sees_any_user(admin_api, owner):
    # given
    listing = PropertyFactory(owner=owner.owner, title="Seaside flat")

    # when
    response = admin_api.get(f"{USERS}/{owner.pk}")

    # then
    assert response.status_code == 200
    assert response.json() == detail_body(
        owner,
        owner={
            "id": owner.owner.pk,
            "properties": [{"id": listing.pk, "title": "Seaside flat", "type": None}],
        },
    )


@pytest.mark.parametrize("viewer", ["customer_api", "admin_api"])
def test_an_unknown_user_id_is_404(request, viewer):
    # given
    client = request.getfixturevalue(viewer)

    # when
    response = client.get(f"{USERS}/{UNKNOWN_ID}")

    # then
    body = assert_problem(response, 404, "not_found")
    assert body["title"] == "Not found"


def test_anonymous_cannot_see_a_user(api_client, customer):
    # when
    response = api_client.get(f"{USERS}/{customer.pk}")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


# --- PATCH /users/:id -------------------------------------------------------------------


def test_a_user_changes_their_name_phone_and_image(customer, customer_api):
    # when
    response = customer_api.patch(
        f"{USERS}/{customer.pk}",
        {"name": "Ana Maria", "phone": "+34 611 111 111", "image": "https://cdn.example.com/a.png"},
        format="json",
    )

    # then
    assert response.status_code == 200
    customer.refresh_from_db()
    assert (customer.name, customer.phone, customer.image) == (
        "Ana Maria",
        "+34 611 111 111",
        "https://cdn.example.com/a.png",
    )
    assert response.json() == detail_body(customer, owner=None)


def test_a_user_clears_their_phone_with_null_and_keeps_the_rest(customer, customer_api):
    # given
    name = customer.name

    # when
    response = customer_api.patch(f"{USERS}/{customer.pk}", {"phone": None}, format="json")

    # then
    assert response.status_code == 200
    customer.refresh_from_db()
    assert customer.phone is None
    assert customer.name == name
    assert response.json() == detail_body(customer, owner=None)


@pytest.mark.parametrize("cleared", ["", None])
def test_an_empty_image_clears_it_to_null(customer, customer_api, cleared):
    # given a user with an image
    customer.image = "https://cdn.example.com/a.png"
    customer.save(update_fields=["image"])

    # when they send it empty, or null
    response = customer_api.patch(f"{USERS}/{customer.pk}", {"image": cleared}, format="json")

    # then it is no image: null, never "", which is no URL
    assert response.status_code == 200
    customer.refresh_from_db()
    assert customer.image is None
    assert response.json()["image"] is None
    assert response.json() == detail_body(customer, owner=None)


def test_an_invalid_image_url_is_400_naming_image(customer, customer_api):
    # given
    before = snapshot()

    # when
    response = customer_api.patch(f"{USERS}/{customer.pk}", {"image": "not a url"}, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "image", "message": "Enter a valid URL.", "code": "invalid"}],
    )
    assert snapshot() == before


@pytest.mark.parametrize(
    "body",
    [{"password": NEW_PASSWORD}, {"password": NEW_PASSWORD, "currentPassword": "not-it-at-all"}],
    ids=["missing-current-password", "wrong-current-password"],
)
def test_a_password_change_needs_the_current_password(customer, customer_api, body):
    # given
    before = snapshot()

    # when
    response = customer_api.patch(f"{USERS}/{customer.pk}", body, format="json")

    # then
    assert_problem(response, 400, "validation_error", errors=[WRONG_CURRENT_PASSWORD])
    assert snapshot() == before
    customer.refresh_from_db()
    assert customer.check_password(PASSWORD)


def test_a_weak_new_password_is_400_naming_password(customer, customer_api):
    # given
    before = snapshot()

    # when
    response = customer_api.patch(
        f"{USERS}/{customer.pk}",
        {"password": "12345678", "currentPassword": PASSWORD},
        format="json",
    )

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {
                "field": "password",
                "message": "This password is too common. This password is entirely numeric.",
                "code": "invalid",
            }
        ],
    )
    assert snapshot() == before


def test_a_password_change_signs_out_every_other_client(api_client, customer, sign_in):
    # given the user signed in on two clients, both working
    current = sign_in(customer)
    other = sign_in(customer)
    assert other.get(f"{USERS}/{customer.pk}").status_code == 200

    # when one client changes the password
    response = current.patch(
        f"{USERS}/{customer.pk}",
        {"password": NEW_PASSWORD, "currentPassword": PASSWORD},
        format="json",
    )

    # then
    assert response.status_code == 200
    assert response.json() == detail_body(customer, owner=None)
    # and the new password logs in, the old one does not
    assert (
        api_client.post(
            LOGIN, {"email": customer.email, "password": NEW_PASSWORD}, format="json"
        ).status_code
        == 200
    )
    old = api_client.post(LOGIN, {"email": customer.email, "password": PASSWORD}, format="json")
    assert_problem(old, 401, "invalid_credentials")
    # and the other client's token is revoked while the current one keeps working
    assert_problem(other.get(f"{USERS}/{customer.pk}"), 401, "not_authenticated")
    assert current.get(f"{USERS}/{customer.pk}").status_code == 200


def test_a_password_change_with_a_session_revokes_every_token(
    api_client, journal, customer, sign_in
):
    # given the user's tokens on two clients, both working
    clients = [sign_in(customer), sign_in(customer)]
    assert [client.get(f"{USERS}/{customer.pk}").status_code for client in clients] == [200, 200]
    # and a browser signed in with a session (the website's)
    browser = RecordingAPIClient(journal)
    browser.force_login(customer)

    # when the browser changes the password through the API
    response = browser.patch(
        f"{USERS}/{customer.pk}",
        {"password": NEW_PASSWORD, "currentPassword": PASSWORD},
        format="json",
    )

    # then it is changed, and no token works any more: none was used for the change
    assert response.status_code == 200
    customer.refresh_from_db()
    assert customer.check_password(NEW_PASSWORD)
    for client in clients:
        assert_problem(client.get(f"{USERS}/{customer.pk}"), 401, "not_authenticated")
    assert AccessToken.objects.filter(user=customer).count() == 0


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        (
            {"email": "someone.else@example.com"},
            "email",
            "Only administrators change an email address.",
        ),
        ({"userType": "OWNER"}, "userType", "Only administrators change a user type."),
        ({"userType": "ADMIN"}, "userType", "Only administrators change a user type."),
    ],
    ids=["email", "user-type-owner", "user-type-admin"],
)
def test_a_user_may_not_change_their_own_email_or_type(
    customer, customer_api, body, field, message
):
    # given
    before = snapshot()

    # when
    response = customer_api.patch(f"{USERS}/{customer.pk}", {**body, "name": "X"}, format="json")

    # then
    assert_problem(
        response,
        403,
        "permission_denied",
        errors=[{"field": field, "message": message, "code": "permission_denied"}],
    )
    assert snapshot() == before
    assert not Owner.objects.filter(user=customer).exists()
    assert not Admin.objects.filter(user=customer).exists()


def test_sending_ones_own_email_and_type_unchanged_is_allowed(customer, customer_api):
    # when
    response = customer_api.patch(
        f"{USERS}/{customer.pk}",
        {"email": customer.email.upper(), "userType": "CUSTOMER", "name": "Same Person"},
        format="json",
    )

    # then
    assert response.status_code == 200
    customer.refresh_from_db()
    assert customer.name == "Same Person"
    assert customer.email == customer.email.lower()
    assert response.json() == detail_body(customer, owner=None)


def test_an_admin_changes_email_and_type_and_the_owner_record_follows(admin_api, customer):
    # when an admin makes a customer an owner with a new email
    response = admin_api.patch(
        f"{USERS}/{customer.pk}",
        {"email": "New.Address@Example.com", "userType": "OWNER"},
        format="json",
    )

    # then
    assert response.status_code == 200
    customer.refresh_from_db()
    assert customer.email == "new.address@example.com"
    assert customer.user_type == UserType.OWNER
    assert customer.is_staff is False
    owner_record = Owner.objects.get(user=customer)
    assert response.json() == detail_body(customer, owner={"id": owner_record.pk, "properties": []})


def test_an_admin_makes_another_admin(admin_api, customer):
    # when
    response = admin_api.patch(f"{USERS}/{customer.pk}", {"userType": "ADMIN"}, format="json")

    # then
    assert response.status_code == 200
    customer.refresh_from_db()
    assert customer.user_type == UserType.ADMIN
    assert customer.is_staff is True
    assert Admin.objects.filter(user=customer).count() == 1


def test_an_admin_may_not_give_a_taken_email(admin_api, customer, other_customer):
    # given
    before = snapshot()

    # when
    response = admin_api.patch(
        f"{USERS}/{customer.pk}", {"email": other_customer.email.upper()}, format="json"
    )

    # then
    assert_problem(
        response,
        409,
        "conflict",
        errors=[
            {
                "field": "email",
                "message": "An account with this email already exists.",
                "code": "conflict",
            }
        ],
    )
    assert snapshot() == before


@pytest.mark.parametrize("signed_in_with", ["token", "session"])
def test_an_admin_resets_a_password_without_knowing_it(
    api_client, journal, admin, customer, sign_in, signed_in_with
):
    # given the customer signed in somewhere, and an admin signed in with a token or a session
    customer_client = sign_in(customer)
    assert customer_client.get(f"{USERS}/{customer.pk}").status_code == 200
    if signed_in_with == "token":
        admin_client = sign_in(admin)
    else:
        admin_client = RecordingAPIClient(journal)
        admin_client.force_login(admin)

    # when the admin sets a new password
    response = admin_client.patch(
        f"{USERS}/{customer.pk}", {"password": NEW_PASSWORD}, format="json"
    )

    # then the new password logs in and the customer's tokens are revoked
    assert response.status_code == 200
    assert_problem(customer_client.get(f"{USERS}/{customer.pk}"), 401, "not_authenticated")
    login = api_client.post(
        LOGIN, {"email": customer.email, "password": NEW_PASSWORD}, format="json"
    )
    assert login.status_code == 200
    # and the admin is still signed in
    assert admin_client.get(USERS).status_code == 200


@pytest.mark.parametrize("user_type", [UserType.CUSTOMER, UserType.OWNER])
def test_another_user_may_not_change_a_user(sign_in, other_customer, user_type):
    # given
    client = sign_in(make_user(user_type))
    before = snapshot()

    # when
    response = client.patch(
        f"{USERS}/{other_customer.pk}", {"name": "Hijacked", "phone": "+1"}, format="json"
    )

    # then
    assert_problem(response, 404, "not_found")
    assert snapshot() == before


def test_anonymous_may_not_change_a_user(api_client, customer):
    # given
    before = snapshot()

    # when
    response = api_client.patch(f"{USERS}/{customer.pk}", {"name": "Nobody"}, format="json")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert snapshot() == before


# --- DELETE /users/:id ------------------------------------------------------------------


@pytest.fixture
def belongings(customer, other_customer):
    """Favorites, notifications and appointments of the customer and of another customer."""
    return {
        "mine": {
            "favorite": FavoriteFactory(user=customer).pk,
            "notification": NotificationFactory(user=customer).pk,
            "appointment": AppointmentFactory(user=customer).pk,
        },
        "theirs": {
            "favorite": FavoriteFactory(user=other_customer).pk,
            "notification": NotificationFactory(user=other_customer).pk,
            "appointment": AppointmentFactory(user=other_customer).pk,
        },
    }


def rows_left(ids: dict[str, str]) -> dict[str, bool]:
    """Which of a favorite, a notification and an appointment still exist."""
    return {
        "favorite": Favorite.objects.filter(pk=ids["favorite"]).exists(),
        "notification": Notification.objects.filter(pk=ids["notification"]).exists(),
        "appointment": Appointment.objects.filter(pk=ids["appointment"]).exists(),
    }


def test_a_user_deletes_their_account_and_what_hangs_on_it(
    customer, customer_api, other_customer, belongings
):
    # when
    response = customer_api.delete(f"{USERS}/{customer.pk}")

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert not User.objects.filter(pk=customer.pk).exists()
    assert not AccessToken.objects.filter(user_id=customer.pk).exists()
    assert rows_left(belongings["mine"]) == {
        "favorite": False,
        "notification": False,
        "appointment": False,
    }
    # and another user's rows are untouched
    assert User.objects.filter(pk=other_customer.pk).exists()
    assert rows_left(belongings["theirs"]) == {
        "favorite": True,
        "notification": True,
        "appointment": True,
    }


@pytest.mark.parametrize("user_type", [UserType.CUSTOMER, UserType.OWNER])
def test_another_user_may_not_delete_an_account(sign_in, other_customer, belongings, user_type):
    # given
    client = sign_in(make_user(user_type))
    before = snapshot()

    # when
    response = client.delete(f"{USERS}/{other_customer.pk}")

    # then
    assert_problem(response, 404, "not_found")
    assert snapshot() == before
    assert rows_left(belongings["theirs"]) == {
        "favorite": True,
        "notification": True,
        "appointment": True,
    }


def test_an_admin_deletes_any_account(admin_api, customer, belongings):
    # when
    response = admin_api.delete(f"{USERS}/{customer.pk}")

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert not User.objects.filter(pk=customer.pk).exists()
    assert rows_left(belongings["mine"]) == {
        "favorite": False,
        "notification": False,
        "appointment": False,
    }


def test_anonymous_may_not_delete_an_account(api_client, customer):
    # given
    before = snapshot()

    # when
    response = api_client.delete(f"{USERS}/{customer.pk}")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert snapshot() == before


def test_deleting_an_unknown_user_is_404(admin_api):
    # given
    before = snapshot()

    # when
    response = admin_api.delete(f"{USERS}/{UNKNOWN_ID}")

    # then
    assert_problem(response, 404, "not_found")
    assert snapshot() == before


# --- The platform keeps an administrator ----------------------------------------------------


def test_the_last_administrator_cannot_delete_their_account(admin, admin_api):
    # given
    before = snapshot()

    # when the only administrator deletes their own account
    response = admin_api.delete(f"{USERS}/{admin.pk}")

    # then
    body = assert_problem(response, 409, "conflict")
    assert body["detail"] == (
        "The platform needs an active administrator: make another user an administrator first."
    )
    assert snapshot() == before


def test_the_last_administrator_cannot_stop_being_one(admin, admin_api):
    before = snapshot()

    response = admin_api.patch(f"{USERS}/{admin.pk}", {"userType": "CUSTOMER"}, format="json")

    assert_problem(response, 409, "conflict")
    assert snapshot() == before


def test_an_administrator_leaves_once_another_one_exists(admin, admin_api):
    # given a second administrator
    make_user(UserType.ADMIN)

    # when the first one deletes their account
    response = admin_api.delete(f"{USERS}/{admin.pk}")

    # then it is gone, and one administrator is left
    assert response.status_code == 204
    assert list(User.objects.filter(user_type=UserType.ADMIN).values_list("pk", flat=True)) != []
    assert not User.objects.filter(pk=admin.pk).exists()
