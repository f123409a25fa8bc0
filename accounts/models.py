"""Users and their role records (Owner, Customer, Admin)."""

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser, BaseUserManager, PermissionsMixin
from django.db import models
from django.db.models.functions import Lower
from django.utils.translation import gettext_lazy as _

from config.models import IdField, TimestampedModel


class UserType(models.TextChoices):
    CUSTOMER = "CUSTOMER", _("Customer")
    OWNER = "OWNER", _("Owner")
    ADMIN = "ADMIN", _("Admin")


class UserManager(BaseUserManager):
    """Creates users by email; `createsuperuser` makes an ADMIN (decisions D6)."""

    use_in_migrations = True

    def _create_user(self, email: str, password: str | None, **fields):
        if not email:
            raise ValueError("An email address is required.")
        user = self.model(email=self.normalize_email(email).strip().lower(), **fields)
        user.set_password(password)
        user.save(using=self._db)
        return user

    def create_user(self, email: str, password: str | None = None, **fields):
        fields.setdefault("user_type", UserType.CUSTOMER)
        fields.setdefault("is_staff", False)
        fields.setdefault("is_superuser", False)
        return self._create_user(email, password, **fields)

    def create_superuser(self, email: str, password: str | None = None, **fields):
        """An ADMIN user with its Admin record (Django's `createsuperuser` calls this)."""
        fields["user_type"] = UserType.ADMIN
        fields["is_staff"] = True
        fields["is_superuser"] = True
        user = self._create_user(email, password, **fields)
        # Its role record, as accounts.services gives every user it creates; made here since
        # the models sit below the services.
        Admin.objects.get_or_create(user=user)
        return user


class User(AbstractBaseUser, PermissionsMixin):
    """An account on the platform, signed in with its email address.

    Credential material (the interface's `hash` and `salt`) lives only in Django's
    `password` field, in the hasher's encoded form.
    """

    id = IdField()
    # Stored lower-cased; the functional constraint below also refuses case variants.
    email = models.EmailField(max_length=254, unique=True)
    name = models.CharField(max_length=200, blank=True, null=True)
    phone = models.CharField(max_length=40, blank=True, null=True)
    image = models.URLField(max_length=500, blank=True, null=True)
    email_verified = models.DateTimeField(blank=True, null=True)
    user_type = models.CharField(
        max_length=8, choices=UserType.choices, default=UserType.CUSTOMER, db_index=True
    )
    # The language of the emails the user gets (and of the links in them): one of LANGUAGES,
    # set from the language of the sign-up and changed on the profile or by the API.
    language = models.CharField(
        _("language"), max_length=8, choices=settings.LANGUAGES, default=settings.LANGUAGE_CODE
    )
    is_active = models.BooleanField(default=True)
    is_staff = models.BooleanField(
        default=False, help_text="Kept equal to userType ADMIN: only admins enter /admin/."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = UserManager()

    USERNAME_FIELD = "email"
    EMAIL_FIELD = "email"
    REQUIRED_FIELDS: list[str] = []

    class Meta:
        ordering = ["-created_at", "id"]
        constraints = [
            models.UniqueConstraint(Lower("email"), name="accounts_user_email_ci_unique"),
            models.CheckConstraint(
                condition=models.Q(user_type__in=UserType.values),
                name="accounts_user_type_valid",
            ),
        ]
        indexes = [models.Index(fields=["-created_at", "id"], name="accounts_user_created_idx")]

    def __str__(self) -> str:
        return self.email

    @property
    def is_admin(self) -> bool:
        return self.user_type == UserType.ADMIN


class Owner(TimestampedModel):
    """The owner role of a user: properties and received appointments hang on it."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="owner")

    def __str__(self) -> str:
        return f"Owner {self.user.email}"


class Customer(TimestampedModel):
    """The customer role of a user."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="customer")

    def __str__(self) -> str:
        return f"Customer {self.user.email}"


class Admin(TimestampedModel):
    """The administrator role of a user; appointments may involve one."""

    user = models.OneToOneField(User, on_delete=models.CASCADE, related_name="admin")

    def __str__(self) -> str:
        return f"Admin {self.user.email}"


class AccessToken(models.Model):
    """An API bearer token of a user (decisions D6).

    Only the SHA-256 of the token is stored, so a leaked table grants nothing; revoking a
    token deletes its row. A user may hold several, each with its own expiry.
    """

    id = IdField()
    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="access_tokens")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"Token of {self.user_id} until {self.expires_at:%Y-%m-%d}"
