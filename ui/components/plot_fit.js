// A figure's titles wrapped to the width its chart really has (ui/components/plot.js). The server wraps a title for a 1280×720
// screen's column (ui/figures/base.py, stand_alone); a phone's column is narrower, and its width is known only here.
// A line still wider than the chart is cut at plain spaces (a no-break space holds « forêt » and "0,5 %" together, a
// head's name stays whole for the head switch), and the figure grows by the lines this adds, as stand_alone grows it:
// the figure and its top margin by a line each, the margin and the title's pad by one more under a subtitle. An axis
// title wider than its plot, or a legend's name wider than the figure, is cut the same way, into the bottom margin;
// a subtitle, into the top one; a bar chart's names that leave its bars too little room, into lines beside them.
// The same figure on a wide screen is left as the server sent it.

const LINE_HEIGHT = 1.3; // a title's line is this many times its font size apart (base.py's 1.3 * size)
const TITLE_INSET = 20; // px of the width a title leaves free (base.py's TITLE_INSET)
const LABELS_MOST = 0.45; // a left margin wider than this share of the figure leaves its plot too little room
const LABELS_CUT = 0.4; // …and its labels are cut into lines this share of the figure's width
const TICK_ROOM = 14; // px beside the widest label: the tick and its gap
const ROW_GAP = 6; // px between two bars' names of several lines
const FEW_TICKS_PX = 80; // px of a narrow plot's width for each number along its x axis
const LEGEND_MARK = 50; // px of a horizontal legend's width that an entry's line and gaps take beside its name
const NO_SPACE = "\ue000"; // a space inside a head's name while a line is cut into words

let ruler = null;

function drawnText(text) {
  // what plotly draws of a text: its tags left out, its entities read
  return text
    .replace(/<[^>]*>/g, "")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, "&");
}

function textWidth(text, font) {
  ruler = ruler || document.createElement("canvas").getContext("2d");
  ruler.font = `${font.size}px ${font.family}`;
  return ruler.measureText(drawnText(text)).width;
}

// The line in lines no wider than `room` px (a longer word keeps a line of its own); a line holding a tag with a space
// in it (a link, a styled span) is left whole.
function cutLine(line, room, font, headName) {
  if (/<[^>]* /.test(line) || textWidth(line, font) <= room) return [line];
  const [before, after] = headName.split("{n}").map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  const head = new RegExp(`(?<![\\p{L}\\p{N}_])${before}\\d+${after}`, "gu");
  const kept = line.replace(head, (name) => name.replaceAll(" ", NO_SPACE));
  const lines = [];
  for (const word of kept.split(" ").filter(Boolean)) {
    const joined = lines.length ? `${lines[lines.length - 1]} ${word}` : word;
    if (lines.length && textWidth(joined.replaceAll(NO_SPACE, " "), font) <= room) lines[lines.length - 1] = joined;
    else lines.push(word);
  }
  return lines.map((l) => l.replaceAll(NO_SPACE, " "));
}

// A text's lines (split at <br>) each cut to `room`: the new text, and how many lines each line became.
function cutText(text, room, font, headName) {
  const pieces = text.split("<br>").map((line) => cutLine(line, room, font, headName));
  return { text: pieces.map((p) => p.join("<br>")).join("<br>"), counts: pieces.map((p) => p.length) };
}

// The lines cutText made joined again: the text as the server wrapped it, with any change made since (the head
// switch renames the head in a title, on one line).
function uncut(text, counts) {
  const lines = text.split("<br>");
  if (!counts || counts.reduce((a, b) => a + b, 0) !== lines.length) return text;
  const out = [];
  let at = 0;
  for (const n of counts) {
    out.push(lines.slice(at, at + n).join(" "));
    at += n;
  }
  return out.join("<br>");
}

function font(template, ...settings) {
  // the first size and family set, from the figure's own settings to the template's
  const all = [...settings, template.title && template.title.font, template.font].filter(Boolean);
  return {
    size: (all.find((f) => f.size) || {}).size || 15,
    family: (all.find((f) => f.family) || {}).family || "sans-serif",
  };
}

const lineHeight = (f) => Math.round(LINE_HEIGHT * f.size);
const added = (cut) => cut.counts.reduce((a, b) => a + b, 0) - cut.counts.length; // lines cutting made

// A figure's layout as the server sent it (`sent`), fitted to `width` px one part at a time: the relayout keys each
// part needs, and the room it takes from the figure's height and margins.
// A layout's template layout, and its margins as plotly takes them: the layout's own over the template's.
function templateOf(layout) {
  return (layout.template && layout.template.layout) || {};
}

