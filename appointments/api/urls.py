from appointments.api.views import AppointmentViewSet
from config.api.routers import OptionalSlashRouter

router = OptionalSlashRouter()
router.register("appointments", AppointmentViewSet, basename="appointments")

urlpatterns = router.urls
