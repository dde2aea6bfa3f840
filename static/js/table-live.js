// The live table: the campaign's socket (ws/campaigns/<pk>/) says when the table changed, and nothing
// of what changed (each member's view is their own). The page then fetches its own view again and
// swaps it in; unless a box of it holds something typed and not sent: then it says the table changed
// and offers to show it, keeping what was typed. On reconnecting it fetches again, for what it missed.
(() => {
  "use strict";
  const live = window.dicehallLive;
  const root = document.querySelector("[data-table-live]");
  if (!root || !live) return;
  const catchUp = live.followRegion("table-body", {
    noticeName: "table-changed",
    noticeWords: "The table changed since this was shown. ",
  });

  live.connect(root, {
    opened(socket, again) {
      if (again) catchUp();
    },
    heard(message) {
      if (message.type !== "table" || !Number.isInteger(message.version)) return;
      const shown = Number((document.getElementById("table-body") || root).dataset.version) || 0;
      if (message.version > shown) catchUp();
    },
  });
})();
