// Progressive enhancement only: every page works without this file.
document.documentElement.classList.add("js");

// While htmx recomputes a region, say so to assistive technology.
document.addEventListener("htmx:beforeRequest", (event) => {
  const target = event.detail.target;
  if (target) target.setAttribute("aria-busy", "true");
});
document.addEventListener("htmx:afterSettle", (event) => {
  const target = event.detail.target;
  if (target) target.setAttribute("aria-busy", "false");
});

// A form's refusal (400, 409, 422) comes back as its partial and goes in place, with the
// messages by the fields and everything typed kept (the htmx-config of base.html). Any other
// failure is not swapped in; say so by the control that asked, rather than leave the page
// silent, and keep the page as it is so that nothing typed is lost.
function problemAnchor(source) {
  return source && source.closest ? source.closest("form") || source : null;
}
function problemNotice(anchor) {
  if (anchor.tagName === "FORM") return anchor.querySelector(":scope > .request-problem");
  const next = anchor.nextElementSibling;
  return next && next.classList.contains("request-problem") ? next : null;
}
function requestProblem(source, text) {
  const anchor = problemAnchor(source);
  if (!anchor || !anchor.isConnected) return;
  let notice = problemNotice(anchor);
  if (!notice) {
    notice = document.createElement("p");
    notice.className = "request-problem";
    notice.setAttribute("role", "alert");
    if (anchor.tagName === "FORM") anchor.prepend(notice);
    else anchor.after(notice);
  }
  notice.textContent = text;
}
// Past a rate limit (429) the server says what was refused and for how long (Retry-After).
function rateLimitWords(xhr) {
  const template = document.createElement("template");
  template.innerHTML = xhr.responseText || "";
  const said = template.content.querySelector("#rate-limited p");
  if (said) return said.textContent;
  const wait = Number(xhr.getResponseHeader("Retry-After")) || 1;
  return `Too many requests just now: please wait ${wait} seconds and try again.`;
}
document.addEventListener("htmx:responseError", (event) => {
  const xhr = event.detail.xhr;
  if (xhr.status === 429) return requestProblem(event.detail.elt, rateLimitWords(xhr));
  const answer = `${xhr.status}${xhr.statusText ? ` ${xhr.statusText}` : ""}`;
  requestProblem(event.detail.elt, `That did not work (the server answered ${answer}). Try again, or reload the page.`);
});
document.addEventListener("htmx:sendError", (event) => {
  requestProblem(event.detail.elt, "The server could not be reached. Check the connection and try again.");
});
document.addEventListener("htmx:beforeRequest", (event) => {
  const anchor = problemAnchor(event.detail.elt);
  const notice = anchor && problemNotice(anchor);
  if (notice) notice.remove();
});

// Point-bought skill dice: the points the chosen dice cost, against the budget, as the player
// changes a die (no request; the server says the same when it draws the page). Listening on the
// document keeps it working on pages htmx swaps in.
document.addEventListener("change", (event) => {
  const form = event.target.closest && event.target.closest("form[data-point-budget]");
  const total = form && form.querySelector(".points-total");
  if (!total) return;
  const budget = Number(form.dataset.pointBudget);
  const costs = JSON.parse(form.dataset.pointCosts);
  let spent = 0;
  for (const select of form.querySelectorAll("select")) spent += costs[select.value] || 0;
  const left = spent <= budget ? `${budget - spent} left` : `${spent - budget} over the budget`;
  total.textContent = `Points spent: ${spent} of ${budget}; ${left}.`;
});

// Die codes spent against a budget (D6 creation): the pips the typed codes spend, as the player
// types (no request; the server counts again on every save). A box with data-base counts only the
// pips above its base (a skill above its stat); a box left empty counts nothing.
function codePips(text) {
  const match = /^\s*(\d{1,2})\s*[dD]\s*(?:\+\s*([0-2]))?\s*$/.exec(text);
  return match ? Number(match[1]) * 3 + Number(match[2] || 0) : null;
}
function pipWords(pips) {
  const dice = Math.floor(pips / 3);
  const rest = pips % 3;
  return rest ? `${dice}d+${rest}` : `${dice}d`;
}
document.addEventListener("input", (event) => {
  const key = event.target.dataset && event.target.dataset.counts;
  const form = key && event.target.closest("form");
  const total = form && form.querySelector(`[data-running-total="${key}"]`);
  if (!total) return;
  let spent = 0;
  for (const box of form.querySelectorAll(`input[data-counts="${key}"]`)) {
    const pips = codePips(box.value || box.placeholder || "");
    if (pips === null) continue;
    spent += box.dataset.base ? Math.max(0, pips - Number(box.dataset.base)) : pips;
  }
  const budget = Number(total.dataset.budget);
  const left = budget - spent;
  const words = left >= 0 ? `${pipWords(left)} left` : `${pipWords(-left)} too many`;
  total.firstChild.textContent = "As typed: ";
  total.querySelector("output").textContent = words;
});

// A background or an impairment chosen from the campaign's table: the name field suggests the
// entries of its row's kind, and an entry picked into a row without a description brings the
// table's (the server does the same when the step is saved). Listening on the document keeps it
// working on the form htmx swaps in.
document.addEventListener("change", (event) => {
  const kind = event.target.closest && event.target.closest("select[data-table-kind]");
  const row = kind && kind.closest("fieldset");
  const name = row && row.querySelector("input[name$='-name']");
  if (!name) return;
  const list = document.getElementById(`${kind.value}-table-entries`);
  if (list) name.setAttribute("list", list.id);
  else name.removeAttribute("list");
});
document.addEventListener("input", (event) => {
  const name = event.target;
  if (!name.matches || !name.matches("input[list]")) return;
  const list = document.getElementById(name.getAttribute("list"));
  const entry = list && Array.from(list.options).find((option) => option.value === name.value);
  const row = name.closest("fieldset");
  const description = row && row.querySelector("textarea[name$='-description']");
  if (entry && description && !description.value.trim()) description.value = entry.dataset.description || "";
});

// A control that asks the server as it changes (hx-trigger "change": the roll page's options, the
// calculator, the roll log's filters) but was changed before htmx listened to it: a choice made while
// the page's scripts were still on their way, or one the browser put back on going back to the page.
// Nothing asked then, so the page showed, and its Roll button sent, what the server drew, not what
// the form says. Once htmx has set the page up, each such control that no longer says what was drawn
// asks now, once, as its change would have.
function fieldChanged(field) {
  if (field.type === "checkbox" || field.type === "radio") return field.checked !== field.defaultChecked;
  if (field.tagName === "SELECT") {
    if (field.multiple) return Array.from(field.options).some((option) => option.selected !== option.defaultSelected);
    const drawn = Array.from(field.options).findIndex((option) => option.defaultSelected);
    return field.selectedIndex !== Math.max(drawn, 0);
  }
  if (field.tagName === "INPUT" || field.tagName === "TEXTAREA") return field.value !== field.defaultValue;
  return false;
}
function changedSinceDrawn(control) {
  const fields = control.matches("input, select, textarea") ? [control] : control.querySelectorAll("input, select, textarea");
  return Array.from(fields).some(fieldChanged);
}
document.addEventListener("htmx:load", (event) => {
  if (event.target !== document.body || !window.htmx) return;
  for (const control of document.querySelectorAll("[hx-trigger*='change']")) {
    if (changedSinceDrawn(control)) window.htmx.trigger(control, "change");
  }
});