function marginsOf(layout) {
  return { ...(templateOf(layout).margin || {}), ...(layout.margin || {}) };
}

class Fit {
  constructor(sent, width, headName, data, laidOut) {
    Object.assign(this, { sent, width, headName, data: data || [] });
    this.template = templateOf(sent);
    this.margin = marginsOf(sent);
    this.narrower = Boolean(laidOut) && width < laidOut; // than the server laid it out for: a phone's
    this.laidOut = laidOut || width;
    this.changes = {};
    this.names = {};
    this.counts = null;
    this.height = sent.height || 450;
    this.top = this.margin.t ?? 50;
    this.left = this.margin.l ?? 85;
    this.below = 0;
    const title = sent.title;
    this.titleSet = typeof title === "string" ? { text: title } : title || {};
  }

  cut(text, room, f) {
    return cutText(text, room, f, this.headName);
  }

  // the title (its text now: the head switch renames its head), a line more each that the figure and its top margin
  // grow by; under a subtitle, the margin and the title's pad by one more
  title(text) {
    const { titleSet, template } = this;
    if (!text) return;
    const f = font(template, titleSet.font, template.title && template.title.font);
    const cut = this.cut(text, this.width - TITLE_INSET, f);
    this.counts = cut.counts;
    if (cut.text !== text) this.changes["title.text"] = cut.text;
    if (!added(cut)) return;
    const line = lineHeight(f) * added(cut);
    const subtitle = titleSet.subtitle && titleSet.subtitle.text;
    this.height += line;
    this.top += subtitle ? 2 * line : line;
    const pad = titleSet.pad && titleSet.pad.t;
    if (pad !== undefined && (subtitle || titleSet.yanchor === "top")) this.changes["title.pad.t"] = pad + line;
  }

  subtitle() {
    const { titleSet, template } = this;
    const text = titleSet.subtitle && titleSet.subtitle.text;
    if (!text) return;
    const below = template.title && template.title.subtitle && template.title.subtitle.font;
    const f = font(template, titleSet.subtitle.font, below);
    const cut = this.cut(text, this.width - TITLE_INSET, f);
    if (!added(cut)) return;
    this.changes["title.subtitle.text"] = cut.text;
    this.height += lineHeight(f) * added(cut);
    this.top += lineHeight(f) * added(cut);
  }

  // a bar chart's long names beside its bars (its left margin over LABELS_MOST of the width) cut into lines, each
  // bar's row as tall as its name's lines
  barNames() {
    const { sent, template, width } = this;
    for (const [name, axis] of Object.entries(sent)) {
      if (!this.narrower || !/^yaxis\d*$/.test(name) || !axis || this.left <= LABELS_MOST * width) continue;
      const names = axis.ticktext || categories(this.data, name.replace("axis", ""));
      if (!names || !names.length) continue;
      const f = font(template, axis.tickfont, template.yaxis && template.yaxis.tickfont);
      const cut = names.map((label) => this.cut(String(label), LABELS_CUT * width, f).text);
      const lines = cut.map((label) => label.split("<br>"));
      const widest = Math.max(...lines.flat().map((line) => textWidth(line, f)));
      Object.assign(this.changes, {
        [`${name}.tickmode`]: "array",
        [`${name}.tickvals`]: axis.tickvals || names,
        [`${name}.ticktext`]: cut,
      });
      this.left = this.changes["margin.l"] = Math.ceil(widest) + TICK_ROOM;
      const row = Math.max(...lines.map((l) => l.length)) * lineHeight(f) + ROW_GAP;
      const plot = (sent.height || 450) - (this.margin.t ?? 50) - (this.margin.b ?? 60);
      if (row * names.length > plot) this.height += row * names.length - plot;
    }
  }

  // an x axis's title cut to its plot's width, into the bottom margin; on a narrow plot, fewer numbers along it, not
  // slanted over the title (plotly's own, or every k-th a bar chart gives)
  xAxes() {
    const { sent, template } = this;
    const plotWidth = this.width - this.left - (this.margin.r ?? 20);
    const values = this.data.some((t) => t.type === "bar" && t.orientation === "h"); // x: a bar chart's values
    for (const [name, axis] of Object.entries(sent)) {
      if (!/^xaxis\d*$/.test(name) || !axis) continue;
      const domain = axis.domain || [0, 1];
      const room = plotWidth * (domain[1] - domain[0]);
      const given = values && Array.isArray(axis.tickvals) && Array.isArray(axis.ticktext) && axis.tickvals.length > 2;
      if (this.narrower && given && room / axis.tickvals.length < FEW_TICKS_PX) {
        const step = Math.ceil((axis.tickvals.length * FEW_TICKS_PX) / room);
        this.changes[`${name}.tickvals`] = axis.tickvals.filter((_, i) => i % step === 0);
        this.changes[`${name}.ticktext`] = axis.ticktext.filter((_, i) => i % step === 0);
      } else if (this.narrower && room < FEW_TICKS_PX * 4 && !axis.tickmode && !axis.tickvals && axis.type !== "category")
        this.changes[`${name}.nticks`] = Math.max(2, Math.floor(room / FEW_TICKS_PX));
      const title = axis.title;
      const text = title && (typeof title === "string" ? title : title.text);
      if (!text) continue;
      const f = font(template, title.font, template.xaxis && template.xaxis.title && template.xaxis.title.font);
      const cut = this.cut(text, room, f);
      if (cut.text === text) continue;
      this.changes[`${name}.title.text`] = cut.text;
      this.below = Math.max(this.below, lineHeight(f) * added(cut));
    }
  }

