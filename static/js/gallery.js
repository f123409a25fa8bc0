/* The listing page's photo gallery: the cover on a stage, thumbnails below it, and the
 * photo at full size in a native <dialog>.
 *
 * Without this script every photo is a link to its file. With it the thumbnails are one
 * stop of the Tab key: the arrow keys, Home and End move between them and show the photo
 * on the stage; Enter, a click or a tap opens the photo full size. In the dialog the arrow
 * keys and the buttons move on, Escape closes it and the focus returns to the thumbnail of
 * the photo last seen. A horizontal swipe (pointer events: touch, pen or mouse) on the
 * stage or the full-size photo shows the next or the previous one. Texts come from the
 * page (data-counter-text), where they are translated.
 */
(function () {
  "use strict";

  // A move this far sideways, more sideways than down, is a swipe rather than a tap.
  var SWIPE_PIXELS = 40;

  /* Call `onSwipe(1)` for a swipe to the left (next), `onSwipe(-1)` to the right; a swipe
   * is not a click, so a link swiped over does not open. */
  function swipeable(element, onSwipe) {
    var start = null;
    var swiped = false;
    element.addEventListener("pointerdown", function (event) {
      if (event.pointerType === "mouse" && event.button !== 0) { return; }
      start = { x: event.clientX, y: event.clientY, id: event.pointerId };
      swiped = false;
    });
    element.addEventListener("pointerup", function (event) {
      if (!start || event.pointerId !== start.id) { return; }
      var dx = event.clientX - start.x, dy = event.clientY - start.y;
      start = null;
      if (Math.abs(dx) >= SWIPE_PIXELS && Math.abs(dx) > Math.abs(dy)) {
        swiped = true;
        onSwipe(dx < 0 ? 1 : -1);
      }
    });
    element.addEventListener("pointercancel", function () { start = null; });
    element.addEventListener("click", function (event) {
      if (swiped) {
        event.preventDefault();
        event.stopPropagation();
        swiped = false;
      }
    }, true);
    // A dragged picture would start the browser's own drag and drop instead.
    element.addEventListener("dragstart", function (event) { event.preventDefault(); });
  }

  function setUp(gallery) {
    var stage = gallery.querySelector("[data-gallery-stage]");
    var dialog = gallery.querySelector("[data-gallery-dialog]");
    if (!stage || !dialog || typeof dialog.showModal !== "function") { return; }
    var stageImage = stage.querySelector("img");
    var thumbs = Array.prototype.slice.call(gallery.querySelectorAll("[data-gallery-thumb]"));
    var counter = dialog.querySelector("[data-gallery-counter]");
    var holder = dialog.querySelector("[data-gallery-full]");
    var counterText = gallery.dataset.counterText || "{number} / {total}";
    var total = Math.max(thumbs.length, 1);
    var current = 0;
    var opener = null;
    var full = null;

    /* What the page knows of photo `index`: from its thumbnail, or the stage for one photo. */
    function photo(index) {
      var link = thumbs[index] || stage;
      var image = link.querySelector("img");
      return {
        href: link.getAttribute("href"),
        src: image.getAttribute("src"),
        srcset: image.getAttribute("srcset") || "",
        fullSrcset: link.dataset.fullSrcset || "",
        alt: image.getAttribute("alt") || "",
        width: image.getAttribute("width"),
        height: image.getAttribute("height")
      };
    }

    function setImage(image, source, srcset, sizes) {
      // The sizes come first so that the browser picks from the new srcset only once.
      if (srcset) { image.sizes = sizes; image.srcset = srcset; } else { image.removeAttribute("srcset"); }
      image.src = source.src;
      image.alt = source.alt;
      if (source.width && source.height) {
        image.width = Number(source.width);
        image.height = Number(source.height);
      } else {
        image.removeAttribute("width");
        image.removeAttribute("height");
      }
    }

    function showFull() {
      var source = photo(current);
      if (!full) {
        full = document.createElement("img");
        full.className = "gallery__full";
        full.decoding = "async";
        full.draggable = false;
        holder.appendChild(full);
      }
      setImage(full, source, source.fullSrcset, "100vw");
      counter.textContent = counterText
        .replace("{number}", String(current + 1))
        .replace("{total}", String(total));
    }

    /* Make photo `index` the current one: on the stage, marked among the thumbnails, and
     * the thumbnails' one stop of the Tab key; `focus` moves the focus to its thumbnail. */
    function select(index, focus) {
      current = (index + total) % total;
      var source = photo(current);
      setImage(stageImage, source, source.srcset, stage.dataset.sizes || "100vw");
      stage.setAttribute("href", source.href);
      mark();
      if (focus && thumbs[current]) { thumbs[current].focus(); }
      if (dialog.open) { showFull(); }
    }

    function mark() {
      thumbs.forEach(function (thumb, position) {
        var chosen = position === current;
        thumb.tabIndex = chosen ? 0 : -1;
        if (chosen) { thumb.setAttribute("aria-current", "true"); } else { thumb.removeAttribute("aria-current"); }
      });
    }

    function open(from) {
      opener = from;
      showFull();
      dialog.showModal();
    }

    /* The arrow keys, Home and End; true when the key was one of them. */
    function move(event, focus) {
      var keys = { ArrowRight: current + 1, ArrowLeft: current - 1, Home: 0, End: total - 1 };
      if (!(event.key in keys) || event.altKey || event.ctrlKey || event.metaKey) { return false; }
      event.preventDefault();
      select(keys[event.key], focus);
      return true;
    }

    thumbs.forEach(function (thumb, index) {
      thumb.addEventListener("click", function (event) {
        event.preventDefault();
        select(index, false);
        open(thumb);
      });
      thumb.addEventListener("keydown", function (event) { move(event, true); });
      thumb.draggable = false;
    });
    stage.addEventListener("click", function (event) {
      event.preventDefault();
      open(stage);
    });
    stage.draggable = false;

    dialog.addEventListener("keydown", function (event) { move(event, false); });
    dialog.querySelector("[data-gallery-close]").addEventListener("click", function () { dialog.close(); });
    var previous = dialog.querySelector("[data-gallery-previous]");
    var next = dialog.querySelector("[data-gallery-next]");
    if (previous) { previous.addEventListener("click", function () { select(current - 1, false); }); }
    if (next) { next.addEventListener("click", function () { select(current + 1, false); }); }
    // A click on the backdrop (outside the dialog's box) closes it, as Escape does.
    dialog.addEventListener("click", function (event) {
      if (event.target === dialog) {
        var box = dialog.getBoundingClientRect();
        var inside = event.clientX >= box.left && event.clientX <= box.right &&
          event.clientY >= box.top && event.clientY <= box.bottom;
        if (!inside) { dialog.close(); }
      }
    });
    dialog.addEventListener("close", function () {
      // Back to the thumbnail of the photo last seen (or the stage it was opened from).
      var target = opener === stage || !thumbs[current] ? stage : thumbs[current];
      target.focus();
    });

    if (total > 1) {
      swipeable(stage, function (step) { select(current + step, false); });
      swipeable(holder, function (step) { select(current + step, false); });
    }
    mark();
    gallery.dataset.galleryReady = "true";
  }

  document.querySelectorAll("[data-gallery]").forEach(setUp);
})();
