/* Maps of the website: one marker per listing, and "Search this area" on the search page.
 *
 * Every element with data-map gets a Leaflet map. Its markers come from the JSON script
 * named by data-markers ({id, title, price, transactionType, lat, lng, url}). Tiles come
 * from data-tile-url (the MAP_TILE_URL setting); without one the markers are drawn on a
 * blank background and nothing is fetched from anywhere. The data is read with
 * JSON.parse and written with textContent: no listing text is ever parsed as HTML.
 */
(function () {
  "use strict";
  if (typeof L === "undefined") { return; }

  var WORLD = [[-60, -170], [75, 170]];

  function readMarkers(element) {
    var source = document.getElementById(element.dataset.markers || "");
    if (!source) { return []; }
    var parsed = JSON.parse(source.textContent);
    return Array.isArray(parsed) ? parsed : [parsed];
  }

  function formatPrice(value) {
    var number = Number(value);
    return isFinite(number) ? number.toLocaleString("en-US", { maximumFractionDigits: 2 }) : value;
  }

  function popupFor(marker) {
    var box = document.createElement("div");
    var title = document.createElement(marker.url ? "a" : "span");
    title.className = "map-popup__title";
    title.textContent = marker.title;
    if (marker.url) { title.href = marker.url; }
    var price = document.createElement("span");
    price.textContent = formatPrice(marker.price) + (marker.transactionType === "RENT" ? " for rent" : " for sale");
    box.appendChild(title);
    box.appendChild(price);
    return box;
  }

  function parseBbox(text) {
    var parts = (text || "").split(",").map(Number);
    if (parts.length !== 4 || parts.some(function (part) { return !isFinite(part); })) { return null; }
    return [[parts[1], parts[0]], [parts[3], parts[2]]];
  }

  function clamp(value, low, high) { return Math.min(high, Math.max(low, value)); }

  function round(value) { return Math.round(value * 100000) / 100000; }

  /* The visible area as the API's bbox parameter: minLng,minLat,maxLng,maxLat. */
  function bboxOf(map) {
    var bounds = map.getBounds();
    var west = bounds.getWest(), east = bounds.getEast();
    if (east - west >= 360) { west = -180; east = 180; }
    return [
      round(clamp(west, -180, 180)), round(clamp(bounds.getSouth(), -90, 90)),
      round(clamp(east, -180, 180)), round(clamp(bounds.getNorth(), -90, 90))
    ].join(",");
  }

  function setUp(element) {
    var markers = readMarkers(element);
    var map = L.map(element, { scrollWheelZoom: false, worldCopyJump: true });
    var tileUrl = element.dataset.tileUrl;
    if (tileUrl) {
      L.tileLayer(tileUrl, { attribution: element.dataset.tileAttribution || "", maxZoom: 19 }).addTo(map);
    }
    var points = [];
    markers.forEach(function (marker) {
      var point = [marker.lat, marker.lng];
      points.push(point);
      L.marker(point, { title: marker.title, alt: marker.title, keyboard: true })
        .bindPopup(popupFor(marker))
        .addTo(map);
    });
    var zoom = Number(element.dataset.zoom || 14);
    var bbox = parseBbox(element.dataset.bbox);
    if (bbox) {
      map.fitBounds(bbox);
    } else if (points.length === 1) {
      map.setView(points[0], zoom);
    } else if (points.length > 1) {
      map.fitBounds(points, { padding: [24, 24], maxZoom: zoom });
    } else {
      map.fitBounds(WORLD);
    }

    var panel = element.closest("section") || document;
    var button = panel.querySelector("[data-search-area]");
    if (button) {
      button.hidden = false;
      button.addEventListener("click", function () {
        var url = new URL(window.location.href);
        url.searchParams.set("bbox", bboxOf(map));
        url.searchParams.delete("page");
        window.location.assign(url.toString());
      });
    }
  }

  document.querySelectorAll("[data-map]").forEach(setUp);
})();
