from config.api.routers import OptionalSlashRouter
from favorites.api.views import FavoriteViewSet


class FavoriteRouter(OptionalSlashRouter):
    """OptionalSlashRouter whose collection route also maps DELETE to `destroy_by_query`.

    The interface has `DELETE /favorites?propertyId=&userId=` beside `GET` and `POST` on the
    same path. An @action cannot take the collection's own URL (url_path="" is refused), and a
    separate view on that path would shadow the viewset's GET and POST, so the collection
    route's method map gains a third entry instead; everything else is the shared router.
    """

    routes = [
        route._replace(mapping={**route.mapping, "delete": "destroy_by_query"})
        if route.name == "{basename}-list"
        else route
        for route in OptionalSlashRouter.routes
    ]


router = FavoriteRouter()
router.register("favorites", FavoriteViewSet, basename="favorites")

urlpatterns = router.urls
