/* The listing form's map: clicking it fills in the latitude and longitude fields, and typing
 * coordinates moves its marker. Without JavaScript the two fields work on their own. */
(function () {
  "use strict";
  if (!window.estateLeaflet) { return; }
  var form = document.querySelector("[data-location-form]");
  var element = form && form.querySelector("[data-location-map]");
  if (!element) { return; }
  var latitude = form.querySelector("input[name='latitude']");
  var longitude = form.querySelector("input[name='longitude']");
  if (!latitude || !longitude) { return; }

  window.estateLeaflet.load().then(function () {
    element.hidden = false;
    var map = L.map(element, { scrollWheelZoom: false });
    if (element.dataset.tileUrl) {
      L.tileLayer(element.dataset.tileUrl, { attribution: element.dataset.tileAttribution || "", maxZoom: 19 }).addTo(map);
    }
    var marker = null;

    function current() {
      var lat = parseFloat(latitude.value), lng = parseFloat(longitude.value);
      return isFinite(lat) && isFinite(lng) && Math.abs(lat) <= 90 && Math.abs(lng) <= 180 ? [lat, lng] : null;
    }

    function place(point) {
      if (marker) { marker.setLatLng(point); }
      else {
        var name = window.gettext ? window.gettext("The property's position") : "The property's position";
        marker = L.marker(point, { title: name, alt: name }).addTo(map);
      }
    }

    var start = current();
    if (start) { place(start); map.setView(start, 14); } else { map.setView([20, 0], 2); }

    map.on("click", function (event) {
      var point = event.latlng.wrap();
      latitude.value = point.lat.toFixed(6);
      longitude.value = point.lng.toFixed(6);
      place([point.lat, point.lng]);
    });
    [latitude, longitude].forEach(function (input) {
      input.addEventListener("change", function () {
        var point = current();
        if (point) { place(point); map.panTo(point); }
      });
    });
  });
})();
