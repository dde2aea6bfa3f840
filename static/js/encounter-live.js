// The live encounter: the campaign's socket (ws/campaigns/<pk>/) says when the encounter changed (its
// order, a roll, damage, a turn, its end, a combatant's sheet saved anywhere: the "initiative" fragment
// every member hears). The page then fetches its own body again, as this member sees it, and swaps it
// in; unless a box of it holds something typed and not sent, or a chance to hit is shown and not
// rolled: then it says the encounter changed and offers to show it, keeping what was typed. A step
// shown in the body's place (someone joins, remove, end) is left alone: what comes after it is fetched
// fresh anyway. On reconnecting it fetches again, for what it missed while the socket was down. What
// every live page does the same way comes from live-pages.js.
(() => {
  "use strict";
  const live = window.dicehallLive;
  const root = document.querySelector("[data-encounter-live]");
  if (!root || !live) return;
  const catchUp = live.followRegion("encounter-body", {
    noticeName: "encounter-changed",
    noticeWords: "The encounter changed since this was shown. ",
    inProgress: (region) => region.querySelector("form.attack-roll") !== null || live.typed(region),
    ready: (region) => region.hasAttribute("data-live-body"),
  });

  live.connect(root, {
    opened(socket, again) {
      if (again) catchUp();
    },
    heard(message) {
      if (message.type !== "fragment" || message.id !== "initiative") return;
      catchUp();
    },
  });
})();
