"""Account pages: register, log in (rate limited), log out, profile and password."""

import pytest

from accounts.models import Customer, Owner, User, UserType
from accounts.services import access_token_issue
from tests.api.support import assert_problem, bearer_client
from tests.support import PASSWORD

pytestmark = pytest.mark.django_db


def register(client, **fields):
    data = {
        "name": "Nina New",
        "email": "Nina@Example.com",
        "phone": "",
        "user_type": "CUSTOMER",
        "password": "tulip-garden-42",
        "password_again": "tulip-garden-42",
        **fields,
    }
    return client.post("/en/accounts/register/", data)


def test_registering_as_a_customer_creates_the_account_and_signs_in(client):
    response = register(client)

    assert response.status_code == 302
    assert response.url == "/en/"
    user = User.objects.get()
    assert (user.email, user.name, user.phone, user.user_type) == (
        "nina@example.com",
        "Nina New",
        None,
        UserType.CUSTOMER,
    )
    assert Customer.objects.filter(user=user).exists()
    assert client.get("/en/").context["user"] == user


def test_registering_as_an_owner_leads_to_the_owner_area(client):
    response = register(client, user_type="OWNER", email="olive@example.com")

    assert response.url == "/en/owner/listings/"
    assert Owner.objects.filter(user__email="olive@example.com").exists()


def test_registering_as_an_admin_is_not_offered(client):
    response = register(client, user_type="ADMIN")

    assert response.status_code == 400
    assert "Select a valid choice. ADMIN is not one of the available choices." in response.text
    assert User.objects.count() == 0


def test_registration_shows_the_services_password_and_email_rules(client, customer):
    weak = register(client, password="12345678", password_again="12345678")
    taken = register(client, email="CARLA@example.com")
    differ = register(client, password_again="something-else-9")

    assert weak.status_code == 400
    assert "This password is entirely numeric." in weak.text
    assert taken.status_code == 409
    assert "An account with this email already exists." in taken.text
    assert differ.status_code == 400
    assert "The two passwords differ." in differ.text
    assert User.objects.count() == 1


def test_log_in_with_the_right_password_and_go_to_next(client, customer):
    response = client.post(
        "/en/accounts/login/",
        {"email": " Carla@Example.com ", "password": PASSWORD, "next": "/en/me/favorites/"},
    )

    assert response.status_code == 302
    assert response.url == "/en/me/favorites/"
    assert client.get("/en/me/favorites/").status_code == 200


def test_log_in_never_redirects_to_another_site(client, customer):
    response = client.post(
        "/en/accounts/login/",
        {"email": "carla@example.com", "password": PASSWORD, "next": "https://evil.example/"},
    )

    assert response.url == "/en/"


def test_wrong_email_and_wrong_password_get_the_same_message(client, customer):
    wrong_password = client.post(
        "/en/accounts/login/", {"email": "carla@example.com", "password": "not-it-at-all"}
    )
    wrong_email = client.post(
        "/en/accounts/login/", {"email": "who@example.com", "password": PASSWORD}
    )

    for response in (wrong_password, wrong_email):
        assert response.status_code == 401
        assert "The email or the password is wrong." in response.text


def test_log_in_attempts_share_the_apis_rate_limit(client, customer, throttle_rates):
    throttle_rates(login="2/min")
    data = {"email": "carla@example.com", "password": "not-it-at-all"}

    statuses = [client.post("/en/accounts/login/", data).status_code for _attempt in range(3)]
    blocked = client.post(
        "/en/accounts/login/", {"email": "carla@example.com", "password": PASSWORD}
    )

    assert statuses == [401, 401, 429]
    assert blocked.status_code == 429
    assert "Too many attempts. Try again in" in blocked.text


def test_log_out_is_a_post(customer_session):
    refused = customer_session.get("/en/accounts/logout/")
    response = customer_session.post("/en/accounts/logout/")

    assert refused.status_code == 405
    assert response.status_code == 302
    assert customer_session.get("/en/me/favorites/").status_code == 302


def test_profile_changes_name_and_phone(customer_session, customer):
    response = customer_session.post(
        "/en/accounts/profile/", {"name": "Carla C.", "phone": "+34 600"}
    )

    customer.refresh_from_db()
    assert response.status_code == 302
    assert (customer.name, customer.phone) == ("Carla C.", "+34 600")


def test_password_change_needs_the_current_password(customer_session, customer):
    wrong = customer_session.post(
        "/en/accounts/password/",
        {
            "current_password": "not-the-password",
            "new_password": "violet-river-77",
            "new_password_again": "violet-river-77",
        },
    )
    right = customer_session.post(
        "/en/accounts/password/",
        {
            "current_password": PASSWORD,
            "new_password": "violet-river-77",
            "new_password_again": "violet-river-77",
        },
    )

    customer.refresh_from_db()
    assert wrong.status_code == 400
    assert "The current password is wrong." in wrong.text
    assert right.status_code == 302
    assert customer.check_password("violet-river-77")
    # the session that changed the password stays signed in
    assert customer_session.get("/en/accounts/profile/").status_code == 200


def test_a_password_change_revokes_the_users_api_tokens(customer_session, customer):
    # given the customer's bearer tokens, working
    tokens = [access_token_issue(user=customer)[0] for _client in range(2)]
    me = f"/api/v1/users/{customer.pk}"
    assert [bearer_client(token).get(me).status_code for token in tokens] == [200, 200]

    # when the password is changed on the website
    response = customer_session.post(
        "/en/accounts/password/",
        {
            "current_password": PASSWORD,
            "new_password": "violet-river-77",
            "new_password_again": "violet-river-77",
        },
    )

    # then no token works any more, and the page's session stays signed in
    assert response.status_code == 302
    for token in tokens:
        assert_problem(bearer_client(token).get(me), 401, "not_authenticated")
    assert customer_session.get("/en/accounts/profile/").status_code == 200


def test_a_refused_password_change_keeps_the_tokens(customer_session, customer):
    token, _access_token = access_token_issue(user=customer)

    response = customer_session.post(
        "/en/accounts/password/",
        {
            "current_password": "not-the-password",
            "new_password": "violet-river-77",
            "new_password_again": "violet-river-77",
        },
    )

    assert response.status_code == 400
    assert bearer_client(token).get(f"/api/v1/users/{customer.pk}").status_code == 200


def test_a_weak_new_password_shows_the_validators_message_on_its_field(customer_session):
    response = customer_session.post(
        "/en/accounts/password/",
        {"current_password": PASSWORD, "new_password": "short", "new_password_again": "short"},
    )

    assert response.status_code == 400
    assert 'id="id_new_password_error"' in response.text
    assert "This password is too short. It must contain at least 8 characters." in response.text


def test_account_pages_need_a_session(client):
    for path in (
        "/en/accounts/profile/",
        "/en/accounts/password/",
        "/en/me/favorites/",
        "/en/me/visits/",
    ):
        response = client.get(path)
        assert response.status_code == 302
        assert response.url == f"/en/accounts/login/?next={path}"
