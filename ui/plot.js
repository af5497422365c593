// A plotly figure drawn in place (ui/plot.py): the element keeps its place on the page, a changed figure is
// drawn into it once (Plotly.newPlot), and a figure that did not change is not drawn at all. While a figure is
// on its way the element holds its height, and says so in data-drawing. plotly(url) is plotly_loader.js's.

const FULLSCREEN_ICON = {
  width: 512,
  height: 512,
  path: "M32 32C14 32 0 46 0 64v96c0 18 14 32 32 32s32-14 32-32V96h64c18 0 32-14 32-32s-14-32-32-32H32zM64 352c0-18-14-32-32-32S0 334 0 352v96c0 18 14 32 32 32h96c18 0 32-14 32-32s-14-32-32-32H64v-64zM320 32c-18 0-32 14-32 32s14 32 32 32h64v64c0 18 14 32 32 32s32-14 32-32V64c0-18-14-32-32-32h-96zM448 352c0-18-14-32-32-32s-32 14-32 32v64h-64c-18 0-32 14-32 32s14 32 32 32h96c18 0 32-14 32-32v-96z",
};

// The figure alone on the screen, and back: Streamlit's own charts have this in their toolbar.
function fullscreenButton(gd) {
  return {
    name: "fullscreen",
    title: "Fullscreen",
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

export default function (component) {
  const { data, parentElement } = component;
  let gd = parentElement.querySelector(".attention-plot");
  if (!gd) {
    gd = document.createElement("div");
    gd.className = "attention-plot";
    parentElement.appendChild(gd);
  }
  // a figure to a screen reader: its name and what it shows (ui/chart_text.py), not plotly's tick labels
  gd.setAttribute("role", "figure");
  gd.setAttribute("aria-label", data.label || "");
  if (data.describedBy) gd.setAttribute("aria-describedby", data.describedBy);
  const config = data.config;
  if (gd.__spec === data.spec && gd.__config === config) return undefined;
  gd.__spec = data.spec;
  gd.__config = config;
  const fig = JSON.parse(data.spec);
  const height = fig.layout.height || 450;
  gd.style.minHeight = `${height}px`;
  gd.dataset.drawing = "true";
  const width = () => Math.max(150, Math.round(parentElement.getBoundingClientRect().width));
  plotly(data.plotly)
    .then((Plotly) => {
      if (gd.__spec !== data.spec || gd.__config !== config) return undefined; // a newer one is on its way
      fig.layout.width = width();
      fig.layout.height = height;
      const options = JSON.parse(config);
      options.modeBarButtonsToAdd = [fullscreenButton(gd)];
      return Plotly.newPlot(gd, fig.data, fig.layout, options).then(() => {
        readable(gd);
        gd.on("plotly_afterplot", () => readable(gd)); // a relayout draws its texts anew
      });
    })
    .catch((error) => {
      gd.textContent = `This figure could not be drawn: ${error}`;
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
      const h = full ? window.innerHeight : gd.__height;
      if (Math.abs(w - last) >= 2 || h !== gd._fullLayout.height) {
        last = w;
        window.Plotly.relayout(gd, { width: w, height: h });
      }
    };
    gd.__sized = new ResizeObserver(fit);
    gd.__sized.observe(parentElement);
    parentElement.addEventListener("fullscreenchange", fit);
  }
  gd.__height = height;
  return undefined;
}
