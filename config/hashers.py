"""Password hashers beyond Django's own."""

from django.contrib.auth.hashers import Argon2PasswordHasher


class CheapArgon2PasswordHasher(Argon2PasswordHasher):
    """Argon2 with minimal cost, for the test suite only.

    Same algorithm and encoding as production (hashes verify with either class), so tests
    still exercise Argon2; production's cost (100 MB per hash) would dominate the suite.
    """

    time_cost = 1
    memory_cost = 64
    parallelism = 1
