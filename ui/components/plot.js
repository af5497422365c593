// A plotly figure drawn in place (ui/components/plot.py): the element keeps its place on the page, a changed figure is
// drawn into it once (Plotly.newPlot), and a figure that did not change is not drawn at all. While a figure is
// on its way the element holds its height, and says so in data-drawing. plotly(url) is plotly_loader.js's;
// fitted(), its titles cut to the chart's width before it is drawn and when the width changes, plot_fit.js's;
// describeIn(), the disclosure under it that says what it shows, chart_text.js's.

const FULLSCREEN_ICON = {
  width: 512,
  height: 512,
  path: "M32 32C14 32 0 46 0 64v96c0 18 14 32 32 32s32-14 32-32V96h64c18 0 32-14 32-32s-14-32-32-32H32zM64 352c0-18-14-32-32-32S0 334 0 352v96c0 18 14 32 32 32h96c18 0 32-14 32-32s-14-32-32-32H64v-64zM320 32c-18 0-32 14-32 32s14 32 32 32h64v64c0 18 14 32 32 32s32-14 32-32V64c0-18-14-32-32-32h-96zM448 352c0-18-14-32-32-32s-32 14-32 32v64h-64c-18 0-32 14-32 32s14 32 32 32h96c18 0 32-14 32-32v-96z",
};

// The figure alone on the screen, and back: Streamlit's own charts have this in their toolbar.
function fullscreenButton(gd, title) {
  return {
    name: "fullscreen",
    title,
    icon: FULLSCREEN_ICON,
    click: () => {
      if (document.fullscreenElement) document.exitFullscreen();
      else gd.parentElement.requestFullscreen();
    },
  };
}

// What a screen reader meets inside a drawn figure: not plotly's texts (tick labels read one by one: the figure is
// named and described instead), but a link the figure draws (chapter 1's boxes open their chapters), which the
// keyboard reaches and which is said by its words.
function readable(gd) {
  for (const svg of gd.querySelectorAll(".main-svg")) {
    const links = svg.querySelectorAll("a");
    if (!links.length) {
      svg.setAttribute("aria-hidden", "true");
      continue;
    }
    svg.removeAttribute("aria-hidden");
    svg.querySelectorAll("text").forEach((t) => {
      if (!t.querySelector("a")) t.setAttribute("aria-hidden", "true");
    });
    for (const a of links) {
      const words = a.textContent.trim();
      a.setAttribute("aria-label", words);
      // plotly draws a linked annotation's box as a second link, with no words: one stop per link is enough
      if (!words) {
        a.setAttribute("tabindex", "-1");
        a.setAttribute("aria-hidden", "true");
      }
    }
  }
}

// What an earlier fit changed and this one does not, back as the server sent it (the title as it reads now, uncut);
// null gives plotly's default, where the server set none.
function restored(sent, before, changes, title) {
  const out = { ...changes };
  for (const key of before || []) {
    if (key in out) continue;
    if (key === "title.text") out[key] = title;
    else out[key] = key.split(/[.[\]]+/).filter(Boolean).reduce((at, k) => (at && typeof at === "object" ? at[k] : undefined), sent) ?? null;
  }
  return out;
}

// A narrow chart's labels drawn past its edge shifted back inside (plot_fit.js, nudged), once it is drawn.
function inside(gd, width) {
  if (!(gd.__laidOut && width < gd.__laidOut)) return undefined;
  const changes = nudged(gd);
  if (!Object.keys(changes).length) return undefined;
  gd.__changed = [...new Set([...(gd.__changed || []), ...Object.keys(changes)])];
  return window.Plotly.relayout(gd, changes);
}

