// The head switch (ui/components/head_switch.py): a row of head buttons that shows another head at once, in the browser.
//
// Figures that can show several heads say so in layout.meta (ui/figures/head_meta.py): meta.heads (1-based),
// meta.restyle[head] (the new values of the traces meta.traces, arrays as plotly typed-array specs),
// meta.patches[head] (layout changes) and meta.shown (the head drawn). A click swaps the head in every such figure
// (Plotly.update, no round trip), the four steps first, rewrites the head's number in their titles (where the
// words of meta.head_name name it: "head {n}" in the page's language, "tête {n}", "헤드 {n}") and in the camera
// button's file name, and tells Streamlit (trigger "pick"), whose rerun brings the URL, the sidebar and the rest of
// the page in step and sends these figures unchanged. A click
// on a panel of the all-heads grid (layout.meta.pick; each panel's heatmap names its head in its trace's meta)
// does the same: Streamlit sends no selection for a click on a heatmap, so the buttons tell it.
//
// The instance that measures (data.measure) also reports the page column's width and the window's height
// (state "canvas"), so that figures can be sized to fit a screen.

const HEAD_EVENT = "attention-head";
const hooked = new WeakSet();
let tellApp = null; // the last head switch drawn: how a head picked on the grid reaches Streamlit

function headFigures() {
  return Array.from(document.querySelectorAll(".js-plotly-plot")).filter(
    (gd) => gd.layout && gd.layout.meta && Array.isArray(gd.layout.meta.heads),
  );
}

const DTYPES = { f4: Float32Array, f8: Float64Array, i4: Int32Array, u1: Uint8Array };

// A typed-array spec {dtype, bdata, shape} as arrays (one typed row per row of a matrix); anything else as is.
function decode(value) {
  if (!value || typeof value !== "object" || typeof value.bdata !== "string") return value;
  const bytes = Uint8Array.from(atob(value.bdata), (c) => c.charCodeAt(0));
  const flat = new DTYPES[value.dtype](bytes.buffer);
  const shape = String(value.shape).split(",").map(Number);
  if (shape.length < 2) return flat;
  const rows = [];
  for (let r = 0; r < shape[0]; r++) rows.push(flat.subarray(r * shape[1], (r + 1) * shape[1]));
  return rows;
}

// The title with the first head it names (headName: "head {n}", "tête {n}"…) now naming `head`; not inside a word
// ("forehead 2"). What head_meta.renamed does on the server.
function renamed(title, headName, head) {
  const [before, after] = headName.split("{n}").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const named = new RegExp(`(?<![\\p{L}\\p{N}_])${before}\\d+${after}`, "u");
  return title.replace(named, () => headName.replace("{n}", String(head)));
}

// The head a figure shows: the one it was drawn with (meta.shown), until this page switched it.
function shownHead(gd) {
  return gd.layout.meta.shown;
}

function showHead(gd, head) {
  const meta = gd.layout.meta;
  if (!meta.heads.includes(head) || meta.shown === head) return false;
  const values = (meta.restyle || {})[String(head)];
  const layout = Object.assign({}, (meta.patches || {})[String(head)] || {});
  const title = gd.layout.title && gd.layout.title.text;
  if (typeof title === "string") {
    const text = renamed(title, meta.head_name, head);
    if (text !== title) layout["title.text"] = text;
  }
  if (values) {
    const data = {};
    for (const [name, perTrace] of Object.entries(values)) data[name] = perTrace.map(decode);
    window.Plotly.update(gd, data, layout, meta.traces);
  } else if (Object.keys(layout).length) {
    window.Plotly.relayout(gd, layout);
  } else {
    return false;
  }
  meta.shown = head; // the figure's own layout object, which Streamlit keeps for it: no redraw
  const image = gd._context && gd._context.toImageButtonOptions;
  if (image && typeof image.filename === "string") image.filename = image.filename.replace(/_H\d+(?=_|$)/, `_H${head}`);
  return true;
}

