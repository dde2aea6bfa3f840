// The live sheet: one WebSocket per open sheet page, which hears only the sheet's version (on
// connecting, and after every save). When it is newer than the regions shown, the page fetches
// itself again and swaps each region by its id, except a region open in an edit form: that keeps
// its form and what was typed, and says the sheet changed meanwhile (if that section changed,
// the server refuses the save and shows the section as it is now, with what was typed).
(() => {
  "use strict";
  const sheet = document.querySelector("article.sheet[data-live-url]");
  if (!sheet || !("WebSocket" in window) || !("fetch" in window)) return;
  const CHANGED = "This sheet changed while you were editing. If this section changed too, " +
    "saving will not overwrite it: you will see what it says now, next to what you typed.";
  let shown = Number(sheet.dataset.version) || 0; // the version the regions show
  let wanted = shown; // the newest version the server announced
  let running = false;
  const waiting = new Set(); // regions with an htmx request on its way when fresh ones came
  const recheck = new Set(); // ... whose request is over: to swap (or mark) from a fresh copy
  let delay = 500;

  // A region htmx is loading or swapping (while it settles, htmx lends a swapped-in region the
  // attributes of the one it replaced, such as the form's "editing" class): left alone until done.
  const HTMX_BUSY = ".htmx-request, .htmx-swapping, .htmx-settling";
  const busy = (region) => region.matches(HTMX_BUSY) || region.querySelector(HTMX_BUSY) !== null;
  const editing = (region) => region.querySelector("form") !== null; // a read-only region has none

  function notice(region) {
    if (region.querySelector(".sheet-changed")) return;
    const note = document.createElement("p");
    note.className = "sheet-changed";
    note.setAttribute("role", "status");
    const heading = region.querySelector("h2");
    if (heading) heading.after(note);
    else region.prepend(note);
    // Filled in once it is in the page: screen readers announce a change to a live region.
    setTimeout(() => { note.textContent = CHANGED; }, 100);
  }

  // Each region of the fresh copy (``only``: just those ids) in place of the page's own.
  function apply(fresh, only) {
    for (const element of fresh.querySelectorAll(":scope > [id]")) {
      if (only && !only.has(element.id)) continue;
      const region = document.getElementById(element.id);
      if (!region || region.parentElement !== sheet) continue;
      if (busy(region)) { waiting.add(region.id); continue; }
      if (editing(region)) { notice(region); continue; }
      const focused = region.contains(document.activeElement) ? document.activeElement.id : "";
      const copy = document.importNode(element, true);
      copy.querySelectorAll("[autofocus]").forEach((e) => e.removeAttribute("autofocus"));
      region.replaceWith(copy);
      if (window.htmx) window.htmx.process(copy);
      const refocus = focused && document.getElementById(focused);
      if (refocus) refocus.focus({ preventScroll: true });
    }
  }

  async function fetchSheet() {
    const response = await fetch(location.pathname, { headers: { Accept: "text/html" }, cache: "no-store" });
    if (!response.ok) return null; // gone or no longer visible: leave the page as it is
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    return page.querySelector("article.sheet");
  }

  async function catchUp() {
    if (running) return;
    running = true;
    try {
      while (wanted > shown || recheck.size) {
        const target = wanted;
        const only = wanted > shown ? null : new Set(recheck);
        recheck.clear();
        const fresh = await fetchSheet();
        if (!fresh) break;
        shown = Math.max(shown, target, Number(fresh.dataset.version) || 0);
        sheet.dataset.version = String(shown);
        apply(fresh, only);
      }
    } catch {
      // Offline for a moment: the socket reconnects, hears the version and tries again.
    } finally {
      running = false;
    }
  }

  // A region's own request (Edit, Save, Cancel) is over: it is read-only again or a form now.
  function requestsDone() {
    for (const id of waiting) {
      const region = document.getElementById(id);
      if (!region || !busy(region)) { waiting.delete(id); recheck.add(id); }
    }
    if (recheck.size) catchUp();
  }
  document.addEventListener("htmx:afterRequest", requestsDone);
  document.addEventListener("htmx:afterSettle", requestsDone);

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}${sheet.dataset.liveUrl}`);
    socket.addEventListener("open", () => {
      delay = 500;
      sheet.dataset.live = "up";
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type !== "sheet" || !Number.isInteger(message.version)) return;
      // The first message, on (re)connecting, says whether the page missed a change.
      wanted = Math.max(wanted, message.version);
      if (wanted > shown) catchUp();
    });
    socket.addEventListener("close", (event) => {
      // Not (or no longer) allowed, or logged out: the page stays as it is, no longer live.
      if (event.code === 4403 || event.code === 4401) {
        sheet.dataset.live = "off";
        return;
      }
      sheet.dataset.live = "down";
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    });
  }
  connect();
})();
