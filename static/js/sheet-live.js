// The live sheet: one WebSocket per open sheet page, which hears only the sheet's version (on
// connecting, and after every save). When it is newer than the regions shown, the page fetches
// itself again and swaps each region by its id, except a region open in an edit form: that keeps
// its form and what was typed, and says the sheet changed meanwhile (if that section changed,
// the server refuses the save and shows the section as it is now, with what was typed). What every
// live page does the same way comes from live-pages.js.
(() => {
  "use strict";
  const live = window.dicehallLive;
  const sheet = document.querySelector("article.sheet[data-live-url]");
  if (!sheet || !live) return;
  const CHANGED = "This sheet changed while you were editing. If this section changed too, " +
    "saving will not overwrite it: you will see what it says now, next to what you typed.";
  const waiting = new Set(); // regions with an htmx request on its way when fresh ones came
  const recheck = new Set(); // ... whose request is over: to swap (or mark) from a fresh copy

  // A read-only region has no form, but for the buttons that answer a decision (each a form of its own).
  const editing = (region) => region.querySelector("form:not(.prompt-answer)") !== null;

  // Each region of the fresh copy (``only``: just those ids) in place of the page's own.
  function apply(fresh, only) {
    for (const element of fresh.querySelectorAll(":scope > [id]")) {
      if (only && !only.has(element.id)) continue;
      const region = document.getElementById(element.id);
      if (!region || region.parentElement !== sheet) continue;
      if (live.busy(region)) { waiting.add(region.id); continue; }
      if (editing(region)) {
        live.notice(region, "sheet-changed", CHANGED, { offer: false, underHeading: true });
        continue;
      }
      const copy = document.importNode(element, true);
      copy.querySelectorAll("[autofocus]").forEach((e) => e.removeAttribute("autofocus"));
      live.swapIn(region, copy);
    }
  }

  const catchUp = live.oneAtATime(async () => {
    while (versions.wanted > versions.shown || versions.stale || recheck.size) {
      const target = versions.wanted;
      const only = versions.wanted > versions.shown || versions.stale ? null : new Set(recheck);
      versions.stale = false;
      recheck.clear();
      const fresh = await live.fetchCopy(location.pathname, "article.sheet");
      if (!fresh) break;
      versions.caughtUp(target, fresh);
      apply(fresh, only);
    }
  });
  const versions = live.followSheet(sheet, catchUp);

  // A region's own request (Edit, Save, Cancel) is over: it is read-only again or a form now.
  function requestsDone() {
    for (const id of waiting) {
      const region = document.getElementById(id);
      if (!region || !live.busy(region)) { waiting.delete(id); recheck.add(id); }
    }
    if (recheck.size) catchUp();
  }
  document.addEventListener("htmx:afterRequest", requestsDone);
  document.addEventListener("htmx:afterSettle", requestsDone);
})();
