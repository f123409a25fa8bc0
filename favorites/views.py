"""Website pages of favorites: the saved listings and the favorite toggle of a listing page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from config.errors import Conflict, DomainError, NotFound
from config.website import next_url
from favorites.selectors import favorite_list
from favorites.services import favorite_add, favorite_remove_for
from listings.models import listing_url
from listings.views import visible_listing


@login_required
@require_GET
def my_favorites(request: HttpRequest) -> HttpResponse:
    """My saved listings, newest first (favorite_list: listings I can no longer see drop out)."""
    favorites = favorite_list(viewer=request.user)
    return render(request, "favorites/list.html", {"favorites": favorites})


@require_POST
def toggle(request: HttpRequest, pk: str) -> HttpResponse:
    """Save (`favorite=on`) or forget (`favorite=off`) a listing I can see.

    The wanted state is sent, not flipped, so a double submission does what the page said.
    """
    if not request.user.is_authenticated:
        return redirect_to_login(listing_url(pk=pk))
    listing = visible_listing(request, pk)
    back = next_url(request, listing.get_absolute_url())
    wanted = request.POST.get("favorite") == "on"
    try:
        if wanted:
            favorite_add(user=request.user, property=listing, by=request.user)
        else:
            favorite_remove_for(user=request.user, property=listing, by=request.user)
    except (Conflict, NotFound):
        # Already in the wanted state (another tab did it): nothing to say.
        pass
    except DomainError as error:
        messages.error(request, error.detail)
        return redirect(back)
    if wanted:
        messages.success(
            request, _("“%(title)s” saved to your favorites.") % {"title": listing.title}
        )
    else:
        messages.success(
            request, _("“%(title)s” removed from your favorites.") % {"title": listing.title}
        )
    return redirect(back)
