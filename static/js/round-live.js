// The live round: the sheet's socket (ws/characters/<pk>/) says the sheet's version on connecting and
// after every save. When it is newer than the round the page shows (the GM wounded the character, a
// luck point was spent, another of the owner's pages rolled), the page fetches itself again and swaps
// the round in, unless a box of it holds something typed and not sent: then it says the round changed
// and offers to show it, keeping what was typed.
(() => {
  "use strict";
  const round = document.querySelector("[data-round-live]");
  if (!round || !("WebSocket" in window) || !("fetch" in window)) return;
  let shown = Number(round.dataset.version) || 0;
  let wanted = shown;
  let running = false;
  let delay = 500;

  const changed = (box) => {
    if (box.type === "hidden") return false;
    if (box.type === "checkbox" || box.type === "radio") return box.checked !== box.defaultChecked;
    if (box.tagName === "SELECT") {
      const initial = Array.from(box.options).findIndex((option) => option.defaultSelected);
      return box.selectedIndex !== Math.max(initial, 0);
    }
    return box.value !== box.defaultValue;
  };
  const typed = () => Array.from(round.querySelectorAll("input, textarea, select")).some(changed);

  function notice() {
    if (round.querySelector(".round-changed")) return;
    const note = document.createElement("p");
    note.className = "round-changed";
    note.setAttribute("role", "status");
    round.prepend(note);
    setTimeout(() => {
      note.append("The round changed since this page was shown. ");
      const link = document.createElement("a");
      link.href = location.pathname;
      link.textContent = "Show it as it is now";
      note.append(link);
    }, 100);
  }

  async function catchUp() {
    if (running) return;
    running = true;
    try {
      while (wanted > shown) {
        const target = wanted;
        if (typed()) { notice(); break; }
        const response = await fetch(location.pathname + location.search,
          { headers: { Accept: "text/html" }, cache: "no-store" });
        if (!response.ok) break;
        const page = new DOMParser().parseFromString(await response.text(), "text/html");
        const fresh = page.querySelector("[data-round-live]");
        if (!fresh) break;
        shown = Math.max(target, Number(fresh.dataset.version) || 0);
        round.dataset.version = String(shown);
        round.replaceChildren(...Array.from(fresh.childNodes, (node) => document.importNode(node, true)));
      }
    } catch {
      // Offline for a moment: the socket reconnects, hears the version and tries again.
    } finally {
      running = false;
    }
  }

  function connect() {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}${round.dataset.liveUrl}`);
    socket.addEventListener("open", () => { delay = 500; round.dataset.live = "up"; });
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type !== "sheet" || !Number.isInteger(message.version)) return;
      wanted = Math.max(wanted, message.version);
      if (wanted > shown) catchUp();
    });
    socket.addEventListener("close", (event) => {
      if (event.code === 4403 || event.code === 4401) { round.dataset.live = "off"; return; }
      round.dataset.live = "down";
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 10000);
    });
  }
  connect();
})();