// Show `head` in every multi-head figure, `then` called first (telling the app, whose rerun sends these figures
// unchanged, so that the server works while the browser draws): the four steps first (the picture a class waits
// for), painted before the others are touched; then the rest, one per task. Timings are left in
// window.__headSwitch.
export function switchHead(head, then) {
  const t0 = performance.now();
  const figures = headFigures().sort((a, b) => (b.layout.meta.first ? 1 : 0) - (a.layout.meta.first ? 1 : 0));
  const timing = { head, first: null, painted: null, all: null };
  window.__headSwitch = timing;
  window.dispatchEvent(new CustomEvent(HEAD_EVENT, { detail: head }));
  const afterPaint = (next) => requestAnimationFrame(() => setTimeout(next, 0));
  if (then) then(); // the server's rerun starts while the browser draws
  const step = (i) => {
    if (i >= figures.length || !window.Plotly) {
      timing.all = performance.now() - t0;
      return;
    }
    showHead(figures[i], head);
    if (i === 0) {
      timing.first = performance.now() - t0;
      afterPaint(() => {
        timing.painted = performance.now() - t0;
        step(1);
      });
    } else {
      afterPaint(() => step(i + 1));
    }
  };
  step(0);
}

// A grid is hooked when a pointer goes down on it, before its click: no watching of the page as it redraws.
function hookGrid(event) {
  const gd = event.target.closest && event.target.closest(".js-plotly-plot");
  if (!gd || hooked.has(gd) || !gd.layout || !gd.layout.meta || !gd.layout.meta.pick || typeof gd.on !== "function") {
    return;
  }
  hooked.add(gd);
  gd.on("plotly_click", (click) => {
    const point = click && click.points && click.points[0];
    const head = point && point.data && point.data.meta; // the panel's heatmap names its head
    if (Number.isInteger(head)) switchHead(head, () => tellApp && tellApp(head));
  });
}
document.addEventListener("pointerdown", hookGrid, { capture: true }); // once, when this module is first loaded

// Presenter mode: the steps shown changed (the step bar's buttons, an arrow key). Once the figure that draws them
// is on the page (its meta.steps), it is scrolled whole into the window, its bottom at the window's bottom (the head
// buttons and the step bar above it, which its height leaves room for), unless it is whole already: the page keeps
// its scroll position through a rerun, which left the heading on top and the step cut below.
let revealed = null;
const STEPS_FIGURE = () =>
  Array.from(document.querySelectorAll(".js-plotly-plot")).find((gd) => gd.layout && gd.layout.meta && gd.layout.meta.first);

function reveal(steps) {
  const changed = revealed !== null && revealed !== steps;
  revealed = steps;
  if (!changed) return;
  const t0 = performance.now();
  const look = () => {
    const gd = STEPS_FIGURE();
    const drawn = gd && gd.layout.meta.steps === steps && !gd.closest("[data-stale='true']");
    if (!drawn) {
      if (performance.now() - t0 < 10000) setTimeout(look, 50);
      return;
    }
    requestAnimationFrame(() => {
      const box = gd.getBoundingClientRect();
      const header = document.querySelector('[data-testid="stHeader"]');
      const top = header ? header.getBoundingClientRect().bottom : 0;
      if (box.top < top || box.bottom > window.innerHeight) gd.scrollIntoView({ block: "end" });
    });
  };
  look();
}

