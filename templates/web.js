// The web archive's stepper (gm.web): shows one turn of a game page at a
// time, with buttons and the arrow keys. Without it every turn is on the
// page, each with its own anchor and previous/next links.
(function () {
  "use strict";
  var turns = Array.prototype.slice.call(document.querySelectorAll("section.turn"));
  var bar = document.getElementById("stepper");
  if (turns.length < 2 || !bar) { return; }
  var shown = 0;
  var label = document.getElementById("step-shown");
  var prev = document.getElementById("step-prev");
  var next = document.getElementById("step-next");
  var all = document.getElementById("step-all");
  function show(index, keepHash) {
    shown = Math.max(0, Math.min(turns.length - 1, index));
    turns.forEach(function (turn, i) { turn.hidden = i !== shown; });
    document.body.setAttribute("data-shown", turns[shown].getAttribute("data-turn"));
    label.textContent = turns[shown].getAttribute("data-title") + " (" + (shown + 1) + " of " + turns.length + ")";
    prev.disabled = shown === 0;
    next.disabled = shown === turns.length - 1;
    if (!keepHash && window.history && history.replaceState) { history.replaceState(null, "", "#" + turns[shown].id); }
  }
  function fromHash() {
    var found = turns.findIndex(function (turn) { return "#" + turn.id === location.hash; });
    return found < 0 ? 0 : found;
  }
  bar.hidden = false;
  prev.addEventListener("click", function () { show(shown - 1); });
  next.addEventListener("click", function () { show(shown + 1); });
  all.addEventListener("click", function () {
    turns.forEach(function (turn) { turn.hidden = false; });
    document.body.setAttribute("data-shown", "all");
    label.textContent = "All " + turns.length;
  });
  document.addEventListener("click", function (e) {
    var link = e.target.closest && e.target.closest("nav.step a");
    if (!link) { return; }
    var index = turns.findIndex(function (turn) { return "#" + turn.id === link.getAttribute("href"); });
    if (index >= 0) { e.preventDefault(); show(index); bar.scrollIntoView({block: "nearest"}); }
  });
  document.addEventListener("keydown", function (e) {
    if (e.target && /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName)) { return; }
    if (e.key === "ArrowLeft") { show(shown - 1); } else if (e.key === "ArrowRight") { show(shown + 1); }
  });
  window.addEventListener("hashchange", function () { show(fromHash(), true); bar.scrollIntoView({block: "start"}); });
  show(fromHash(), true);
  if (location.hash) { bar.scrollIntoView({block: "start"}); }
}());
