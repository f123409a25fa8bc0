/* "Filters (n)" on a phone: the search's fields other than the keywords fold behind a
 * disclosure button (aria-expanded, aria-controls), opened and closed with a tap, Enter or
 * Space.
 *
 * The folding itself is CSS (site.css: below 48rem, and only where scripts run, so that
 * without JavaScript every field is shown); this script turns the button's state and the
 * panel's class together. Wider, the button is hidden and every field is shown.
 */
(function () {
  "use strict";
  document.querySelectorAll("[data-filters-toggle]").forEach(function (button) {
    var panel = document.getElementById(button.getAttribute("aria-controls"));
    if (!panel) { return; }
    button.addEventListener("click", function () {
      var open = button.getAttribute("aria-expanded") !== "true";
      button.setAttribute("aria-expanded", String(open));
      panel.classList.toggle("search-form__filters--open", open);
    });
  });
})();
