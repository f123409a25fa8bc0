from config.api.routers import OptionalSlashRouter
from media_app.api.views import ImageViewSet, VideoViewSet

router = OptionalSlashRouter()
router.register("images", ImageViewSet, basename="images")
router.register("videos", VideoViewSet, basename="videos")

urlpatterns = router.urls
