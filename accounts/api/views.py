"""The users endpoints: register, login, logout, list, detail, change, delete."""

from django.contrib.auth import logout
from django.shortcuts import get_object_or_404
from django.utils import translation
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import status
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from accounts import selectors, services
from accounts.api.serializers import (
    AuthResultSerializer,
    LoginSerializer,
    RegisterSerializer,
    UserDetailSerializer,
    UserSerializer,
    UserUpdateSerializer,
)
from accounts.filters import UserFilter
from accounts.models import AccessToken, User
from config.api.pagination import DataPagination
from config.api.permissions import IsAdmin
from config.api.throttling import LOGIN_THROTTLES, RegisterAddressThrottle
from config.api.viewsets import ApiViewSet


def _auth_result(user: User, *, response_status: int) -> Response:
    token, access_token = services.access_token_issue(user=user)
    body = AuthResultSerializer(
        {
            "token": token,
            "token_type": "Bearer",
            "expires_at": access_token.expires_at,
            "user": user,
        }
    ).data
    return Response(body, status=response_status)


@extend_schema_view(
    list=extend_schema(
        summary="List users (administrators)",
    ),
    retrieve=extend_schema(summary="A user: yourself, or anyone for an administrator"),
    partial_update=extend_schema(
        summary="Change a user", request=UserUpdateSerializer, responses=UserDetailSerializer
    ),
    destroy=extend_schema(summary="Delete an account and everything that hangs on it"),
)
class UserViewSet(ApiViewSet):
    """Accounts (decisions D4, D6, D7)."""

    serializer_class = UserDetailSerializer
    pagination_class = DataPagination
    filterset_class = UserFilter
    http_method_names = ["get", "post", "patch", "delete", "head", "options"]

    def get_permissions(self):
        if self.action in ("register", "login"):
            return []
        if self.action == "list":
            return [IsAdmin()]
        return [IsAuthenticated()]

    def get_throttles(self):
        throttles = super().get_throttles()
        if self.action == "login":
            return [*throttles, *(throttle_class() for throttle_class in LOGIN_THROTTLES)]
        if self.action == "register":
            return [*throttles, RegisterAddressThrottle()]
        return throttles

    def get_queryset(self):
        if self.action == "list":
            return selectors.user_list(viewer=self.request.user)
        return selectors.user_detail_queryset(viewer=self.request.user)

    def get_serializer_class(self):
        return UserSerializer if self.action == "list" else UserDetailSerializer

    def list(self, request):
        users = self.filter_queryset(self.get_queryset())
        page = self.paginate_queryset(users)
        return self.get_paginated_response(UserSerializer(page, many=True).data)

    def retrieve(self, request, pk=None):
        return Response(UserDetailSerializer(self.get_object()).data)

    def partial_update(self, request, pk=None):
        user = self.get_object()
        serializer = UserUpdateSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        # A password change revokes the user's tokens, but the one of this request, if any.
        keep_token = request.auth if isinstance(request.auth, AccessToken) else None
        services.user_update(
            user=user, by=request.user, fields=set(data), keep_token=keep_token, **data
        )
        return Response(UserDetailSerializer(self.get_queryset().get(pk=user.pk)).data)

    def destroy(self, request, pk=None):
        services.user_delete(user=self.get_object(), by=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def get_object(self) -> User:
        return get_object_or_404(self.get_queryset(), pk=self.kwargs["pk"])

    @extend_schema(
        summary="Create an account (CUSTOMER or OWNER) and sign in",
        request=RegisterSerializer,
        responses={201: AuthResultSerializer},
    )
    @action(detail=False, methods=["post"])
    def register(self, request):
        serializer = RegisterSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        # The language of the user's emails: the one asked for, else the request's own
        # (LocaleMiddleware chose it from Accept-Language).
        data = {"language": translation.get_language(), **serializer.validated_data}
        user = services.user_register(**data)
        return _auth_result(user, response_status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Sign in with email and password",
        request=LoginSerializer,
        responses={200: AuthResultSerializer},
    )
    @action(detail=False, methods=["post"])
    def login(self, request):
        serializer = LoginSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        user = services.user_authenticate(**serializer.validated_data)
        return _auth_result(user, response_status=status.HTTP_200_OK)

    @extend_schema(
        summary="Revoke the bearer token of this request", request=None, responses={204: None}
    )
    @action(detail=False, methods=["post"])
    def logout(self, request):
        if isinstance(request.auth, AccessToken):
            services.access_token_revoke(access_token=request.auth)
        else:
            # Signed in through the website's session: end that session.
            logout(request._request)
        return Response(status=status.HTTP_204_NO_CONTENT)
