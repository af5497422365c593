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

// Every obstacle sampled every 2 pixels at k times the frame's scale: {x, y, r} (r: each point's half width).
function sampled(obstacles, px, k) {
  const x = [];
  const y = [];
  const r = [];
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
    for (const p of line(a, b)) {
      x.push(p[0]);
      y.push(p[1]);
      r.push(halfWidth);
    }
  }
  return byX({ x, y, r });
}

// Points in the order of their x, for `around`'s bisection, with the widest half width among them.
function byX({ x, y, r }) {
  const order = x.map((_, i) => i).sort((i, j) => x[i] - x[j] || i - j);
  const points = { x: new Float64Array(order.length), y: new Float64Array(order.length), r: new Float64Array(order.length) };
  order.forEach((i, k) => {
    points.x[k] = x[i];
    points.y[k] = y[i];
    points.r[k] = r[i];
  });
  points.widest = r.reduce((a, b) => Math.max(a, b), 0);
  return points;
}

// The first index whose x is at least `value` (side "left") or more than it (side "right").
function bisect(xs, value, right) {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (right ? xs[mid] <= value : xs[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const NONE = { x: new Float64Array(0), y: new Float64Array(0), r: new Float64Array(0), widest: 0 };

// What is drawn at one scale so far: obstacles' sampled points, the labels' boxes, the points' markers.
class Sheet {
  constructor(k, points, boxes, markers) {
    this.k = k;
    this.points = points; // {x, y, r}, sorted by x
    this.boxes = boxes; // [[centre, half]]
    this.markers = markers; // [[x, y]]
  }

  // More obstacle points (a leader line), merged in the order of their x.
  add(points, reach) {
    const old = this.points;
    const extra = byX({ x: points.map((p) => p[0]), y: points.map((p) => p[1]), r: points.map(() => reach) });
    const n = old.x.length + extra.x.length;
    const merged = { x: new Float64Array(n), y: new Float64Array(n), r: new Float64Array(n) };
    merged.widest = Math.max(old.widest, extra.widest);
    for (let i = 0, j = 0, k = 0; k < n; k++) {
      if (j >= extra.x.length || (i < old.x.length && old.x[i] <= extra.x[j])) {
        merged.x[k] = old.x[i];
        merged.y[k] = old.y[i];
        merged.r[k] = old.r[i++];
      } else {
        merged.x[k] = extra.x[j];
        merged.y[k] = extra.y[j];
        merged.r[k] = extra.r[j++];
      }
    }
    this.points = merged;
  }

  // Whether a label's box, centred at (cx, cy), stays in the plot, off every label and every obstacle.
  free(cx, cy, hx, hy, frame) {
    if (!(Math.abs(cx) + hx <= (this.k * frame.width) / 2 && Math.abs(cy) + hy <= frame.height / 2)) return false;
    for (const [c, h] of this.boxes) {
      if (Math.abs(cx - c[0]) < hx + h[0] && Math.abs(cy - c[1]) < hy + h[1]) return false;
    }
    const { x, y, r } = this.points;
    for (let i = 0; i < x.length; i++) {
      if (Math.abs(cx - x[i]) < hx + r[i] && Math.abs(cy - y[i]) < hy + r[i]) return false;
    }
    return true;
  }

  // Whether a leader line from start to start + offset crosses a label or runs through another point's marker.
  crossed(start, offset) {
    if (!this.boxes.length && !this.markers.length) return false;
    const end = [start[0] + offset[0], start[1] + offset[1]];
    const low = [Math.min(start[0], end[0]), Math.min(start[1], end[1])];
    const high = [Math.max(start[0], end[0]), Math.max(start[1], end[1])];
    let on = null;
    for (const [c, h] of this.boxes) {
      const near = c[0] + h[0] > low[0] && c[1] + h[1] > low[1] && c[0] - h[0] < high[0] && c[1] - h[1] < high[1];
      if (!near) continue;
      on = on || line(start, end);
      if (on.some((p) => Math.abs(p[0] - c[0]) < h[0] && Math.abs(p[1] - c[1]) < h[1])) return true;
    }
    const near = this.markers.filter(
      (m) =>
        Math.hypot(m[0] - start[0], m[1] - start[1]) > MARKER_CLEAR &&
        m[0] > low[0] - MARKER_CLEAR &&
        m[1] > low[1] - MARKER_CLEAR &&
        m[0] < high[0] + MARKER_CLEAR &&
        m[1] < high[1] + MARKER_CLEAR,
    );
    if (!near.length) return false;
    const away = (on || line(start, end)).filter((p) => Math.hypot(p[0] - start[0], p[1] - start[1]) > MARKER_CLEAR);
    return away.some((p) => near.some((m) => Math.hypot(p[0] - m[0], p[1] - m[1]) < MARKER_CLEAR));
  }

  labelsOnly() {
    return new Sheet(this.k, NONE, this.boxes, []);
  }

  // This sheet cut to what lies within `radius` pixels of a point: all a label near it can touch (the points
  // within reach in x found by bisection, then checked one by one).
  around(at, radius) {
    const { x, y, r } = this.points;
    const widest = radius + this.points.widest;
    const [ix, iy, ir] = [[], [], []];
    for (let i = bisect(x, at[0] - widest, false), end = bisect(x, at[0] + widest, true); i < end; i++) {
      if (Math.abs(x[i] - at[0]) < radius + r[i] && Math.abs(y[i] - at[1]) < radius + r[i]) {
        ix.push(x[i]);
        iy.push(y[i]);
        ir.push(r[i]);
      }
    }
    const points = { x: ix, y: iy, r: ir, widest: 0 };
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
    const ax = anchor[0] * s.k;
    const ay = anchor[1] * s.k;
    free.push(offsets.map((o, i) => (j === 0 || free[j - 1][i]) && s.free(ax + o[0], ay + o[1], half[0], half[1], frame)));
  });
  const labels = sheets.map((s) => s.labelsOnly());
  const apart = [offsets.map(() => true)];
  for (let j = labels.length - 1; j >= 1; j--) {
    const s = labels[j];
    const [ax, ay] = [anchor[0] * s.k, anchor[1] * s.k];
    apart.unshift(offsets.map((o, i) => apart[0][i] && s.free(ax + o[0], ay + o[1], half[0], half[1], frame)));
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
      const bare = local.slice(0, 1).map((s) => new Sheet(s.k, NONE, s.boxes, s.markers));
      const near = candidates([tx, ty], [w, h], gap, DISTANCES);
      const both = { offsets: near.offsets.concat(far.offsets), leaders: near.leaders.concat(far.leaders) };
      chosen = firstFree(both, anchor, half, frame, bare);
    }
    if (chosen === null) continue;
    const [offset, leader] = chosen;
    for (const s of sheets) {
      const c = plus(anchor, s.k, offset);
      s.boxes.push([c, half]);
      if (leader) s.add(line([anchor[0] * s.k, anchor[1] * s.k], c), 1.0); // later labels keep off it
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
