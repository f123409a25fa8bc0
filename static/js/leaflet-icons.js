/* Leaflet's default marker images, by the URLs the template gives (data- attributes of this
 * script's own tag). Leaflet guesses their folder from its stylesheet's URL, which the hashed
 * names of collectstatic break: it then asks for marker-icon-2x.png beside the page (a 404). */
(function () {
  "use strict";
  var script = document.currentScript;
  if (typeof L === "undefined" || !script) { return; }
  // A string, even empty, stops Leaflet's guess; each URL below is then used as it is.
  L.Icon.Default.imagePath = "";
  L.Icon.Default.mergeOptions({
    iconUrl: script.dataset.iconUrl,
    iconRetinaUrl: script.dataset.iconRetinaUrl,
    shadowUrl: script.dataset.shadowUrl
  });
})();
