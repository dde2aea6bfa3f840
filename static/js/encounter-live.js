// The live encounter: the campaign's socket (ws/campaigns/<pk>/) says when the encounter changed (its
// order, a roll, damage, a turn, its end: the "initiative" fragment every member hears). The page then
// fetches its own body again, as this member sees it, and swaps it in; unless a box of it holds
// something typed and not sent, or a chance to hit is shown and not rolled: then it says the encounter
// changed and offers to show it, keeping what was typed. A step shown in the body's place (someone
// joins, remove, end) is left alone: what comes after it is fetched fresh anyway. On reconnecting it
// fetches again, for what it missed while the socket was down.
(() => {
  "use strict";
  const root = document.querySelector("[data-encounter-live]");
  if (!root || !("WebSocket" in window) || !("fetch" in window)) return;
  let stale = false;
  let running = false;
  let opened = false;
  let delay = 500;

  const body = () => document.getElementById("encounter-body");
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
  const inProgress = (region) => region.querySelector("form.attack-roll") !== null ||
    Array.from(region.querySelectorAll("input, textarea, select")).some(changed);

  function notice(region) {
    if (region.querySelector(".encounter-changed")) return;
    const note = document.createElement("p");
    note.className = "encounter-changed";
    note.setAttribute("role", "status");
    region.prepend(note);
    // Filled in once it is in the page: screen readers announce a change to a live region.
    setTimeout(() => {
      note.append("The encounter changed since this was shown. ");
      const link = document.createElement("a");
      link.href = location.pathname;
      link.textContent = "Show it as it is now";
      note.append(link);
    }, 100);
  }

  async function refresh() {
    if (running) return;
    running = true;
    try {
      while (stale) {
        const region = body();
        if (!region || !region.hasAttribute("data-live-body") || busy(region)) break; // after the swap
        if (inProgress(region)) { notice(region); break; }
        stale = false;
        const response = await fetch(location.pathname,
          { headers: { "HX-Request": "true", Accept: "text/html" }, cache: "no-store" });
        if (!response.ok) break;
        const template = document.createElement("template");
        template.innerHTML = (await response.text()).trim();
        const fresh = template.content.getElementById("encounter-body");
        if (!fresh) break; // not the encounter (signed out meanwhile): left as it is
        const now = body();
        if (now !== region || busy(now) || inProgress(now)) { stale = true; continue; }
        const focused = now.contains(document.activeElement) ? document.activeElement.id : "";
        now.replaceWith(fresh);
        if (window.htmx) window.htmx.process(fresh);
        const refocus = focused && document.getElementById(focused);
        if (refocus) refocus.focus({ preventScroll: true });
      }
    } catch {
      stale = true; // offline for a moment: the socket reconnects and tries again
    } finally {
      running = false;
    }
  }

  // The member's own request is over (a roll, a turn, Cancel): what changed meanwhile is fetched now.
  document.addEventListener("htmx:afterSettle", () => { if (stale) refresh(); });

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}${root.dataset.liveUrl}`);
    socket.addEventListener("open", () => {
      delay = 500;
      root.dataset.live = "up";
      if (opened) { stale = true; refresh(); }
      opened = true;
    });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type !== "fragment" || message.id !== "initiative") return;
      stale = true;
      refresh();
    });
    socket.addEventListener("close", (event) => {
      if (event.code === 4403 || event.code === 4401) { root.dataset.live = "off"; return; }
      root.dataset.live = "down";
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    });
  }
  connect();
})();