  // a horizontal legend's entries, wrapped by plotly at its plot's width: a long name cut into lines, and the lines
  // it takes beyond those it took at the width the server laid the figure out for, into the bottom margin
  legend() {
    const { sent, template, margin } = this;
    const legend = { ...(template.legend || {}), ...(sent.legend || {}) };
    if (legend.orientation !== "h" || sent.showlegend === false) return;
    const f = font(template, legend.font);
    const sides = (margin.l ?? 85) + (margin.r ?? 20);
    const plot = (sent.height || 450) - (margin.t ?? 50) - (margin.b ?? 60);
    if (this.below && legend.y < 0 && legend.yref !== "container") // under an axis title that took more lines
      this.changes["legend.y"] = legend.y - this.below / plot;
    const entries = [];
    this.data.forEach((trace, i) => {
      if (typeof trace.name !== "string" || !trace.name || trace.showlegend === false) return;
      const cut = this.cut(trace.name, this.width - sides - LEGEND_MARK, f);
      if (cut.text !== trace.name) this.names[i] = cut.text;
      entries.push({ sent: trace.name, cut: cut.text });
    });
    const lines = (texts, w) => legendLines(texts, w - sides, f);
    const more = lines(entries.map((e) => e.cut), this.width) - lines(entries.map((e) => e.sent), this.laidOut);
    this.below += Math.max(0, lineHeight(f) * more);
  }

  result() {
    const { sent, margin, changes } = this;
    const height = this.height + this.below;
    const bottom = (margin.b ?? 60) + this.below;
    if (height !== (sent.height || 450)) changes.height = height;
    if (this.top !== (margin.t ?? 50)) changes["margin.t"] = this.top;
    if (bottom !== (margin.b ?? 60)) changes["margin.b"] = bottom;
    return { changes, counts: this.counts, names: this.names };
  }
}

// A narrow chart's heatmaps whose numbers are wider than their cells (a phone's width, where the server laid them out
// for a desktop's columns): their numbers left out of the cells, where they would run into each other, and kept in
// the hover and in the figure's table of values.
function crowdedCells(data, layout, width, laidOut) {
  if (!(laidOut && width < laidOut)) return;
  const template = templateOf(layout);
  const margin = marginsOf(layout);
  const plotWidth = width - (margin.l ?? 85) - (margin.r ?? 20);
  data.forEach((trace) => {
    if (trace.type !== "heatmap" || !trace.texttemplate || !Array.isArray(trace.text)) return;
    const rows = trace.text.filter(Array.isArray);
    const columns = Math.max(0, ...rows.map((row) => row.length));
    if (!columns) return;
    const axis = layout[`xaxis${(trace.xaxis || "x").slice(1)}`] || {};
    const domain = axis.domain || [0, 1];
    const cell = (plotWidth * (domain[1] - domain[0])) / columns;
    const f = font(template, trace.textfont);
    const widest = Math.max(0, ...rows.flat().map((t) => textWidth(String(t ?? ""), f)));
    if (widest + 2 > cell) trace.texttemplate = "";
  });
}

// The layout changes that fit a figure to `width` px, from the layout as the server sent it (`sent`), its title's
// text now (`title`, null for the sent one), its traces as sent (`data`: their legend's names and a bar chart's) and
// the width the server laid it out for (`laidOut`). Returns { changes, counts, names }: plotly's relayout keys (an
// empty object where nothing needs fitting), the title's line counts, for uncut, and {trace index: name} for the
// names cut.
function fitted(sent, width, headName, title = null, data = null, laidOut = null) {
  const fit = new Fit(sent, width, headName, data, laidOut);
  fit.title(title ?? fit.titleSet.text);
  fit.subtitle();
  fit.barNames();
  fit.xAxes();
  fit.legend();
  return fit.result();
}

