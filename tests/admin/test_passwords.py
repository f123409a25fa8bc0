"""Setting a password from the back office ends the user's API tokens (user_password_set)."""

import pytest

from accounts.models import AccessToken
from accounts.services import access_token_issue, user_create, user_password_set
from tests.admin.support import change_form_data
from tests.api.support import assert_problem, bearer_client

pytestmark = pytest.mark.django_db

USERS_URL = "/admin/accounts/user/"
NEW_PASSWORD = "violet-river-77"


@pytest.fixture
def carla(db):
    """A customer who signs in with a password."""
    return user_create(email="carla@example.com", password="a-long-enough-passphrase", name="Carla")


def working_tokens(user, count: int = 2) -> list[str]:
    """New bearer tokens of the user, each checked to work."""
    tokens = [access_token_issue(user=user)[0] for _client in range(count)]
    assert token_statuses(user, tokens) == [200] * count
    return tokens


def token_statuses(user, tokens: list[str]) -> list[int]:
    """The status of a read of the user's own account with each token."""
    return [bearer_client(token).get(f"/api/v1/users/{user.pk}").status_code for token in tokens]


def assert_revoked(user, tokens: list[str]) -> None:
    """No token works any more (401 not_authenticated) and none is stored."""
    for token in tokens:
        response = bearer_client(token).get(f"/api/v1/users/{user.pk}")
        assert_problem(response, 401, "not_authenticated")
    assert not AccessToken.objects.filter(user=user).exists()


def test_setting_a_password_revokes_the_users_tokens(back_office, carla):
    # given
    tokens = working_tokens(carla)

    # when an admin sets a new password on the user's password page
    response = back_office.post(
        f"{USERS_URL}{carla.pk}/password/",
        {"usable_password": "true", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )

    # then it is set and no token of the user works any more
    assert response.status_code == 302
    assert response["Location"] == f"{USERS_URL}{carla.pk}/change/"
    carla.refresh_from_db()
    assert carla.check_password(NEW_PASSWORD)
    assert_revoked(carla, tokens)


def test_disabling_password_sign_in_revokes_the_users_tokens(back_office, carla):
    # given
    tokens = working_tokens(carla)

    # when an admin disables password-based authentication for the user
    response = back_office.post(
        f"{USERS_URL}{carla.pk}/password/", {"usable_password": "false", "unset-password": ""}
    )

    # then the user has no usable password and no working token
    assert response.status_code == 302
    carla.refresh_from_db()
    assert not carla.has_usable_password()
    assert_revoked(carla, tokens)


def test_a_refused_password_keeps_the_tokens(back_office, carla):
    # given
    tokens = working_tokens(carla)
    stored = carla.password

    # when the two passwords differ
    response = back_office.post(
        f"{USERS_URL}{carla.pk}/password/",
        {"usable_password": "true", "password1": NEW_PASSWORD, "password2": "something-else"},
    )

    # then nothing changed
    assert response.status_code == 200
    carla.refresh_from_db()
    assert carla.password == stored
    assert token_statuses(carla, tokens) == [200, 200]


def test_an_admin_setting_their_own_password_stays_signed_in(back_office, moderator):
    # given the admin's own tokens
    tokens = working_tokens(moderator)

    # when they set their own password from the back office
    response = back_office.post(
        f"{USERS_URL}{moderator.pk}/password/",
        {"usable_password": "true", "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )

    # then their tokens are revoked, and this session keeps working
    assert response.status_code == 302
    assert_revoked(moderator, tokens)
    assert back_office.get(USERS_URL).status_code == 200


def test_the_change_page_sets_no_password(back_office, carla):
    # given
    tokens = working_tokens(carla)
    stored = carla.password
    url = f"{USERS_URL}{carla.pk}/change/"

    # when the change page is posted with a new name and a password value slipped in
    data = change_form_data(back_office, url)
    response = back_office.post(url, {**data, "name": "Carla C.", "password": NEW_PASSWORD})

    # then the name is changed, but not the password (only the password page sets one),
    # and the tokens still work
    assert response.status_code == 302
    carla.refresh_from_db()
    assert carla.name == "Carla C."
    assert carla.password == stored
    assert token_statuses(carla, tokens) == [200, 200]


def test_changing_ones_own_password_revokes_ones_tokens(back_office, moderator):
    # given the admin with a password, signed in here, and their tokens
    user_password_set(user=moderator, password="the-old-passphrase-1")
    back_office.force_login(moderator)
    tokens = working_tokens(moderator)

    # when they change it on the site's own "Change password" page
    response = back_office.post(
        "/admin/password_change/",
        {
            "old_password": "the-old-passphrase-1",
            "new_password1": NEW_PASSWORD,
            "new_password2": NEW_PASSWORD,
        },
    )

    # then it is changed, their tokens are revoked, and this session keeps working
    assert response.status_code == 302
    assert response["Location"] == "/admin/password_change/done/"
    moderator.refresh_from_db()
    assert moderator.check_password(NEW_PASSWORD)
    assert_revoked(moderator, tokens)
    assert back_office.get(USERS_URL).status_code == 200
