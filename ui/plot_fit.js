// A figure's titles wrapped to the width its chart really has (ui/plot.js). The server wraps a title for a 1280×720
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
const LEGEND_MARK = 45; // px of a horizontal legend's width that an entry's line and gaps take beside its name
const LEGEND_ROOM = 60; // px of the figure's width a legend's name leaves free
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

// The layout changes that fit a figure's titles to `width` px, from the layout as the server sent it (`sent`) and
// its title's text now (`title`, null for the sent one), its traces as sent (`data`), for their legend's names and a
// bar chart's, and the width the server laid it out for (`laidOut`).
// Returns { changes, counts, names }: plotly's relayout keys (an empty object where nothing needs cutting), the
// title's line counts, for uncut, and {trace index: name} for the names cut.
function fitted(sent, width, headName, title = null, data = null, laidOut = null) {
  const template = (sent.template && sent.template.layout) || {};
  const margin = { ...(template.margin || {}), ...(sent.margin || {}) };
  const changes = {};
  let height = sent.height || 450;
  let top = margin.t ?? 50;
  let bottom = margin.b ?? 60;
  let counts = null;
  const titleSet = typeof sent.title === "string" ? { text: sent.title } : sent.title || {};
  const text = title ?? titleSet.text;
  const subtitle = titleSet.subtitle && titleSet.subtitle.text;
  if (text) {
    const f = font(template, titleSet.font, template.title && template.title.font);
    const cut = cutText(text, width - TITLE_INSET, f, headName);
    counts = cut.counts;
    const added = cut.counts.reduce((a, b) => a + b, 0) - cut.counts.length;
    if (cut.text !== text) changes["title.text"] = cut.text;
    if (added) {
      const line = Math.round(LINE_HEIGHT * f.size) * added;
      height += line;
      top += subtitle ? 2 * line : line;
      const pad = titleSet.pad && titleSet.pad.t;
      if (pad !== undefined && (subtitle || titleSet.yanchor === "top")) changes["title.pad.t"] = pad + line;
    }
  }
  if (subtitle) {
    const f = font(template, titleSet.subtitle.font, template.title && template.title.subtitle && template.title.subtitle.font);
    const cut = cutText(subtitle, width - TITLE_INSET, f, headName);
    const added = cut.counts.reduce((a, b) => a + b, 0) - cut.counts.length;
    if (added) {
      changes["title.subtitle.text"] = cut.text;
      height += Math.round(LINE_HEIGHT * f.size) * added;
      top += Math.round(LINE_HEIGHT * f.size) * added;
    }
  }
  let left = margin.l ?? 85;
  const narrower = Boolean(laidOut) && width < laidOut; // than the server laid it out for: a phone's
  for (const [name, axis] of Object.entries(sent)) {
    // a bar chart's long names beside its bars (its left margin over LABELS_MOST of the width): cut into lines
    if (!narrower || !/^yaxis\d*$/.test(name) || !axis || left <= LABELS_MOST * width) continue;
    const ref = name.replace("axis", "");
    const names = axis.ticktext || categories(data, ref);
    if (!names || !names.length) continue;
    const f = font(template, axis.tickfont, template.yaxis && template.yaxis.tickfont);
    const cut = names.map((label) => cutText(String(label), LABELS_CUT * width, f, headName).text);
    const widest = Math.max(...cut.flatMap((label) => label.split("<br>").map((line) => textWidth(line, f))));
    changes[`${name}.tickmode`] = "array";
    changes[`${name}.tickvals`] = axis.tickvals || names;
    changes[`${name}.ticktext`] = cut;
    left = Math.ceil(widest) + TICK_ROOM;
    changes["margin.l"] = left;
    // each bar's row as tall as its name's lines: the plot grows by what they lack
    const lines = Math.max(...cut.map((label) => label.split("<br>").length));
    const row = lines * Math.round(LINE_HEIGHT * f.size) + ROW_GAP;
    const plotHeight = (sent.height || 450) - (margin.t ?? 50) - (margin.b ?? 60);
    if (row * names.length > plotHeight) height += row * names.length - plotHeight;
  }
  const plotWidth = width - left - (margin.r ?? 20);
  let below = 0;
  for (const [name, axis] of Object.entries(sent)) {
    const axisTitle = /^xaxis\d*$/.test(name) && axis && axis.title;
    const axisText = axisTitle && (typeof axisTitle === "string" ? axisTitle : axisTitle.text);
    if (!axisText) continue;
    const domain = axis.domain || [0, 1];
    const f = font(template, axisTitle.font, template.xaxis && template.xaxis.title && template.xaxis.title.font);
    const room = plotWidth * (domain[1] - domain[0]);
    // fewer numbers along a narrow plot's axis, not slanted over its title: plotly's own, or every k-th given
    const values = (data || []).some((t) => t.type === "bar" && t.orientation === "h"); // x: a bar chart's values
    const given = values && Array.isArray(axis.tickvals) && Array.isArray(axis.ticktext) && axis.tickvals.length > 2;
    if (narrower && given && room / axis.tickvals.length < FEW_TICKS_PX) {
      const step = Math.ceil((axis.tickvals.length * FEW_TICKS_PX) / room);
      changes[`${name}.tickvals`] = axis.tickvals.filter((_, i) => i % step === 0);
      changes[`${name}.ticktext`] = axis.ticktext.filter((_, i) => i % step === 0);
    } else if (narrower && room < FEW_TICKS_PX * 4 && !axis.tickmode && !axis.tickvals && axis.type !== "category")
      changes[`${name}.nticks`] = Math.max(2, Math.floor(room / FEW_TICKS_PX));
    const cut = cutText(axisText, room, f, headName);
    if (cut.text === axisText) continue;
    changes[`${name}.title.text`] = cut.text;
    const added = cut.counts.reduce((a, b) => a + b, 0) - cut.counts.length;
    below = Math.max(below, Math.round(LINE_HEIGHT * f.size) * added);
  }
  // a horizontal legend's entries, in rows as wide as the figure: a long name cut into lines, and the rows and lines
  // it takes beyond those it took at the width the server laid the figure out for, added to the bottom margin
  const legend = { ...(template.legend || {}), ...(sent.legend || {}) };
  const names = {};
  if (legend.orientation === "h" && sent.showlegend !== false) {
    const f = font(template, legend.font);
    const entries = [];
    (data || []).forEach((trace, i) => {
      if (typeof trace.name !== "string" || !trace.name || trace.showlegend === false) return;
      const cut = cutText(trace.name, width - LEGEND_ROOM, f, headName);
      if (cut.text !== trace.name) names[i] = cut.text;
      entries.push({ sent: trace.name, cut: cut.text });
    });
    const lines = (texts, room) => legendLines(texts, room, f);
    const more = lines(entries.map((e) => e.cut), width) - lines(entries.map((e) => e.sent), laidOut || width);
    below += Math.max(0, Math.round(LINE_HEIGHT * f.size) * more);
  }
  height += below;
  bottom += below;
  if (height !== (sent.height || 450)) changes.height = height;
  if (top !== (margin.t ?? 50)) changes["margin.t"] = top;
  if (bottom !== (margin.b ?? 60)) changes["margin.b"] = bottom;
  return { changes, counts, names };
}

// How many lines a horizontal legend's entries take, packed in rows `width` px wide (a row as tall as its most lines).
function legendLines(texts, width, f) {
  let lines = 0;
  let row = 0;
  let tall = 0;
  for (const text of texts) {
    const parts = text.split("<br>");
    const wide = Math.max(...parts.map((part) => textWidth(part, f))) + LEGEND_MARK;
    if (row && row + wide > width - TITLE_INSET) {
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
// annotation drawn past it, and narrower than the figure, is shifted back inside, and a margin grows by what an x
// axis's end label reaches past it, after the figure is drawn (the one case measured on the page, and only on a
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
  return changes;
}
