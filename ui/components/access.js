// Every page's keyboard frame (ui/components/access.py): skip links ahead of everything else, each chart's toolbar as one Tab
// stop (the WAI-ARIA toolbar pattern: Tab reaches its current button, the arrow keys move along it), and boxes that
// scroll sideways made focusable. Streamlit redraws the page at every run, so the toolbars and boxes are looked at
// again once the page settles, and each time Tab is pressed, before the browser moves the focus.

const NAV_ID = "attention-skip-links";
const FOCUSABLE = "a[href], button, input, select, textarea, [tabindex]";
const SCROLLERS = '[data-testid="stMain"] :is(.katex-display, pre)';
let labels = null;

function main() {
  return document.querySelector('[data-testid="stMain"]');
}

function sections() {
  const root = main();
  if (!root) return [];
  return Array.from(root.querySelectorAll("h2, h3")).filter((h) => h.offsetParent !== null && h.textContent.trim());
}

// Focus a target that is not a control (a heading): it takes focus from the script only, and the next Tab goes on
// from there.
function focusOn(element) {
  if (!element) return;
  if (!element.matches(FOCUSABLE)) element.setAttribute("tabindex", "-1");
  element.scrollIntoView({ block: "start" });
  element.focus({ preventScroll: true });
}

function firstControl(root) {
  return Array.from(root.querySelectorAll(FOCUSABLE)).find(
    (e) => e.tabIndex >= 0 && !e.disabled && e.getClientRects().length > 0,
  );
}

function toControls() {
  const sidebar = document.querySelector('[data-testid="stSidebar"]');
  const open = document.querySelector('[data-testid="stExpandSidebarButton"]');
  const go = () => focusOn(sidebar && firstControl(sidebar.querySelector('[data-testid="stSidebarUserContent"]') || sidebar));
  if (sidebar && sidebar.dataset.collapsed === "true" && open) {
    open.click();
    setTimeout(go, 400); // the sidebar slides in
  } else {
    go();
  }
}

function link(text, action) {
  const a = document.createElement("a");
  a.href = "#";
  a.textContent = text;
  a.addEventListener("click", (event) => {
    event.preventDefault();
    action();
  });
  return a;
}

function skipLinks() {
  let nav = document.getElementById(NAV_ID);
  if (!nav) {
    nav = document.createElement("nav");
    nav.id = NAV_ID;
    nav.className = "skip-links";
    document.body.prepend(nav); // before Streamlit's root: the first stop of the Tab order
    nav.addEventListener("focusin", (event) => {
      if (!nav.contains(event.relatedTarget)) fillSkipLinks(nav); // the page's sections as they are now
    });
  }
  nav.setAttribute("aria-label", labels.skip);
  if (!nav.contains(document.activeElement)) fillSkipLinks(nav);
}

function fillSkipLinks(nav) {
  const found = sections();
  const said = [labels.content, labels.controls, ...found.map((h) => h.textContent.trim())].join("\n");
  if (nav.dataset.said === said) return; // nothing new: the page's own redraws do not touch the links
  nav.dataset.said = said;
  const list = document.createElement("ul");
  const item = (a) => list.appendChild(document.createElement("li")).appendChild(a);
  item(link(labels.content, () => focusOn(main() && main().querySelector("h1"))));
  if (document.querySelector('[data-testid="stSidebar"]')) item(link(labels.controls, toControls));
  if (found.length) {
    const inner = document.createElement("ul");
    inner.setAttribute("aria-label", labels.sections);
    for (const heading of found) {
      const a = link(heading.textContent.trim(), () => focusOn(heading));
      inner.appendChild(document.createElement("li")).appendChild(a);
    }
    list.appendChild(document.createElement("li")).appendChild(inner);
  }
  const focused = nav.contains(document.activeElement) ? document.activeElement.textContent : null;
  nav.replaceChildren(list);
  if (focused !== null) Array.from(nav.querySelectorAll("a")).find((a) => a.textContent === focused)?.focus();
}

