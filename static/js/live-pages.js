// What every live page does the same way, for its own script to use (window.dicehallLive): keep
// the page's socket open, tell a box typed in and not sent, say in a note that the page changed
// since it was shown, and fetch the page again to catch up. A browser without WebSocket or fetch
// gets none of it, and its pages stay as they were loaded.
(() => {
  "use strict";
  if (!("WebSocket" in window) || !("fetch" in window)) return;
  // The server's close code when it cannot reach the channel layer or the database (RFC 6455).
  const TRY_AGAIN_LATER = 1013;

  // The page's socket (the root's data-live-url), open for as long as the page is: after a drop it
  // tries again after half a second, then twice as long each time, up to ten seconds. The root's
  // data-live says "up", "down", "paused" (the server closed it with 1013, "try again later": it cannot
  // reach what carries the table's news just now, and the page tries again the same way) or "off" (not,
  // or no longer, allowed, or logged out: the page stays as it is, no longer live). ``opened(socket,
  // again)``: again is true on reconnecting, when the page may have missed something; ``heard(message)``;
  // ``closed(code)``.
  function connect(root, { opened, heard, closed }) {
    let delay = 500;
    let again = false;
    const open = () => {
      const scheme = location.protocol === "https:" ? "wss:" : "ws:";
      const socket = new WebSocket(`${scheme}//${location.host}${root.dataset.liveUrl}`);
      socket.addEventListener("open", () => {
        delay = 500;
        root.dataset.live = "up";
        if (opened) opened(socket, again);
        again = true;
      });
      socket.addEventListener("message", (event) => heard(JSON.parse(event.data)));
      socket.addEventListener("close", (event) => {
        const refused = event.code === 4403 || event.code === 4401;
        root.dataset.live = refused ? "off" : event.code === TRY_AGAIN_LATER ? "paused" : "down";
        if (closed) closed(event.code);
        if (refused) return;
        setTimeout(open, delay);
        delay = Math.min(delay * 2, 10000);
      });
    };
    open();
  }

  // A sheet's socket says the sheet's version on connecting (whether the page missed a change) and
  // after every save. The versions: ``shown``, the one the page shows (the root's data-version), and
  // ``wanted``, the newest the server announced; ``catchUp`` runs whenever wanted is newer, and calls
  // ``caughtUp(target, fresh)`` with the version it asked for and the copy it fetched.
  function followSheet(root, catchUp) {
    const versions = {
      shown: Number(root.dataset.version) || 0,
      wanted: 0,
      // The campaign's table, of which the sheet shows a part (a hand): a newer one makes the page stale.
      table: Number(root.dataset.tableVersion) || 0,
      stale: false,
      caughtUp(target, fresh) {
        versions.shown = Math.max(versions.shown, target, Number(fresh.dataset.version) || 0);
        root.dataset.version = String(versions.shown);
      },
    };
    versions.wanted = versions.shown;
    connect(root, {
      heard(message) {
        if (message.type === "table" && Number.isInteger(message.version) && "tableVersion" in root.dataset) {
          if (message.version > versions.table) {
            versions.table = message.version;
            versions.stale = true;
            catchUp();
          }
          return;
        }
        if (message.type !== "sheet" || !Number.isInteger(message.version)) return;
        versions.wanted = Math.max(versions.wanted, message.version);
        if (versions.wanted > versions.shown) catchUp();
      },
    });
    return versions;
  }

  // A region htmx is loading or swapping (while it settles, htmx lends a swapped-in region the
  // attributes of the one it replaced): left alone until done.
  const HTMX_BUSY = ".htmx-request, .htmx-swapping, .htmx-settling";
  const busy = (region) => region.matches(HTMX_BUSY) || region.querySelector(HTMX_BUSY) !== null;

  const changed = (box) => {
    if (box.type === "hidden") return false;
    if (box.type === "checkbox" || box.type === "radio") return box.checked !== box.defaultChecked;
    if (box.tagName === "SELECT") {
      const initial = Array.from(box.options).findIndex((option) => option.defaultSelected);
      return box.selectedIndex !== Math.max(initial, 0);
    }
    return box.value !== box.defaultValue;
  };
  // Whether a box of the region holds something typed (or picked) and not sent.
  const typed = (region) => Array.from(region.querySelectorAll("input, textarea, select")).some(changed);

  // Says once, at the top of the region (under its heading, with ``underHeading``), that it changed
  // since it was shown, in a note of the class ``name``; with ``offer``, a link to show the page as
  // it is now follows the words.
  function notice(region, name, words, { offer = true, underHeading = false } = {}) {
    if (region.querySelector(`.${name}`)) return;
    const note = document.createElement("p");
    note.className = name;
    note.setAttribute("role", "status");
    const heading = underHeading && region.querySelector("h2");
    if (heading) heading.after(note);
    else region.prepend(note);
    // Filled in once it is in the page: screen readers announce a change to a live region.
    setTimeout(() => {
      note.append(words);
      if (!offer) return;
      const link = document.createElement("a");
      link.href = location.pathname;
      link.textContent = "Show it as it is now";
      note.append(link);
    }, 100);
  }

  // The page fetched again (with ``headers``, such as htmx's, for the part htmx would get), and its
  // element that ``selector`` finds; null if the page is gone or no longer visible, or has none.
  async function fetchCopy(url, selector, headers = {}) {
    const response = await fetch(url, { headers: { ...headers, Accept: "text/html" }, cache: "no-store" });
    if (!response.ok) return null;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    return page.querySelector(selector);
  }

  // A region as it shows, for comparing two copies of it: without the forms' tokens (drawn afresh for every
  // page) and the empty class attributes htmx leaves on what it swapped in (its classes come and go).
  function shown(region) {
    const copy = region.cloneNode(true);
    for (const token of copy.querySelectorAll("input[name='csrfmiddlewaretoken']")) token.removeAttribute("value");
    for (const element of [copy, ...copy.querySelectorAll("[class='']")]) {
      if (element.getAttribute("class") === "") element.removeAttribute("class");
    }
    return copy;
  }

  // The fresh region in place of the old, ready for htmx, with the focus where it was (by id). A copy that
  // shows the same as the region (the member's own change, which htmx has just swapped in, heard again on
  // the socket) is left out: the region stays, and a control being pressed or holding the focus in it with it.
  const sameShown = (one, other) => shown(one).isEqualNode(shown(other));

  function swapIn(region, fresh) {
    if (sameShown(region, fresh)) return;
    const focused = region.contains(document.activeElement) ? document.activeElement.id : "";
    region.replaceWith(fresh);
    if (window.htmx) window.htmx.process(fresh);
    const refocus = focused && document.getElementById(focused);
    if (refocus) refocus.focus({ preventScroll: true });
  }

  // A page's catching up, one run at a time: a call while it runs is left to it (its loop sees what
  // the call would have fetched). A failed fetch (offline for a moment) ends the run, and
  // ``offline`` is called: the socket reconnects and the page tries again.
  function oneAtATime(run, offline) {
    let running = false;
    return async () => {
      if (running) return;
      running = true;
      try {
        await run();
      } catch {
        if (offline) offline();
      } finally {
        running = false;
      }
    };
  }

  // A region of the page (by ``id``) that follows the server's copy: the function it returns marks the
  // region stale and fetches it again (as htmx would get it), swapping it in; unless the region is
  // busy, or not ``ready`` to be refreshed (a step shown in its place), or ``inProgress`` (a box typed in
  // and not sent, by default): then a note of the class ``noticeName`` says ``noticeWords`` and offers
  // to show it. Whatever changes while the member's own request runs is fetched once it has settled; a copy
  // of the version the region already shows (its ``data-version``) is not swapped in.
  function followRegion(id, { noticeName, noticeWords, inProgress = typed, ready = () => true }) {
    let stale = false;
    const body = () => document.getElementById(id);
    const refresh = oneAtATime(async () => {
      while (stale) {
        const region = body();
        if (!region || !ready(region) || busy(region)) break; // after the swap
        if (inProgress(region)) {
          notice(region, noticeName, noticeWords);
          break;
        }
        stale = false;
        const fresh = await fetchCopy(location.pathname, `#${id}`, { "HX-Request": "true" });
        if (!fresh) break; // not the page any more (signed out meanwhile): left as it is
        const now = body();
        if (now !== region || busy(now) || inProgress(now)) { stale = true; continue; }
        // The member's own request may have shown this version already: leave it (and the focus) in place.
        if (now.dataset.version && fresh.dataset.version === now.dataset.version) continue;
        swapIn(now, fresh);
      }
    }, () => { stale = true; });
    document.addEventListener("htmx:afterSettle", () => { if (stale) refresh(); });
    return () => { stale = true; refresh(); };
  }

  window.dicehallLive = { connect, followSheet, followRegion, busy, typed, notice, fetchCopy, swapIn, sameShown, oneAtATime };
})();
