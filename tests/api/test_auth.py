"""Register, login, logout and bearer tokens (decisions D4, D5, D6, D13)."""

import datetime
import hashlib
import re

import pytest
from django.utils import timezone

from accounts.models import AccessToken, Admin, Customer, Owner, User, UserType
from tests.api.support import (
    AUTH_RESULT_KEYS,
    PASSWORD,
    USER_KEYS,
    assert_problem,
    iso,
    user_body,
)
from tests.support import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("password_material_check")]

REGISTER = "/api/v1/users/register"
LOGIN = "/api/v1/users/login"
LOGOUT = "/api/v1/users/logout"
ID_PATTERN = re.compile(r"^[a-z][a-z0-9]{24}$")
TOKEN_LIFETIME = datetime.timedelta(days=14)
SHORT_MESSAGE = "This password is too short. It must contain at least 8 characters."


def registration(**fields) -> dict:
    """A valid register body, with some fields replaced or (when None) left out."""
    body = {
        "name": "Ana Garcia",
        "email": "ana.garcia@example.com",
        "password": PASSWORD,
        "phone": "+34 600 000 001",
    }
    body.update(fields)
    return {key: value for key, value in body.items() if value is not None}


def assert_auth_result(body: dict, user: User) -> None:
    """`{token, tokenType: Bearer, expiresAt, user}` for this user, with a live stored token."""
    assert set(body) == AUTH_RESULT_KEYS
    assert body["tokenType"] == "Bearer"
    assert set(body["user"]) == USER_KEYS
    assert body["user"] == user_body(user)
    access_token = AccessToken.objects.get(
        key_hash=hashlib.sha256(body["token"].encode()).hexdigest()
    )
    assert access_token.user_id == user.pk
    assert body["expiresAt"] == iso(access_token.expires_at)
    lifetime = access_token.expires_at - timezone.now()
    assert TOKEN_LIFETIME - datetime.timedelta(minutes=1) < lifetime <= TOKEN_LIFETIME


# --- Register ---------------------------------------------------------------------------


def test_register_creates_a_customer_with_its_record_and_signs_in(api_client):
    # when someone registers with no userType and a mixed-case email
    response = api_client.post(
        REGISTER, registration(email="  Ana.Garcia@Example.COM "), format="json"
    )

    # then a CUSTOMER is created with the email lower-cased, and a token is given
    assert response.status_code == 201
    user = User.objects.get()
    assert user.email == "ana.garcia@example.com"
    assert user.user_type == UserType.CUSTOMER
    assert ID_PATTERN.match(user.pk)
    assert_auth_result(response.json(), user)
    assert response.json()["user"]["email"] == "ana.garcia@example.com"
    # and the Customer record exists, and no other role record
    assert Customer.objects.filter(user=user).count() == 1
    assert not Owner.objects.filter(user=user).exists()
    assert not Admin.objects.filter(user=user).exists()
    # and the password is stored only as an Argon2 hash
    assert user.password.startswith("argon2$")
    assert user.check_password(PASSWORD)


def test_register_as_owner_creates_the_owner_record(api_client):
    # when
    response = api_client.post(REGISTER, registration(userType="OWNER"), format="json")

    # then
    assert response.status_code == 201
    user = User.objects.get()
    assert user.user_type == UserType.OWNER
    assert_auth_result(response.json(), user)
    assert Owner.objects.filter(user=user).count() == 1
    assert not Customer.objects.filter(user=user).exists()


def test_the_token_given_at_registration_signs_the_user_in(api_client):
    # given a fresh registration
    body = api_client.post(REGISTER, registration(), format="json").json()

    # when the token is used
    api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {body['token']}")
    response = api_client.get(f"/api/v1/users/{body['user']['id']}")

    # then it is accepted
    assert response.status_code == 200
    assert response.json()["email"] == "ana.garcia@example.com"


def test_server_controlled_and_unknown_fields_of_a_registration_are_ignored(api_client):
    # when a registration carries an id, timestamps, hash, salt and unknown fields
    response = api_client.post(
        REGISTER,
        registration(
            id="aaaaaaaaaaaaaaaaaaaaaaaaa",
            createdAt="2000-01-01T00:00:00Z",
            hash="forged",
            salt="forged",
            favoriteColor="blue",
        ),
        format="json",
    )

    # then the account is created with server values only
    assert response.status_code == 201
    user = User.objects.get()
    assert user.pk != "aaaaaaaaaaaaaaaaaaaaaaaaa"
    assert user.created_at.year == timezone.now().year
    assert user.check_password(PASSWORD)


