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
