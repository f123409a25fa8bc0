from accounts.api.views import UserViewSet
from config.api.routers import OptionalSlashRouter

router = OptionalSlashRouter()
router.register("users", UserViewSet, basename="users")

urlpatterns = router.urls
