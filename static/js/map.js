/* Maps of the website: one marker per listing; on the search page, clusters when zoomed
 * out, "Search this area" and "Draw an area".
 *
 * Every element with data-map gets a Leaflet map. Its markers come from the JSON script
 * named by data-markers ({id, title, price, transactionType, lat, lng, url}). Tiles come
 * from data-tile-url (the MAP_TILE_URL setting); without one the markers are drawn on a
 * blank background and nothing is fetched from anywhere. The data is read with
 * JSON.parse and written with textContent: no listing text is ever parsed as HTML.
 */
(function () {
  "use strict";
  if (!window.estateLeaflet) { return; }
  // Texts in the page's language: Django's JavaScript catalog (config.urls, "jsi18n"), loaded
  // before this script; without it, the English texts.
  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, count) { return count === 1 ? one : many; };
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };
  var LANGUAGE = document.documentElement.lang || "en";

  var WORLD = [[-60, -170], [75, 170]];
  // From this zoom on (a town's streets), the map shows each listing rather than clusters.
  var MARKER_ZOOM = 13;

  function readMarkers(element) {
    var source = document.getElementById(element.dataset.markers || "");
    if (!source) { return []; }
    var parsed = JSON.parse(source.textContent);
    return Array.isArray(parsed) ? parsed : [parsed];
  }

  function formatPrice(value) {
    var number = Number(value);
    return isFinite(number) ? number.toLocaleString(LANGUAGE, { maximumFractionDigits: 2 }) : value;
  }

  function popupFor(marker) {
    var box = document.createElement("div");
    var title = document.createElement(marker.url ? "a" : "span");
    title.className = "map-popup__title";
    title.textContent = marker.title;
    if (marker.url) { title.href = marker.url; }
    var price = document.createElement("span");
    var deal = marker.transactionType === "RENT" ? gettext("%(price)s for rent") : gettext("%(price)s for sale");
    price.textContent = interpolate(deal, { price: formatPrice(marker.price) }, true);
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

  /* The visible area within the world's coordinates: [west, south, east, north]. */
  function viewBounds(map) {
    var bounds = map.getBounds();
    var west = bounds.getWest(), east = bounds.getEast();
    if (east - west >= 360) { west = -180; east = 180; }
    return [
      round(clamp(west, -180, 180)), round(clamp(bounds.getSouth(), -90, 90)),
      round(clamp(east, -180, 180)), round(clamp(bounds.getNorth(), -90, 90))
    ];
  }

  /* The visible area as the API's bbox parameter: minLng,minLat,maxLng,maxLat. */
  function bboxOf(map) { return viewBounds(map).join(","); }

  /* The intersection of two boxes [[south, west], [north, east]], or null when they do not
   * meet; a box across the antimeridian (west > east) is left to the search's own box. */
  function intersect(view, search) {
    if (!search) { return view; }
    if (search[0][1] > search[1][1] || view[0][1] > view[1][1]) { return search; }
    var south = Math.max(view[0][0], search[0][0]), west = Math.max(view[0][1], search[0][1]);
    var north = Math.min(view[1][0], search[1][0]), east = Math.min(view[1][1], search[1][1]);
    return south <= north && west <= east ? [[south, west], [north, east]] : null;
  }

  function viewBox(map) {
    var edges = viewBounds(map);
    return [[edges[1], edges[0]], [edges[3], edges[2]]];
  }

  function asBbox(box) {
    return [box[0][1], box[0][0], box[1][1], box[1][0]].map(round).join(",");
  }

  /* A cluster's marker: its count in a round badge; Enter or a click zooms into it. */
  function clusterMarker(map, cluster, markerZoom) {
    var badge = document.createElement("span");
    badge.textContent = cluster.count.toLocaleString(LANGUAGE);
    var size = cluster.count < 100 ? 36 : cluster.count < 10000 ? 44 : 52;
    var name = interpolate(
      ngettext("%(count)s listing, from %(price)s; zoom in", "%(count)s listings, from %(price)s; zoom in", cluster.count),
      { count: cluster.count.toLocaleString(LANGUAGE), price: formatPrice(cluster.lowestPrice) },
      true
    );
    var marker = L.marker([cluster.latitude, cluster.longitude], {
      icon: L.divIcon({ className: "map-cluster", html: badge, iconSize: [size, size] }),
      title: name,
      keyboard: true,
      // Panning to a focused cluster would fetch the clusters again and replace it.
      autoPanOnFocus: false
    });
    // A button's name would be its text, the bare count: the label says what it is.
    marker.on("add", function () { marker.getElement().setAttribute("aria-label", name); });
    function zoomIn() {
      var bounds = L.latLngBounds(
        [cluster.bounds.south, cluster.bounds.west], [cluster.bounds.north, cluster.bounds.east]
      );
      var target = Math.min(map.getBoundsZoom(bounds.pad(0.1)), markerZoom);
      map.setView(bounds.getCenter(), Math.max(target, map.getZoom() + 1));
    }
    marker.on("click", zoomIn);
    // A button works with Enter and Space (Leaflet's markers only open popups on Enter).
    marker.on("keypress", function (event) {
      var key = event.originalEvent.key;
      if (key === "Enter" || key === " ") {
        event.originalEvent.preventDefault();
        zoomIn();
      }
    });
    return marker;
  }

  /* Zoomed out, the map shows the search's clusters in its view (GET
   * /properties/clusters); zoomed in to data-marker-zoom, one marker per listing. */
  function followZoom(element, map, markerLayer, markerZoom) {
    var clustersUrl = element.dataset.clustersUrl;
    if (!clustersUrl) { markerLayer.addTo(map); return; }
    var status = (element.closest("section") || document).querySelector("[data-map-status]");
    var searchBox = parseBbox(element.dataset.bbox);
    var clusterLayer = L.layerGroup();
    var latest = 0;
    function show(kind, layer) {
      element.dataset.showing = kind;
      (kind === "clusters" ? markerLayer : clusterLayer).remove();
      layer.addTo(map);
    }
    function refresh() {
      var request = ++latest;
      element.dataset.zoomLevel = String(map.getZoom());
      if (map.getZoom() >= markerZoom) {
        show("markers", markerLayer);
        if (status) { status.textContent = gettext("Showing each listing."); }
        return;
      }
      var box = intersect(viewBox(map), searchBox);
      if (!box) { clusterLayer.clearLayers(); show("clusters", clusterLayer); return; }
      var url = new URL(clustersUrl, window.location.href);
      url.searchParams.set("zoom", String(Math.max(0, Math.min(22, Math.floor(map.getZoom())))));
      url.searchParams.set("bbox", asBbox(box));
      element.dataset.loading = "true";
      fetch(url.toString(), { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (body) {
          if (request !== latest || !body) { return; }
          clusterLayer.clearLayers();
          body.clusters.forEach(function (cluster) {
            clusterMarker(map, cluster, markerZoom).addTo(clusterLayer);
          });
          show("clusters", clusterLayer);
          if (status) {
            var listings = interpolate(
              ngettext("%(count)s listing", "%(count)s listings", body.totalItems),
              { count: body.totalItems.toLocaleString(LANGUAGE) },
              true
            );
            var groups = interpolate(
              ngettext("%(count)s group", "%(count)s groups", body.clusters.length),
              { count: body.clusters.length.toLocaleString(LANGUAGE) },
              true
            );
            status.textContent = interpolate(
              gettext("%(listings)s in %(groups)s; zoom in to see each listing."),
              { listings: listings, groups: groups },
              true
            );
          }
        })
        .catch(function () { if (request === latest) { show("markers", markerLayer); } })
        .finally(function () { if (request === latest) { delete element.dataset.loading; } });
    }
    map.on("moveend", refresh);
    refresh();
  }

  /* The drawn area of the search (data-polygon: lng,lat,...), and "Draw an area", whose
   * shape becomes the search's polygon parameter (Leaflet.draw's polygon tool; its edges
   * may not cross). */
  function drawnArea(element, map, panel) {
    var numbers = (element.dataset.polygon || "").split(",").filter(Boolean).map(Number);
    if (numbers.length >= 8) {
      var ring = [];
      for (var i = 0; i + 1 < numbers.length - 2; i += 2) { ring.push([numbers[i + 1], numbers[i]]); }
      var area = L.polygon(ring, { color: "#1d4ed8", weight: 2, fillOpacity: 0.08, interactive: false });
      area.addTo(map);
    }
    var button = panel.querySelector("[data-draw-area]");
    if (!button || !L.Draw || !L.Draw.Polygon) { return; }
    var help = panel.querySelector("[data-draw-area-help]");
    var tool = new L.Draw.Polygon(map, {
      allowIntersection: false,
      showArea: false,
      shapeOptions: { color: "#1d4ed8", weight: 2, fillOpacity: 0.08 }
    });
    button.hidden = false;
    button.addEventListener("click", function () {
      tool.enable();
      if (help) { help.hidden = false; }
    });
    map.on(L.Draw.Event.DRAWSTOP, function () { if (help) { help.hidden = true; } });
    map.on(L.Draw.Event.CREATED, function (event) {
      var corners = event.layer.getLatLngs()[0];
      var points = corners.concat([corners[0]]).map(function (corner) {
        var longitude = ((corner.lng + 180) % 360 + 360) % 360 - 180;
        return round(longitude) + "," + round(clamp(corner.lat, -90, 90));
      });
      var url = new URL(window.location.href);
      url.searchParams.set("polygon", points.join(","));
      url.searchParams.delete("bbox");
      url.searchParams.delete("page");
      window.location.assign(url.toString());
    });
  }

  function setUp(element) {
    var markers = readMarkers(element);
    var map = L.map(element, { scrollWheelZoom: false, worldCopyJump: true });
    var tileUrl = element.dataset.tileUrl;
    if (tileUrl) {
      L.tileLayer(tileUrl, { attribution: element.dataset.tileAttribution || "", maxZoom: 19 }).addTo(map);
    }
    var points = [];
    var markerLayer = L.layerGroup();
    markers.forEach(function (marker) {
      var point = [marker.lat, marker.lng];
      points.push(point);
      L.marker(point, { title: marker.title, alt: marker.title, keyboard: true })
        .bindPopup(popupFor(marker))
        .addTo(markerLayer);
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
    followZoom(element, map, markerLayer, Number(element.dataset.markerZoom || MARKER_ZOOM));

    var panel = element.closest("section") || document;
    drawnArea(element, map, panel);
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
    return map;
  }

  /* A map is set up once it has a size (a map hidden when the page opens, a phone's list
   * view, has none, and Leaflet cannot fit a view into none) and is near the viewport;
   * Leaflet is fetched then (leaflet-loader.js). Later changes of its size (the list and map
   * switch, a turned phone) are passed on to it. */
  function whenShown(element) {
    var map = null;
    var requested = false;
    var near = typeof IntersectionObserver === "undefined";
    function setUpWhenSeen() {
      if (requested || !near || !element.offsetWidth || !element.offsetHeight) { return; }
      requested = true;
      window.estateLeaflet.load().then(function () { map = setUp(element); });
    }
    if (!near) {
      new IntersectionObserver(function (entries) {
        near = entries[entries.length - 1].isIntersecting;
        setUpWhenSeen();
      }, { rootMargin: "200px" }).observe(element);
    }
    if (typeof ResizeObserver === "undefined") { setUpWhenSeen(); return; }
    new ResizeObserver(function () {
      if (map) { map.invalidateSize(); } else { setUpWhenSeen(); }
    }).observe(element);
  }

  document.querySelectorAll("[data-map]").forEach(whenShown);
})();