// Each chart's toolbar: one button in the Tab order (the one last moved to, at first the camera, which saves the
// figure), the others reached with the arrow keys.
function toolbars() {
  for (const bar of document.querySelectorAll(".js-plotly-plot .modebar")) {
    const buttons = Array.from(bar.querySelectorAll(".modebar-btn"));
    if (!buttons.length) continue;
    bar.setAttribute("role", "toolbar");
    bar.setAttribute("aria-label", labels.tools);
    const current = Math.min(Number(bar.dataset.current || 0), buttons.length - 1);
    buttons.forEach((b, i) => b.setAttribute("tabindex", i === current ? "0" : "-1"));
  }
}

const MOVES = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };

function moveInToolbar(event) {
  const button = event.target.closest && event.target.closest(".modebar-btn");
  const bar = button && button.closest(".modebar");
  if (!bar) return;
  const buttons = Array.from(bar.querySelectorAll(".modebar-btn"));
  const at = buttons.indexOf(button);
  let next = null;
  if (event.key in MOVES) next = (at + MOVES[event.key] + buttons.length) % buttons.length;
  else if (event.key === "Home") next = 0;
  else if (event.key === "End") next = buttons.length - 1;
  if (next === null) return;
  event.preventDefault();
  bar.dataset.current = String(next);
  toolbars();
  buttons[next].focus();
}

// A box that scrolls sideways and holds no control takes focus, so that the arrow keys scroll it.
function scrollers() {
  for (const box of document.querySelectorAll(SCROLLERS)) {
    const style = getComputedStyle(box);
    const scrolls = box.scrollWidth > box.clientWidth + 1 && ["auto", "scroll"].includes(style.overflowX);
    if (scrolls && !box.querySelector(FOCUSABLE)) {
      if (!box.hasAttribute("tabindex")) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "group"); // a stop with a name: what it is and how it scrolls
        box.setAttribute("aria-label", box.matches(".katex-display") ? labels.equation : labels.code);
        box.dataset.scrolls = "true";
      }
    } else if (box.dataset.scrolls) {
      for (const name of ["tabindex", "role", "aria-label"]) box.removeAttribute(name);
      delete box.dataset.scrolls;
    }
  }
  // Streamlit's table takes the focus in its frame when it scrolls sideways (a narrow or zoomed window): named
  // (Chromium makes a box that scrolls a stop of its own, with no name)
  for (const box of document.querySelectorAll('[data-testid="stDataFrameResizable"] div')) {
    if (box.getAttribute("aria-label")) continue;
    const style = getComputedStyle(box);
    const across = ["auto", "scroll"].includes(style.overflowX) && box.scrollWidth > box.clientWidth + 1;
    const down = ["auto", "scroll"].includes(style.overflowY) && box.scrollHeight > box.clientHeight + 1;
    if (across || down) {
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", labels.table);
    }
  }
}

function settle() {
  toolbars();
  scrollers();
  const nav = document.getElementById(NAV_ID);
  if (nav && !nav.contains(document.activeElement)) fillSkipLinks(nav);
}

export default function ({ data }) {
  labels = data;
  skipLinks();
  settle();
  if (window.__attentionAccess) return;
  window.__attentionAccess = true; // once per page: the listeners outlive Streamlit's reruns
  let timer = null;
  const root = document.documentElement.dataset;
  // until the page has been still for 300 ms and settled, it says so (data-pending-access on <html>: what the
  // browser tests wait for before they read the page's stops)
  const later = () => {
    clearTimeout(timer);
    root.pendingAccess = "1";
    timer = setTimeout(() => {
      try {
        settle();
      } finally {
        delete root.pendingAccess;
      }
    }, 300);
  };
  new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", later);
  // KaTeX's fonts arrive after the equation is in the page, and widen it with no change to the page's elements: an
  // equation that scrolls only once its fonts are in must then take focus too (a busy server sends them late)
  if (document.fonts) document.fonts.addEventListener("loadingdone", later);
  document.addEventListener(
    "keydown",
    (event) => {
      if (event.key === "Tab") toolbars(); // a chart drawn a moment ago: its toolbar is one stop before Tab moves
      else moveInToolbar(event);
    },
    { capture: true },
  );
}
