// The site's own behaviour, in one static file: the Content-Security-Policy allows no inline
// script, no inline event handler and no style attribute (config/settings.py, SECURE_CSP).
// Every listener is on the document, so what htmx swaps in needs nothing done to it. Without
// JavaScript each of these degrades to a plain link or form.
(function () {
  "use strict";

  function closest(event, selector) {
    return event.target.closest ? event.target.closest(selector) : null;
  }

  // "Are you sure?": a form or a button with data-confirm asks first (closing a turn,
  // starting the campaign, auto-resolving a battle, the last confirmation of a turn). In the
  // capture phase, so that a refusal stops the submission before htmx sees it.
  document.addEventListener("click", function (event) {
    var asks = closest(event, "[data-confirm]:not(form)");
    if (asks && !window.confirm(asks.dataset.confirm)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);
  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (form.matches && form.matches("form[data-confirm]") && !window.confirm(form.dataset.confirm)) {
      event.preventDefault();
      event.stopPropagation();
    }
  }, true);

  // A refusal that says what changed (409: a page of another turn, orders saved meanwhile in
  // another tab) is drawn where the answer was to go, as a success is: htmx swaps only 2xx
  // answers by itself, and the player would see nothing happen.
  document.addEventListener("htmx:beforeSwap", function (event) {
    if (event.detail.xhr.status === 409) {
      event.detail.shouldSwap = true;
      event.detail.isError = false;
    }
  });

  // Print buttons (battle packs).
  document.addEventListener("click", function (event) {
    if (closest(event, "[data-print]")) {
      window.print();
    }
  });

  // The map (templates/includes/map_svg.html). Its width in squares sets how wide it is
  // drawn (map.css, --map-cols): set through the CSSOM, which the policy allows.
  function sizeMaps() {
    document.querySelectorAll(".map-scroll[data-cols]").forEach(function (box) {
      box.style.setProperty("--map-cols", box.dataset.cols);
    });
  }
  // The zoom button: the whole map fits the width (html[data-map-whole]), or its squares are
  // big enough to tap and it pans in its box. The state outlives htmx's redrawn maps.
  function zoomLabels() {
    var whole = document.documentElement.hasAttribute("data-map-whole");
    document.querySelectorAll(".map-zoom").forEach(function (b) {
      b.setAttribute("aria-pressed", whole ? "true" : "false");
      b.textContent = whole ? b.dataset.zoomed : b.dataset.whole;
    });
  }
  sizeMaps();
  document.addEventListener("htmx:afterSettle", function () {
    sizeMaps();
    zoomLabels();
  });

  document.addEventListener("click", function (event) {
    if (closest(event, ".map-zoom")) {
      document.documentElement.toggleAttribute("data-map-whole");
      zoomLabels();
      return;
    }
    // A tap focuses the force (its zone of control and name show through CSS :focus):
    // mobile browsers do not all focus SVG elements on a tap by themselves.
    var force = closest(event, ".map .force, .map .ghost");
    if (force) {
      force.focus();
      return;
    }
    // A square of the holdings form's map fills its column and row (without JavaScript the
    // square is a link that opens the page with them filled in).
    var pick = closest(event, ".map .click[data-pick]");
    var form = pick && document.getElementById(pick.dataset.pick);
    if (form) {
      event.preventDefault();
      form.elements.x.value = pick.dataset.x;
      form.elements.y.value = pick.dataset.y;
      form.scrollIntoView({ block: "nearest" });
      form.elements.x.focus();
      return;
    }
    // A square that is a link (the set-up map): htmx posts the click, the link stays unfollowed.
    if (closest(event, ".map a.click")) {
      event.preventDefault();
    }
  });

  // A square that is a button (the orders map): Enter or Space clicks it, as on a button.
  document.addEventListener("keydown", function (event) {
    if ((event.key === "Enter" || event.key === " ") && closest(event, ".map .click[role=button]")) {
      event.preventDefault(); // Space would scroll the page
    }
  });
  document.addEventListener("keyup", function (event) {
    var square = (event.key === "Enter" || event.key === " ") && closest(event, ".map .click[role=button]");
    if (square) {
      square.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));
    }
  });

  // The sign-up form's time zone: the browser's own, preselected (UTC without JavaScript, or
  // when the browser names a zone the list lacks). The script is deferred: the form is there.
  var zone = "";
  try {
    zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch (e) {
    zone = "";
  }
  document.querySelectorAll("select[data-browser-zone]").forEach(function (select) {
    var offered = Array.prototype.some.call(select.options, function (o) { return o.value === zone; });
    if (zone && offered) {
      select.value = zone;
    }
  });
})();
