// The live round: the sheet's socket (ws/characters/<pk>/) says the sheet's version on connecting and
// after every save. When it is newer than the round the page shows (the GM wounded the character, a
// luck point was spent, another of the owner's pages rolled), the page fetches itself again and swaps
// the round in, unless a box of it holds something typed and not sent: then it says the round changed
// and offers to show it, keeping what was typed. What every live page does the same way comes from
// live-pages.js.
(() => {
  "use strict";
  const live = window.dicehallLive;
  const round = document.querySelector("[data-round-live]");
  if (!round || !live) return;

  const catchUp = live.oneAtATime(async () => {
    while (versions.wanted > versions.shown) {
      const target = versions.wanted;
      if (live.typed(round)) {
        live.notice(round, "round-changed", "The round changed since this page was shown. ");
        break;
      }
      const fresh = await live.fetchCopy(location.pathname + location.search, "[data-round-live]");
      if (!fresh) break;
      versions.caughtUp(target, fresh);
      round.replaceChildren(...Array.from(fresh.childNodes, (node) => document.importNode(node, true)));
    }
  });
  const versions = live.followSheet(round, catchUp);
})();
