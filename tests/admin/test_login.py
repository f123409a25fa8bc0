"""The admin login page counts attempts against the API's login limits (D6, D13)."""

import pytest
from django.contrib.auth.signals import user_login_failed

from accounts.models import UserType
from accounts.services import user_create

pytestmark = pytest.mark.django_db

LOGIN_URL = "/admin/login/"
PASSWORD = "a-long-enough-passphrase"
WRONG_PASSWORD = "not-the-passphrase"
WRONG_LOGIN = "Please enter the correct email and password for a staff account."
TOO_MANY = "Too many attempts. Try again in"


@pytest.fixture
def login_rates(throttle_rates):
    """The production rates, whatever the environment says: 10 a minute per address and
    10 a minute per email."""
    throttle_rates(login="10/min", login_email="10/min")


@pytest.fixture
def staff_member(db):
    """An ADMIN who signs in with PASSWORD."""
    return user_create(
        email="ada.admin@example.com", password=PASSWORD, name="Ada", user_type=UserType.ADMIN
    )


@pytest.fixture
def failed_logins():
    """The emails of the sign-ins Django's authenticate() judged and refused, in order.

    A refused attempt must not reach authenticate() at all: that is where every attempt
    costs a password hash, even for an unknown email.
    """
    emails: list[str] = []

    def record(sender, credentials, **kwargs):
        emails.append(credentials.get("email") or credentials.get("username"))

    user_login_failed.connect(record, dispatch_uid="test-admin-login-failed")
    yield emails
    user_login_failed.disconnect(dispatch_uid="test-admin-login-failed")


def attempt(client, email: str, password: str, address: str):
    """Post the admin login form from a client address."""
    return client.post(
        LOGIN_URL,
        {"username": email, "password": password, "next": "/admin/"},
        REMOTE_ADDR=address,
    )


def assert_judged(response) -> None:
    """A wrong password answered as Django's admin answers it."""
    assert response.status_code == 200
    assert WRONG_LOGIN in response.text
    assert TOO_MANY not in response.text


def assert_refused(response) -> None:
    """The login page again, 429, saying how long to wait, and nobody signed in."""
    assert response.status_code == 429
    assert TOO_MANY in response.text
    assert 'id="login-form"' in response.text
    wait = int(response["Retry-After"])
    assert 1 <= wait <= 60
    assert f"Try again in {wait} seconds." in response.text
    assert "_auth_user_id" not in response.wsgi_request.session


def test_the_eleventh_failed_attempt_from_one_address_is_refused(
    client, staff_member, login_rates, failed_logins
):
    # when one address tries ten wrong passwords, then an eleventh and then the right one
    judged = [
        attempt(client, staff_member.email, WRONG_PASSWORD, "203.0.113.7") for _try in range(10)
    ]
    eleventh = attempt(client, staff_member.email, WRONG_PASSWORD, "203.0.113.7")
    right = attempt(client, staff_member.email, PASSWORD, "203.0.113.7")

    # then the first ten are answered as usual
    for response in judged:
        assert_judged(response)
    # and the eleventh and the right password are refused without checking any password
    assert_refused(eleventh)
    assert_refused(right)
    assert failed_logins == [staff_member.email] * 10
    assert client.get("/admin/").status_code == 302


def test_attempts_on_one_email_are_counted_from_every_address(
    client, staff_member, login_rates, failed_logins
):
    # when ten addresses each try a wrong password on the admin's email (in any case)
    spellings = [staff_member.email, staff_member.email.upper()]
    judged = [
        attempt(client, spellings[number % 2], WRONG_PASSWORD, f"198.51.100.{number}")
        for number in range(1, 11)
    ]
    # and an eleventh address tries it, then another email
    eleventh = attempt(client, staff_member.email, PASSWORD, "192.0.2.50")
    other_email = attempt(client, "someone.else@example.com", WRONG_PASSWORD, "192.0.2.50")

    # then the email's eleventh attempt is refused, the right password included
    for response in judged:
        assert_judged(response)
    assert_refused(eleventh)
    # and another email from that address is still judged
    assert_judged(other_email)
    assert len(failed_logins) == 11


def test_attempts_from_one_address_are_counted_whatever_the_email(
    client, staff_member, login_rates, failed_logins
):
    # when one address tries ten different emails, then the admin's with the right password
    judged = [
        attempt(client, f"guess{number}@example.com", WRONG_PASSWORD, "203.0.113.7")
        for number in range(10)
    ]
    eleventh = attempt(client, staff_member.email, PASSWORD, "203.0.113.7")
    # and another address signs in
    elsewhere = attempt(client, staff_member.email, PASSWORD, "198.51.100.9")

    # then the address's eleventh attempt is refused
    for response in judged:
        assert_judged(response)
    assert_refused(eleventh)
    assert len(failed_logins) == 10
    # and another address, with the email's count still low, signs in
    assert elsewhere.status_code == 302
    assert elsewhere["Location"] == "/admin/"


def test_the_right_password_within_the_limit_signs_in(
    client, staff_member, login_rates, failed_logins
):
    # when an admin mistypes nine times, then types the right password
    mistakes = [
        attempt(client, staff_member.email, WRONG_PASSWORD, "203.0.113.7") for _try in range(9)
    ]
    right = attempt(client, staff_member.email, PASSWORD, "203.0.113.7")

    # then the tenth attempt signs in
    for response in mistakes:
        assert_judged(response)
    assert right.status_code == 302
    assert right["Location"] == "/admin/"
    assert client.get("/admin/").status_code == 200
    assert len(failed_logins) == 9


def test_opening_the_login_page_is_not_an_attempt(client, staff_member, login_rates):
    # when the page is opened many times
    pages = [client.get(LOGIN_URL, REMOTE_ADDR="203.0.113.7") for _view in range(12)]

    # then it always shows, and a sign-in still works
    assert [page.status_code for page in pages] == [200] * 12
    assert attempt(client, staff_member.email, PASSWORD, "203.0.113.7").status_code == 302
