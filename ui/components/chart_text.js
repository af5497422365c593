// A figure in words and numbers (ui/components/chart_text.py): a disclosure under the figure that holds what it shows, said
// in sentences, and its values as tables (a row's name and a column's name head each cell, so a screen reader
// says both). Built with textContent: a token such as "<b>" stays text. The tables are made when first opened.
// Drawn by the figure's own element (ui/components/plot.js, which this file is bundled with), or by an element of its own
// under Streamlit's chart (ui/components/chart_text.py adds the export).

// a number as the page's language writes it; a count, a position or a size whole (32, not 32.000)
function written(value, digits, lang) {
  if (value === null) return "−∞";
  if (typeof value !== "number") return String(value);
  const d = digits === 0 || (Math.abs(value) > 1 && Number.isInteger(value)) ? 0 : digits;
  // a negative number with the minus sign (U+2212), as the sentences above and −∞ write it
  return value.toLocaleString(lang, { minimumFractionDigits: d, maximumFractionDigits: d }).replace(/^-/, "\u2212");
}

function tableOf(t, lang) {
  const table = document.createElement("table");
  if (t.caption) table.createCaption().textContent = t.caption;
  const head = table.createTHead().insertRow();
  t.header.forEach((name, c) => {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = name;
    if (c > 0) th.className = "num";
    head.appendChild(th);
  });
  const body = table.createTBody();
  for (const row of t.rows) {
    const tr = body.insertRow();
    row.forEach((cell, c) => {
      const el = document.createElement(c === 0 ? "th" : "td");
      if (c === 0) el.scope = "row";
      else el.className = "num";
      el.textContent = c === 0 ? String(cell) : written(cell, t.digits, lang);
      tr.appendChild(el);
    });
  }
  return table;
}

function sentencesOf(alt) {
  const said = document.createElement("ul");
  for (const s of alt.sentences) {
    const li = document.createElement("li");
    li.textContent = s;
    said.appendChild(li);
  }
  return said;
}

function tablesOf(alt, lang) {
  return alt.tables.map((t) => {
    const box = document.createElement("div");
    box.className = "chart-text-table";
    box.tabIndex = 0; // a table wider or longer than its box scrolls: by keyboard too
    box.setAttribute("role", "region");
    box.setAttribute("aria-label", t.caption || alt.name);
    box.appendChild(tableOf(t, lang));
    return box;
  });
}

// Streamlit's own chart (one whose clicks reach the app), drawn just above this disclosure: named and described as
// ui/components/plot.js names the app's charts, its SVG (tick labels read one by one) hidden from a screen reader. Streamlit
// draws that chart after this runs, and anew at each redraw: its element is watched until it is there, and after.
function nameChart(parentElement, data) {
  const box = parentElement.closest('[data-testid="stElementContainer"]')?.previousElementSibling;
  if (!box) return;
  box.__names = data;
  const apply = () => {
    const chart = box.querySelector('[data-testid="stPlotlyChart"]');
    if (!chart) return;
    chart.setAttribute("role", "figure");
    chart.setAttribute("aria-label", box.__names.names);
    chart.setAttribute("aria-describedby", box.__names.id);
    chart.querySelectorAll("svg.main-svg:not([aria-hidden])").forEach((svg) => svg.setAttribute("aria-hidden", "true"));
  };
  apply();
  if (!box.__naming) {
    box.__naming = new MutationObserver(apply);
    box.__naming.observe(box, { childList: true, subtree: true });
  }
}

// The disclosure, last in `parentElement`, made once and updated when its text changes.
function describeIn(parentElement, data) {
  let details = parentElement.querySelector("details.chart-text");
  if (!details) {
    details = document.createElement("details");
    details.className = "chart-text";
    details.appendChild(document.createElement("summary"));
    const body = document.createElement("div");
    body.className = "chart-text-body";
    details.appendChild(body);
    parentElement.appendChild(details);
    details.addEventListener("toggle", () => {
      if (details.open && !details.__built) {
        body.append(...tablesOf(details.__alt, details.__lang));
        details.__built = true;
      }
    });
  }
  const body = details.querySelector(".chart-text-body");
  body.id = data.id;
  details.classList.toggle("compact", Boolean(data.compact));
  details.querySelector("summary").textContent = data.summary;
  details.__lang = data.lang;
  if (details.__text !== data.alt) {
    details.__text = data.alt;
    details.__alt = JSON.parse(data.alt);
    // the sentences from the start (the figure's aria-describedby reads them), the tables once opened
    body.replaceChildren(sentencesOf(details.__alt));
    details.__built = details.open;
    if (details.open) body.append(...tablesOf(details.__alt, details.__lang));
  }
}
