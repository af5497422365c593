// The labels of a picture of vectors, placed in the browser (ui/figures/labels.py's placer, step for step): a figure
// built on the server sends what the placer needs in layout.meta.labels, and placeLabels turns it into the
// annotations the server's placer would have made, where they go among the figure's own. The server places them
// itself for a file (a PNG, an SVG, a worksheet) and for Streamlit's chart; tests/test_labels_js.py runs both on the
// app's figures and compares them.
//
// meta.labels: {frame: [centre x, centre y, px per unit, width, height], scales, at (where the labels go among the
// annotations), muted (a leader line's colour), labels: [[text, x, y, toward x, toward y, box width, box height, font
// size, colour, gap]], obstacles: [[start x, start y, end x, end y, half width, span behind, span ahead]]}.

const LABEL_GAP = 3;
const MAX_LABELS = 40;
const LEADER_FROM = 12;
const MARKER_CLEAR = 7;
const DISTANCES = [0, 10, 24, 44, 70];
const FAR = [100, 140, 190, 250];
const TURNS = [0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6, 7, -7, 8].map((k) => (k * Math.PI) / 8);

// Offsets of a label's centre from its point, and whether a leader line must join each: beside the point in the
// preferred direction first, then turning away from it, then a little further out.
function candidates(toward, size, gap, distances) {
  const angle = toward[0] !== 0 || toward[1] !== 0 ? Math.atan2(toward[1], toward[0]) : Math.PI / 2;
  const u = TURNS.map((t) => [Math.cos(angle + t), Math.sin(angle + t)]);
  const beside = u.map(([x, y]) => gap + (Math.abs(x) * (size[0] / 2) + Math.abs(y) * (size[1] / 2)));
  const offsets = [];
  const leaders = [];
  for (const extra of distances) {
    u.forEach(([x, y], i) => {
      const r = beside[i] + extra;
      offsets.push([x * r, y * r]);
      leaders.push(extra > LEADER_FROM);
    });
  }
  return { offsets, leaders };
}

// Points every 2 pixels from a to b, its ends included.
function line(a, b) {
  const n = Math.max(2, Math.trunc(Math.sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2) / 2) + 1);
  const step = 1.0 / (n - 1);
  const out = [];
  for (let i = 0; i < n; i++) {
    const t = i === n - 1 ? 1.0 : i * step;
    out.push([a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1])]);
  }
  return out;
}

// Every obstacle sampled every 2 pixels at k times the frame's scale: [point, half width] pairs.
function sampled(obstacles, px, k) {
  const out = [];
  for (const [x0, y0, x1, y1, halfWidth, behind, ahead] of obstacles) {
    let a = px([x0, y0]).map((v) => v * k);
    let b = px([x1, y1]).map((v) => v * k);
    if (behind !== null) {
      const length = Math.sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2);
      if (!(length > 0)) continue; // an arrow's head with no length has none
      const u = [(b[0] - a[0]) / length, (b[1] - a[1]) / length];
      const tip = b;
      a = [tip[0] - u[0] * behind, tip[1] - u[1] * behind];
      b = [tip[0] + u[0] * ahead, tip[1] + u[1] * ahead];
    }
    for (const p of line(a, b)) out.push([p, halfWidth]);
  }
  return out;
}

const overlaps = (c, half, at, reach) =>
  Math.abs(c[0] - at[0]) < half[0] + reach[0] && Math.abs(c[1] - at[1]) < half[1] + reach[1];

// What is drawn at one scale so far: obstacles' sampled points, the labels' boxes, the points' markers.
class Sheet {
  constructor(k, points, boxes, markers) {
    this.k = k;
    this.points = points; // [[x, y], reach]
    this.boxes = boxes; // [[centre, half]]
    this.markers = markers;
  }

  free(c, half, frame) {
    const bounds = [(this.k * frame.width) / 2, frame.height / 2];
    if (!(Math.abs(c[0]) + half[0] <= bounds[0] && Math.abs(c[1]) + half[1] <= bounds[1])) return false;
    for (const [centre, h] of this.boxes) if (overlaps(c, half, centre, h)) return false;
    for (const [p, r] of this.points) if (overlaps(c, half, p, [r, r])) return false;
    return true;
  }

  // Whether a leader line from start to start + offset crosses a label or runs through another point's marker.
  crossed(start, offset) {
    if (!this.boxes.length && !this.markers.length) return false;
    const end = [start[0] + offset[0], start[1] + offset[1]];
    const low = [Math.min(start[0], end[0]), Math.min(start[1], end[1])];
    const high = [Math.max(start[0], end[0]), Math.max(start[1], end[1])];
    const on = line(start, end);
    for (const [c, h] of this.boxes) {
      const near = c[0] + h[0] > low[0] && c[1] + h[1] > low[1] && c[0] - h[0] < high[0] && c[1] - h[1] < high[1];
      if (near && on.some((p) => Math.abs(p[0] - c[0]) < h[0] && Math.abs(p[1] - c[1]) < h[1])) return true;
    }
    const others = this.markers.filter((m) => Math.hypot(m[0] - start[0], m[1] - start[1]) > MARKER_CLEAR);
    const near = others.filter(
      (m) =>
        m[0] > low[0] - MARKER_CLEAR &&
        m[1] > low[1] - MARKER_CLEAR &&
        m[0] < high[0] + MARKER_CLEAR &&
        m[1] < high[1] + MARKER_CLEAR,
    );
    if (!near.length) return false;
    const away = on.filter((p) => Math.hypot(p[0] - start[0], p[1] - start[1]) > MARKER_CLEAR);
    return away.some((p) => near.some((m) => Math.hypot(p[0] - m[0], p[1] - m[1]) < MARKER_CLEAR));
  }