export default function (component) {
  const { data, parentElement, setTriggerValue, setStateValue } = component;
  if (parentElement.__cleanup) parentElement.__cleanup();

  let bar = parentElement.querySelector(".heads");
  if (!bar) {
    bar = document.createElement("div");
    bar.className = "heads";
    bar.setAttribute("role", "toolbar"); // one Tab stop, the arrow keys move along the heads (access.js does charts')
    parentElement.appendChild(bar);
  }
  bar.setAttribute("aria-label", data.label);
  if (bar.childElementCount !== data.n_heads + 1) {
    bar.replaceChildren();
    const name = document.createElement("span");
    name.className = "name";
    name.textContent = data.label;
    bar.appendChild(name);
    for (let h = 1; h <= data.n_heads; h++) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = String(h);
      button.dataset.head = String(h);
      bar.appendChild(button);
    }
  }
  // the shown head is the one Tab reaches, unless the arrow keys have moved the focus along the row
  const mark = (head) => {
    const moving = bar.contains(bar.getRootNode().activeElement);
    for (const button of bar.querySelectorAll("button")) {
      const shown = Number(button.dataset.head) === head;
      button.setAttribute("aria-pressed", String(shown));
      if (!moving) button.tabIndex = shown ? 0 : -1;
    }
  };
  mark(data.head);
  if (typeof data.reveal === "string") reveal(data.reveal);
  // A head chosen elsewhere (the sidebar's Head box, a link): the rerun kept the figures the page has, so show
  // it in them here, once the page has laid them out.
  const settle = requestAnimationFrame(() => {
    if (window.Plotly && headFigures().some((gd) => shownHead(gd) !== data.head)) switchHead(data.head, null);
  });

  const tell = (head) => setTriggerValue("pick", head);
  tellApp = tell;
  const onClick = (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    const head = Number(button.dataset.head);
    switchHead(head, () => tell(head));
  };
  const onKey = (event) => {
    const buttons = Array.from(bar.querySelectorAll("button"));
    const at = buttons.indexOf(event.target);
    const to = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0 }[event.key];
    const next = event.key === "End" ? buttons.length - 1 : to;
    if (at < 0 || next === undefined) return;
    event.preventDefault();
    const target = buttons[(next + buttons.length) % buttons.length];
    for (const button of buttons) button.tabIndex = button === target ? 0 : -1;
    target.focus();
  };
  const onHead = (event) => mark(event.detail);
  bar.addEventListener("click", onClick);
  bar.addEventListener("keydown", onKey);
  window.addEventListener(HEAD_EVENT, onHead);

  // until the canvas is measured, and from a report until the run it asks for draws this element again, the page
  // says it is not settled yet (data-pending-canvas on <html>: what the browser tests wait for)
  const root = document.documentElement.dataset;
  let sized = null;
  let timer = null;
  let asked = null;
  const later = () => {
    clearTimeout(timer);
    root.pendingCanvas = "1";
    timer = setTimeout(report, 200);
  };
  const host = parentElement.host || parentElement;
  const report = () => {
    const width = Math.round(host.getBoundingClientRect().width);
    const height = window.innerHeight;
    const off = (a, b) => Math.abs(a - b) > data.tolerance;
    if (width > 0) window.__attentionCanvas = { width, height }; // for a run after a lost server (ui/components/reconnect.js)
    if (width > 0 && (off(width, data.width) || off(height, data.height))) {
      setStateValue("canvas", { width, height });
      asked = setTimeout(() => delete root.pendingCanvas, 5000); // a run that never came: settled all the same
    } else delete root.pendingCanvas;
  };
  if (data.measure) {
    root.pendingCanvas = "1";
    // its first call comes once the page is laid out (no layout forced while Streamlit redraws), the next ones
    // when the column changes (the sidebar opening changes no window size)
    let first = true;
    sized = new ResizeObserver(() => {
      if (first) report();
      else later();
      first = false;
    });
    sized.observe(host);
    window.addEventListener("resize", later);
  }

  const cleanup = () => {
    cancelAnimationFrame(settle);
    bar.removeEventListener("click", onClick);
    bar.removeEventListener("keydown", onKey);
    window.removeEventListener(HEAD_EVENT, onHead);
    if (sized) {
      sized.disconnect();
      window.removeEventListener("resize", later);
    }
    clearTimeout(timer);
    clearTimeout(asked);
    if (data.measure) delete root.pendingCanvas;
    if (tellApp === tell) tellApp = null;
    parentElement.__cleanup = null;
  };
  parentElement.__cleanup = cleanup;
  return cleanup;
}