@pytest.mark.parametrize(
    "email", ["taken@example.com", "TAKEN@example.com", "Taken@Example.Com", " taken@EXAMPLE.com "]
)
def test_register_with_a_taken_email_in_any_case_is_409(api_client, email):
    # given an account with the email
    existing = make_user(email="taken@example.com")

    # when someone registers it again, in any case
    response = api_client.post(REGISTER, registration(email=email), format="json")

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
    assert list(User.objects.values_list("pk", flat=True)) == [existing.pk]


def test_register_as_admin_is_403(api_client):
    # when
    response = api_client.post(REGISTER, registration(userType="ADMIN"), format="json")

    # then
    assert_problem(
        response,
        403,
        "permission_denied",
        errors=[
            {
                "field": "userType",
                "message": "Administrator accounts cannot be registered.",
                "code": "permission_denied",
            }
        ],
    )
    assert User.objects.count() == 0
    assert Admin.objects.count() == 0


@pytest.mark.parametrize(
    ("password", "message"),
    [
        ("Zq9!x", SHORT_MESSAGE),
        ("password123", "This password is too common."),
        ("qwertyuiop", "This password is too common."),
        ("804619375521", "This password is entirely numeric."),
        ("ana.garcia@example", "The password is too similar to the email."),
    ],
    ids=["too-short", "too-common", "too-common-keyboard", "all-numeric", "like-the-email"],
)
def test_register_with_a_weak_password_is_400_naming_password(api_client, password, message):
    # when
    response = api_client.post(REGISTER, registration(password=password), format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "password", "message": message, "code": "invalid"}],
    )
    assert User.objects.count() == 0


@pytest.mark.parametrize(
    "email", ["not-an-email", "ana@", "@example.com", "ana garcia@example.com"]
)
def test_register_with_a_bad_email_is_400_naming_email(api_client, email):
    # when
    response = api_client.post(REGISTER, registration(email=email), format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[{"field": "email", "message": "Enter a valid email address.", "code": "invalid"}],
    )
    assert User.objects.count() == 0


def test_register_with_a_bad_email_and_a_weak_password_names_both_fields(api_client):
    # when
    response = api_client.post(
        REGISTER, registration(email="not-an-email", password="Zq9!x"), format="json"
    )

    # then
    body = assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {"field": "email", "message": "Enter a valid email address.", "code": "invalid"},
            {"field": "password", "message": SHORT_MESSAGE, "code": "invalid"},
        ],
    )
    assert body["detail"] == "Invalid value for: email, password."
    assert User.objects.count() == 0


def test_register_without_email_and_password_names_both_fields(api_client):
    # when
    response = api_client.post(REGISTER, {"name": "Ana Garcia"}, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {"field": "email", "message": "This field is required.", "code": "required"},
            {"field": "password", "message": "This field is required.", "code": "required"},
        ],
    )
    assert User.objects.count() == 0


def test_register_with_an_unknown_user_type_is_400_naming_user_type(api_client):
    # when
    response = api_client.post(REGISTER, registration(userType="LANDLORD"), format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {
                "field": "userType",
                "message": '"LANDLORD" is not a valid choice.',
                "code": "invalid_choice",
            }
        ],
    )
    assert User.objects.count() == 0


# --- Login ------------------------------------------------------------------------------


def test_login_answers_200_with_a_new_token(api_client, customer):
    # when the user logs in, typing the email in another case
    response = api_client.post(
        LOGIN, {"email": customer.email.upper(), "password": PASSWORD}, format="json"
    )

    # then
    assert response.status_code == 200
    customer.refresh_from_db()
    assert_auth_result(response.json(), customer)