export default function (component) {
  const { data, parentElement } = component;
  let gd = parentElement.querySelector(".attention-plot");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "attention-plot";
    parentElement.appendChild(gd);
  }
  // a figure to a screen reader: its name and what it shows (ui/components/chart_text.py), not plotly's tick labels
  gd.setAttribute("role", "figure");
  gd.setAttribute("aria-label", data.label || "");
  if (data.describedBy) gd.setAttribute("aria-describedby", data.describedBy);
  // chart_text.js: under the figure, in words and numbers (its fields come as text_alt, text_id…: plot.py)
  const text = Object.fromEntries(
    Object.entries(data)
      .filter(([name]) => name.startsWith("text_"))
      .map(([name, value]) => [name.slice(5), value]),
  );
  if (text.alt) describeIn(parentElement, text);
  const config = data.config;
  if (gd.__spec === data.spec && gd.__config === config) return undefined;
  gd.__spec = data.spec;
  gd.__config = config;
  const fig = JSON.parse(data.spec);
  placeLabels(fig.layout); // labels.js: a picture of vectors names its points here
  const height = fig.layout.height || 450;
  gd.style.minHeight = `${height}px`;
  gd.dataset.drawing = "true";
  const width = () => Math.max(150, Math.round(parentElement.getBoundingClientRect().width));
  plotly(data.plotly)
    .then((Plotly) => {
      if (gd.__spec !== data.spec || gd.__config !== config) return undefined; // a newer one is on its way
      const w = width();
      const fit = fitted(fig.layout, w, data.headName || "", null, fig.data, data.laidOut);
      const layout = withChanges(fig.layout, fit.changes);
      layout.width = w;
      gd.__sent = fig.layout;
      // as sent, what a new width fits again: legend names, and the names along a bar chart's axis
      gd.__traces = fig.data.map(({ name, showlegend, y, yaxis, type, orientation }) => {
        const names = Array.isArray(y) && typeof y[0] === "string" ? y : undefined;
        return { name, showlegend, yaxis, y: names, type, orientation };
      });
      for (const [i, name] of Object.entries(fit.names)) fig.data[i].name = name;
      crowdedCells(fig.data, fig.layout, w, data.laidOut);
      gd.__counts = fit.counts;
      gd.__changed = Object.keys(fit.changes);
      gd.__laidOut = data.laidOut;
      gd.__height = layout.height || height;
      gd.style.minHeight = `${gd.__height}px`;
      const options = JSON.parse(config);
      options.modeBarButtonsToAdd = [fullscreenButton(gd, data.fullscreen || "Fullscreen")];
      return Plotly.newPlot(gd, fig.data, layout, options).then(() => {
        readable(gd);
        gd.on("plotly_afterplot", () => readable(gd)); // a relayout draws its texts anew
        return inside(gd, w);
      });
    })
    .catch((error) => {
      gd.textContent = (data.failed || "This figure could not be drawn: {error}").replace("{error}", error); // ui/components/plot.py says it
    })
    .finally(() => {
      if (gd.__spec === data.spec && gd.__config === config) delete gd.dataset.drawing;
    });

  if (!gd.__sized) {
    // the column's width (the sidebar opening and closing), and the whole screen in fullscreen
    let last = width();
    const fit = () => {
      if (!gd._fullLayout || !window.Plotly) return;
      const full = document.fullscreenElement === parentElement;
      const w = full ? window.innerWidth : width();
      if (Math.abs(w - last) < 2 && (full ? window.innerHeight : gd.__height) === gd._fullLayout.height) return;
      last = w;
      // the titles cut again for the new width, from the title as the page has it now (the head switch renames it)
      const title = gd.layout.title && typeof gd.layout.title.text === "string" ? gd.layout.title.text : null;
      const before = title === null ? null : uncut(title, gd.__counts);
      const cut = fitted(gd.__sent, w, data.headName || "", before, gd.__traces, data.laidOut);
      const changes = restored(gd.__sent, gd.__changed, cut.changes, before);
      changes.width = w;
      gd.__counts = cut.counts;
      gd.__changed = Object.keys(cut.changes);
      gd.__height = cut.changes.height || gd.__sent.height || 450;
      gd.style.minHeight = `${gd.__height}px`;
      changes.height = full ? window.innerHeight : gd.__height;
      const names = gd.__traces.map((trace, i) => cut.names[i] ?? trace.name);
      // fitted again: until it is drawn so, the element says so (data-fitting), as data-drawing for a new figure
      const fitting = (gd.__fitting = (gd.__fitting || 0) + 1);
      gd.dataset.fitting = "true";
      let redrawn;
      if (names.some((name, i) => name !== gd.data[i].name)) {
        const changed = names.map((_, i) => i).filter((i) => names[i] !== gd.data[i].name);
        redrawn = window.Plotly.update(gd, { name: changed.map((i) => names[i]) }, changes, changed);
      } else redrawn = window.Plotly.relayout(gd, changes);
      redrawn
        .then(() => inside(gd, w))
        .finally(() => {
          if (gd.__fitting === fitting) delete gd.dataset.fitting;
        });
    };
    gd.__sized = new ResizeObserver(fit);
    gd.__sized.observe(parentElement);
    parentElement.addEventListener("fullscreenchange", fit);
  }
  return undefined;
}
