/* Town suggestions for the search page's town field: a WAI-ARIA combobox with a list box.
 *
 * The field (data-suggest-url, aria-controls naming the list) asks GET /api/v1/places?q=...
 * once typing pauses, and lists the towns it answers with their listings. Arrow Down and
 * Arrow Up move through them (aria-activedescendant: the focus stays in the field), Enter
 * or a click picks one, Escape closes the list; Enter with none chosen submits the search
 * as before. Only the latest answer is shown. Names are written with textContent. Without
 * JavaScript, or when the API refuses, the field is a plain text field.
 */
(function () {
  "use strict";
  // Texts in the page's language: Django's JavaScript catalog (config.urls, "jsi18n"), loaded
  // before this script; without it, the English texts.
  var gettext = window.gettext || function (text) { return text; };
  var ngettext = window.ngettext || function (one, many, count) { return count === 1 ? one : many; };
  var interpolate = window.interpolate || function (text, values) {
    return text.replace(/%\((\w+)\)s/g, function (match, name) { return String(values[name]); });
  };
  var LANGUAGE = document.documentElement.lang || "en";

  var PAUSE_MS = 150;
  var SHOWN = 8;

  var input = document.querySelector("input[data-suggest-url]");
  if (!input) { return; }
  var list = document.getElementById(input.getAttribute("aria-controls"));
  var status = document.getElementById("municipality-status");
  if (!list) { return; }

  var places = [];
  var active = -1;
  var latest = 0;
  var timer = null;

  function setExpanded(expanded) {
    list.hidden = !expanded;
    input.setAttribute("aria-expanded", expanded ? "true" : "false");
  }

  function highlight(index) {
    var items = list.children;
    for (var i = 0; i < items.length; i++) {
      items[i].setAttribute("aria-selected", i === index ? "true" : "false");
    }
    active = index;
    if (index >= 0) {
      input.setAttribute("aria-activedescendant", items[index].id);
      items[index].scrollIntoView({ block: "nearest" });
    } else {
      input.removeAttribute("aria-activedescendant");
    }
  }

  function close() {
    highlight(-1);
    setExpanded(false);
  }

  function choose(index) {
    input.value = places[index].name;
    close();
  }

  function countText(listings) {
    return interpolate(
      ngettext("%(count)s listing", "%(count)s listings", listings),
      { count: listings.toLocaleString(LANGUAGE) },
      true
    );
  }

  function show(answer) {
    places = answer;
    list.textContent = "";
    places.forEach(function (place, index) {
      var item = document.createElement("li");
      item.id = list.id + "-" + index;
      item.className = "suggestions__option";
      item.setAttribute("role", "option");
      item.setAttribute("aria-selected", "false");
      var name = document.createElement("span");
      name.textContent = place.name;
      var count = document.createElement("span");
      count.className = "suggestions__count";
      count.textContent = countText(place.listings);
      item.append(name, count);
      // mousedown, not click: the field keeps its focus and does not close the list first.
      item.addEventListener("mousedown", function (event) {
        event.preventDefault();
        choose(index);
      });
      list.appendChild(item);
    });
    highlight(-1);
    setExpanded(places.length > 0);
    if (status) {
      status.textContent = places.length === 0 ? "" : interpolate(
        ngettext("%(count)s town suggested", "%(count)s towns suggested", places.length),
        { count: places.length },
        true
      );
    }
  }

  function suggest() {
    var text = input.value.trim();
    var asked = ++latest;
    if (!text) {
      show([]);
      return;
    }
    var query = new URLSearchParams({ q: text, limit: String(SHOWN) });
    fetch(input.dataset.suggestUrl + "?" + query.toString(), {
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    })
      .then(function (response) { return response.ok ? response.json() : { places: [] }; })
      .then(function (body) { if (asked === latest) { show(body.places || []); } })
      .catch(function () { if (asked === latest) { show([]); } });
  }

  input.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(suggest, PAUSE_MS);
  });

  input.addEventListener("keydown", function (event) {
    if (list.hidden) {
      if (event.key === "ArrowDown" && input.value.trim()) {
        event.preventDefault();
        suggest();
      }
      return;
    }
    if (event.key === "ArrowDown") {
      event.preventDefault();
      highlight((active + 1) % places.length);
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      highlight(active <= 0 ? places.length - 1 : active - 1);
    } else if (event.key === "Enter" && active >= 0) {
      event.preventDefault();
      choose(active);
    } else if (event.key === "Escape") {
      event.preventDefault();
      close();
    }
  });

  input.addEventListener("blur", close);
})();