def test_each_login_gives_another_token_and_all_of_them_work(api_client, customer):
    # when the user logs in from two clients
    credentials = {"email": customer.email, "password": PASSWORD}
    first = api_client.post(LOGIN, credentials, format="json").json()["token"]
    second = api_client.post(LOGIN, credentials, format="json").json()["token"]

    # then both tokens are live
    assert first != second
    assert AccessToken.objects.filter(user=customer).count() == 2
    for token in (first, second):
        api_client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
        assert api_client.get(f"/api/v1/users/{customer.pk}").status_code == 200


def test_unknown_email_and_wrong_password_give_the_same_401(api_client, customer):
    # when one login names an unknown email and another a wrong password
    unknown = api_client.post(
        LOGIN, {"email": "nobody@example.com", "password": PASSWORD}, format="json"
    )
    wrong = api_client.post(
        LOGIN, {"email": customer.email, "password": "not-the-password"}, format="json"
    )

    # then both answer the same problem document
    body = assert_problem(unknown, 401, "invalid_credentials")
    assert assert_problem(wrong, 401, "invalid_credentials") == body
    assert body["title"] == "Invalid credentials"
    assert body["detail"] == "The email or the password is wrong."
    # and, like every 401, both name the scheme to authenticate with
    assert unknown["WWW-Authenticate"] == "Bearer"
    assert wrong["WWW-Authenticate"] == "Bearer"
    assert AccessToken.objects.count() == 0


def test_an_inactive_user_cannot_log_in_and_their_tokens_stop_working(
    api_client, customer, sign_in
):
    # given a user with a token, who is then deactivated
    client = sign_in(customer)
    User.objects.filter(pk=customer.pk).update(is_active=False)

    # when they log in with the right password
    response = api_client.post(
        LOGIN, {"email": customer.email, "password": PASSWORD}, format="json"
    )

    # then the answer is the same as for a wrong password
    body = assert_problem(response, 401, "invalid_credentials")
    assert body["detail"] == "The email or the password is wrong."
    assert AccessToken.objects.filter(user=customer).count() == 1
    # and the token they held is refused
    refused = client.get(f"/api/v1/users/{customer.pk}")
    assert_problem(refused, 401, "not_authenticated")
    assert refused["WWW-Authenticate"] == "Bearer"


def test_login_without_fields_is_400_naming_them(api_client):
    # when
    response = api_client.post(LOGIN, {}, format="json")

    # then
    assert_problem(
        response,
        400,
        "validation_error",
        errors=[
            {"field": "email", "message": "This field is required.", "code": "required"},
            {"field": "password", "message": "This field is required.", "code": "required"},
        ],
    )


# --- Tokens -----------------------------------------------------------------------------


def test_only_the_sha256_of_a_token_is_stored(api_client, customer):
    # given two tokens, from registration and from login
    registered = api_client.post(REGISTER, registration(), format="json").json()["token"]
    logged_in = api_client.post(
        LOGIN, {"email": customer.email, "password": PASSWORD}, format="json"
    ).json()["token"]

    # then the table holds the hex SHA-256 of each and the clear token nowhere
    rows = list(AccessToken.objects.values())
    assert sorted(row["key_hash"] for row in rows) == sorted(
        hashlib.sha256(token.encode()).hexdigest() for token in (registered, logged_in)
    )
    for row in rows:
        assert re.fullmatch(r"[0-9a-f]{64}", row["key_hash"])
        for value in row.values():
            assert registered not in str(value)
            assert logged_in not in str(value)


def test_logout_revokes_only_the_presented_token(customer, sign_in):
    # given a user signed in on two clients
    phone = sign_in(customer)
    laptop = sign_in(customer)

    # when the phone logs out
    response = phone.post(LOGOUT)

    # then
    assert response.status_code == 204
    assert response.content == b""
    assert AccessToken.objects.filter(user=customer).count() == 1
    # and the phone's token is refused, with the scheme to use
    refused = phone.get(f"/api/v1/users/{customer.pk}")
    body = assert_problem(refused, 401, "not_authenticated")
    assert body["title"] == "Authentication required"
    assert refused["WWW-Authenticate"] == "Bearer"
    # and the laptop's token still works
    assert laptop.get(f"/api/v1/users/{customer.pk}").status_code == 200


def test_logout_without_a_token_is_401(api_client):
    # when
    response = api_client.post(LOGOUT)

    # then
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