  labelsOnly() {
    return new Sheet(this.k, [], this.boxes, []);
  }

  // This sheet cut to what lies within `radius` pixels of a point: all a label near it can touch.
  around(at, radius) {
    const points = this.points.filter(
      ([p, r]) => Math.abs(p[0] - at[0]) < radius + r && Math.abs(p[1] - at[1]) < radius + r,
    );
    const boxes = this.boxes.filter(
      ([c, h]) => Math.abs(c[0] - at[0]) < radius + h[0] && Math.abs(c[1] - at[1]) < radius + h[1],
    );
    const markers = this.markers.filter((m) => Math.abs(m[0] - at[0]) < radius && Math.abs(m[1] - at[1]) < radius);
    return new Sheet(this.k, points, boxes, markers);
  }
}

const plus = (a, k, o) => [a[0] * k + o[0], a[1] * k + o[1]];

// The first candidate place free on every sheet (and whether it needs a leader line); else the first free on as
// many of the first sheets as can be and, on the rest, off every label; else free on as many of the first as can
// be; null if none is free on the first. As labels.py's _first_free.
function firstFree({ offsets, leaders }, anchor, half, frame, sheets) {
  const free = [];
  sheets.forEach((s, j) => {
    free.push(offsets.map((o, i) => (j === 0 || free[j - 1][i]) && s.free(plus(anchor, s.k, o), half, frame)));
  });
  const labels = sheets.map((s) => s.labelsOnly());
  const apart = [offsets.map(() => true)];
  for (let j = labels.length - 1; j >= 1; j--) {
    const s = labels[j];
    apart.unshift(offsets.map((o, i) => apart[0][i] && s.free(plus(anchor, s.k, o), half, frame)));
  }
  const tiers = [];
  for (let n = sheets.length; n >= 1; n--) tiers.push([n, true]);
  for (let n = sheets.length - 1; n >= 1; n--) tiers.push([n, false]);
  for (const [n, keptApart] of tiers) {
    const checked = sheets.slice(0, n).concat(keptApart ? labels.slice(n) : []);
    for (let i = 0; i < offsets.length; i++) {
      if (!(free[n - 1][i] && (!keptApart || apart[n - 1][i]))) continue;
      if (!leaders[i]) return [offsets[i], false];
      if (!checked.some((s) => s.crossed([anchor[0] * s.k, anchor[1] * s.k], offsets[i]))) return [offsets[i], true];
    }
  }
  return null;
}

function placed(request) {
  const [cx, cy, scale, width, height] = request.frame;
  const frame = { width, height };
  const px = ([x, y]) => [(x - cx) * scale, (y - cy) * scale];
  const markers = request.obstacles
    .filter(([x0, y0, x1, y1, , behind]) => x0 === x1 && y0 === y1 && behind === null)
    .map(([x0, y0]) => px([x0, y0]));
  const sheets = request.scales.map(
    (k) =>
      new Sheet(
        k,
        sampled(request.obstacles, px, k),
        [],
        markers.map((m) => [m[0] * k, m[1] * k]),
      ),
  );
  const out = [];
  for (const [text, x, y, tx, ty, w, h, size, color, gap] of request.labels.slice(0, MAX_LABELS)) {
    const half = [w / 2 + LABEL_GAP / 2, h / 2 + LABEL_GAP / 2];
    const anchor = px([x, y]);
    let chosen = null;
    let local = null;
    let far = null;
    for (const distances of [DISTANCES, FAR]) {
      far = candidates([tx, ty], [w, h], gap, distances);
      const reach = Math.max(...far.offsets.map(([ox, oy]) => Math.max(Math.abs(ox), Math.abs(oy)))) + Math.max(...half) + 1;
      local = sheets.map((s) => s.around([anchor[0] * s.k, anchor[1] * s.k], reach));
      chosen = firstFree(far, anchor, half, frame, local);
      if (chosen) break;
    }
    if (chosen === null) {
      // last, where no place is clear of every arrow: one that covers arrows, but no label
      const bare = local.slice(0, 1).map((s) => new Sheet(s.k, [], s.boxes, s.markers));
      const near = candidates([tx, ty], [w, h], gap, DISTANCES);
      const both = { offsets: near.offsets.concat(far.offsets), leaders: near.leaders.concat(far.leaders) };
      chosen = firstFree(both, anchor, half, frame, bare);
    }
    if (chosen === null) continue;
    const [offset, leader] = chosen;
    for (const s of sheets) {
      const c = plus(anchor, s.k, offset);
      s.boxes.push([c, half]);
      if (leader) for (const p of line([anchor[0] * s.k, anchor[1] * s.k], c)) s.points.push([p, 1.0]);
    }
    const note = { x, y, xref: "x", yref: "y", text, xanchor: "center", yanchor: "middle", font: { size, color } };
    if (leader) {
      Object.assign(note, {
        showarrow: true,
        ax: offset[0],
        ay: -offset[1],
        arrowhead: 0,
        arrowwidth: 1,
        arrowcolor: request.muted,
        standoff: 2,
      });
    } else {
      Object.assign(note, { showarrow: false, xshift: offset[0], yshift: offset[1] });
    }
    out.push(note);
  }
  return out;
}

// The layout with its labels placed among its annotations (changed in place), and their request taken out.
function placeLabels(layout) {
  const request = layout.meta && layout.meta.labels;
  if (!request) return layout;
  const notes = (layout.annotations || []).slice();
  notes.splice(request.at, 0, ...placed(request));
  layout.annotations = notes;
  delete layout.meta.labels;
  return layout;
}

if (typeof module !== "undefined") module.exports = { placeLabels, placed }; // node, for tests/test_labels_js.py
