/* Leaflet, fetched when a map is about to be seen rather than with the page: on a phone the
 * search map waits behind the List | Map switch and a listing's map lies below its photos, so
 * most visits never run Leaflet at all (Lighthouse counted 300 to 600 ms of blocked main
 * thread on a throttled phone for it). Pages load this script (deferred) before their own map
 * script; the URLs come from its tag's data- attributes, under collectstatic's hashed names:
 *   data-leaflet   Leaflet itself
 *   data-plugins   space-separated plugins loaded after it, in order (the drawing tool)
 *   data-icon-url, data-icon-retina-url, data-shadow-url   the default marker's images:
 *     Leaflet guesses their folder from its stylesheet's URL, which hashed names break.
 * window.estateLeaflet.load() returns a promise of Leaflet, loaded once per page. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script) { return; }
  var sources = [script.dataset.leaflet].concat((script.dataset.plugins || "").split(" ").filter(Boolean));
  var loading = null;

  function loadScript(source) {
    return new Promise(function (resolve, reject) {
      var tag = document.createElement("script");
      tag.src = source;
      tag.onload = resolve;
      tag.onerror = reject;
      document.head.appendChild(tag);
    });
  }

  function configure() {
    // A string, even empty, stops Leaflet's guess; each URL below is then used as it is.
    L.Icon.Default.imagePath = "";
    L.Icon.Default.mergeOptions({
      iconUrl: script.dataset.iconUrl,
      iconRetinaUrl: script.dataset.iconRetinaUrl,
      shadowUrl: script.dataset.shadowUrl
    });
  }

  function load() {
    if (!loading) {
      loading = sources.reduce(function (previous, source) {
        return previous.then(function () { return loadScript(source); });
      }, Promise.resolve()).then(configure);
    }
    return loading;
  }

  window.estateLeaflet = { load: load };
})();