def test_an_expired_token_is_401(customer, sign_in):
    # given a token whose expiry has passed
    client = sign_in(customer)
    AccessToken.objects.filter(user=customer).update(
        expires_at=timezone.now() - datetime.timedelta(seconds=1)
    )

    # when
    response = client.get(f"/api/v1/users/{customer.pk}")

    # then
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize(
    "header",
    ["Bearer", "Bearer ", "Bearer two parts", "Bearer est_unknown-token", "bearer est_nothing"],
    ids=["no-token", "blank-token", "two-parts", "unknown-token", "lower-case-unknown"],
)
@pytest.mark.parametrize("path", ["/api/v1/users", "/api/v1/categories"])
def test_a_malformed_or_unknown_bearer_header_is_401_even_on_public_paths(
    api_client, customer, header, path
):
    # when
    api_client.credentials(HTTP_AUTHORIZATION=header)
    response = api_client.get(path)

    # then
    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


# --- Throttling -------------------------------------------------------------------------


def test_the_fourth_login_attempt_from_one_address_is_429(api_client, customer, throttle_rates):
    # given a limit of three login attempts a minute per address
    throttle_rates(login="3/min", login_email="100/min")
    credentials = {"email": customer.email, "password": "not-the-password"}

    # when four attempts are made from one address
    statuses = [
        api_client.post(LOGIN, credentials, format="json", REMOTE_ADDR="203.0.113.7").status_code
        for _attempt in range(3)
    ]
    response = api_client.post(LOGIN, credentials, format="json", REMOTE_ADDR="203.0.113.7")

    # then the first three are judged and the fourth is throttled
    assert statuses == [401, 401, 401]
    body = assert_problem(response, 429, "throttled")
    retry_after = response["Retry-After"]
    assert re.fullmatch(r"[0-9]+", retry_after)
    assert 1 <= int(retry_after) <= 60
    assert body["detail"] == f"Too many requests; retry after {retry_after} seconds."
    # and even the right password is refused for now
    right = api_client.post(
        LOGIN,
        {"email": customer.email, "password": PASSWORD},
        format="json",
        REMOTE_ADDR="203.0.113.7",
    )
    assert_problem(right, 429, "throttled")
    assert AccessToken.objects.count() == 0
    # while another address may still try
    other = api_client.post(
        LOGIN,
        {"email": customer.email, "password": PASSWORD},
        format="json",
        REMOTE_ADDR="198.51.100.9",
    )
    assert other.status_code == 200


def test_login_attempts_on_one_email_are_throttled_across_addresses(
    api_client, customer, other_customer, throttle_rates
):
    # given a limit of three attempts a minute per email, and a generous one per address
    throttle_rates(login="100/min", login_email="3/min")

    # when four addresses each try one wrong password on the same email (in any case)
    responses = [
        api_client.post(
            LOGIN,
            {"email": email, "password": "not-the-password"},
            format="json",
            REMOTE_ADDR=f"203.0.113.{number}",
        )
        for number, email in enumerate(
            [customer.email, customer.email.upper(), customer.email, customer.email], start=1
        )
    ]

    # then the fourth attempt is throttled
    assert [response.status_code for response in responses[:3]] == [401, 401, 401]
    assert_problem(responses[3], 429, "throttled")
    assert int(responses[3]["Retry-After"]) >= 1
    # and another email, from a fresh address, is still judged
    other = api_client.post(
        LOGIN,
        {"email": other_customer.email, "password": PASSWORD},
        format="json",
        REMOTE_ADDR="203.0.113.99",
    )
    assert other.status_code == 200


def test_registrations_are_throttled_per_address(api_client, throttle_rates):
    # given a limit of two registrations a minute per address
    throttle_rates(register="2/min")

    # when three accounts are registered from one address
    statuses = [
        api_client.post(
            REGISTER, registration(email=f"person{number}@example.com"), format="json"
        ).status_code
        for number in range(2)
    ]
    third = api_client.post(REGISTER, registration(email="person2@example.com"), format="json")

    # then the third is throttled and not created
    assert statuses == [201, 201]
    assert_problem(third, 429, "throttled")
    assert int(third["Retry-After"]) >= 1
    assert sorted(User.objects.values_list("email", flat=True)) == [
        "person0@example.com",
        "person1@example.com",
    ]
