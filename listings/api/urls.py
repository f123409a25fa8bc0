from config.api.routers import OptionalSlashRouter
from listings.api.serializers import RECORD_KEYS
from listings.api.views import TYPE_RECORD_VIEWSETS, CategoryViewSet, PlaceViewSet, PropertyViewSet

# URL prefix of each kind's resource, as the interface names them.
RECORD_PATHS = {
    "house": "houses",
    "apartment": "apartments",
    "land": "lands",
    "office": "offices",
    "commercial": "commercials",
    "hotel": "hotels",
    "development": "developments",
}

router = OptionalSlashRouter()
router.register("categories", CategoryViewSet, basename="categories")
router.register("properties", PropertyViewSet, basename="properties")
router.register("places", PlaceViewSet, basename="places")
for kind, viewset in TYPE_RECORD_VIEWSETS.items():
    router.register(RECORD_PATHS[kind], viewset, basename=RECORD_KEYS[kind])

urlpatterns = router.urls
