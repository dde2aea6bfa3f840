// The live dashboard: one WebSocket per page; the server sends HTML fragments, each swapped in by its id.
// On a drop the page says so, reconnects with backoff and asks for the rolls after the last one it shows;
// when the server cannot pass live updates on (1013), it says they are paused, and tries again the same way.
// What every live page does the same way comes from live-pages.js.
(() => {
  "use strict";
  const live = window.dicehallLive;
  const root = document.getElementById("live");
  if (!root || !live) return;
  const status = document.getElementById("live-status");
  const feed = document.getElementById("roll-feed");
  const feedEmpty = document.getElementById("roll-feed-empty");
  const feedSize = Number(root.dataset.feedSize) || 20;
  let lastSeq = Number(root.dataset.lastSeq) || 0;
  // The server's close code when it cannot reach the channel layer or the database: the page keeps trying.
  const TRY_AGAIN_LATER = 1013;

  const parse = (html) => {
    const template = document.createElement("template");
    template.innerHTML = html.trim();
    return template.content.firstElementChild;
  };
  const seqOf = (element) => Number(element.id.replace("roll-", ""));
  const enhance = (element) => { if (window.htmx) window.htmx.process(element); };

  // A fragment that shows the same as the one shown (what another member's change sent every socket,
  // unchanged for this one, its forms' tokens aside) is left in place: a button being pressed or holding the focus in it stays where it is.
  function swap(id, html) {
    const old = document.getElementById(id);
    if (!old) return;
    const element = parse(html);
    if (live.sameShown(old, element)) return;
    old.replaceWith(element);
    enhance(element);
  }

  function addRoll(seq, html) {
    const element = parse(html);
    const old = document.getElementById(element.id);
    if (old) old.replaceWith(element);
    else feed.insertBefore(element, [...feed.children].find((li) => seqOf(li) < seq) || null);
    while (feed.children.length > feedSize) feed.lastElementChild.remove();
    feedEmpty.hidden = true;
    lastSeq = Math.max(lastSeq, seq);
    enhance(element);
  }

  function say(text, state = text ? "down" : "up") {
    status.textContent = text;
    status.hidden = !text;
    root.dataset.live = state;
  }

  live.connect(root, {
    opened(socket) {
      // The page of the party it shows (none: the first), for the rows it is sent again.
      const after = root.dataset.partyAfter;
      socket.send(JSON.stringify(after ? { since: lastSeq, after } : { since: lastSeq }));
      say("");
    },
    heard(message) {
      if (message.type === "roll") addRoll(message.seq, message.html);
      else if (message.type === "fragment") swap(message.id, message.html);
    },
    closed(code) {
      if (code === 4403) return say("Live updates are off: you are no longer a member here. Reload the page.", "off");
      if (code === 4401) return say("Live updates are off: you logged out. Log in again to follow the table.", "off");
      if (code === TRY_AGAIN_LATER) {
        return say("Live updates are paused: the server cannot pass them on just now. "
          + "They resume by themselves, with anything missed.", "paused");
      }
      say("Connection lost — reconnecting…");
    },
  });
})();
