// The live table: the campaign's socket (ws/campaigns/<pk>/) says when the table changed, and nothing
// of what changed (each member's view is their own). The page then fetches its own view again and
// swaps it in; unless a box of it holds something typed and not sent: then it says the table changed
// and offers to show it, keeping what was typed. On reconnecting it fetches again, for what it missed.
(() => {
  "use strict";
  const live = window.dicehallLive;
  const root = document.querySelector("[data-table-live]");
  if (!root || !live) return;
  let stale = false;
  const body = () => document.getElementById("table-body");

  const refresh = live.oneAtATime(async () => {
    while (stale) {
      const region = body();
      if (!region || live.busy(region)) break;
      if (live.typed(region)) {
        live.notice(region, "table-changed", "The table changed since this was shown. ");
        break;
      }
      stale = false;
      const fresh = await live.fetchCopy(location.pathname, "#table-body", { "HX-Request": "true" });
      if (!fresh) break;
      const now = body();
      if (now !== region || live.busy(now) || live.typed(now)) { stale = true; continue; }
      live.swapIn(now, fresh);
    }
  }, () => { stale = true; });

  document.addEventListener("htmx:afterSettle", () => { if (stale) refresh(); });

  live.connect(root, {
    opened(socket, again) {
      if (again) { stale = true; refresh(); }
    },
    heard(message) {
      if (message.type !== "table" || !Number.isInteger(message.version)) return;
      const shown = Number((body() || root).dataset.version) || 0;
      if (message.version <= shown) return;
      stale = true;
      refresh();
    },
  });
})();