// How many lines a horizontal legend's entries take, packed in rows `width` px wide (a row as tall as its most lines).
function legendLines(texts, width, f) {
  let lines = 0;
  let row = 0;
  let tall = 0;
  for (const text of texts) {
    const parts = text.split("<br>");
    const wide = Math.max(...parts.map((part) => textWidth(part, f))) + LEGEND_MARK;
    if (row && row + wide > width) {
      lines += tall;
      row = 0;
      tall = 0;
    }
    row += wide;
    tall = Math.max(tall, parts.length);
  }
  return lines + tall;
}

// The names a category axis ("y", "y2") shows: its traces' values along it, in order, each once.
function categories(data, ref) {
  const seen = [];
  for (const trace of data || []) {
    if ((trace.yaxis || "y") !== ref || !Array.isArray(trace.y)) continue;
    for (const v of trace.y) if (typeof v === "string" && !seen.includes(v)) seen.push(v);
  }
  return seen.length ? seen : null;
}

// The changes applied to a copy of the sent layout, for Plotly.newPlot.
function withChanges(layout, changes) {
  const out = structuredClone(layout);
  for (const [path, value] of Object.entries(changes)) {
    const keys = path.split(".");
    let at = out;
    for (const key of keys.slice(0, -1)) {
      if (typeof at[key] === "string" && key === "title") at[key] = { text: at[key] };
      at = at[key] = at[key] || {};
    }
    at[keys[keys.length - 1]] = value;
  }
  return out;
}

// Where a chart is narrower than the server laid it out for, a label it placed beside a point in pixels of that width
// (labels.py), or a note it wrapped by an estimate of its letters' widths, can run past the figure's edge: each such
// annotation drawn past it, and narrower than the figure, is shifted back inside, a margin grows by what an x
// axis's end label reaches past it, and the top one by what slanted labels along the top reach into the title,
// after the figure is drawn (the one case measured on the page, and only on a
// narrow screen). Returns plotly's relayout keys.
function nudged(gd) {
  const frame = gd.getBoundingClientRect();
  const changes = {};
  (gd.layout.annotations || []).forEach((note, i) => {
    const drawn = gd.querySelector(`.annotation[data-index="${i}"] .annotation-text-g`);
    if (!drawn) return;
    const box = drawn.getBoundingClientRect();
    if (box.width === 0 || box.width > frame.width - 4) return;
    const past = Math.max(0, box.right - (frame.right - 2)) - Math.max(0, frame.left + 2 - box.left);
    if (Math.abs(past) >= 1) changes[`annotations[${i}].xshift`] = (note.xshift || 0) - Math.ceil(past);
  });
  // a tick's label at either end of an axis, centred on its tick, past the edge: the margin on that side grows
  let right = 0;
  let left = 0;
  for (const tick of gd.querySelectorAll(".xtick text")) {
    const box = tick.getBoundingClientRect();
    if (box.width === 0) continue;
    right = Math.max(right, box.right - (frame.right - 2));
    left = Math.max(left, frame.left + 2 - box.left);
  }
  const margin = gd._fullLayout.margin;
  if (right >= 1) changes["margin.r"] = margin.r + Math.ceil(right);
  if (left >= 1) changes["margin.l"] = margin.l + Math.ceil(left);
  // the title's lines (taller than counted where they hold a superscript) reaching down into the plot, or tick
  // labels along the top, slanted to fit a narrow plot, reaching up into them; a legend's rows below the figure:
  // the margin and the figure grow by what they overlap
  const bottomOf = (selector) => Math.max(...[...gd.querySelectorAll(selector)].map((t) => t.getBoundingClientRect().bottom));
  const titleBottom = bottomOf(".g-gtitle text");
  const ticksTop = Math.min(...[...gd.querySelectorAll(".xtick text")].map((t) => t.getBoundingClientRect().top));
  const plotTop = frame.top + gd._fullLayout._size.t;
  const over = Math.ceil(Math.max(titleBottom - Math.min(ticksTop, plotTop), 0));
  const legendOver = Math.ceil(Math.max(bottomOf(".legend") - frame.bottom, 0));
  if (Number.isFinite(over) && over > 0) changes["margin.t"] = margin.t + over + 4;
  if (Number.isFinite(legendOver) && legendOver > 0) changes["margin.b"] = margin.b + legendOver + 4;
  const grown = (changes["margin.t"] || margin.t) - margin.t + (changes["margin.b"] || margin.b) - margin.b;
  if (grown) changes.height = gd.__height = gd._fullLayout.height + grown;
  return changes;
}
