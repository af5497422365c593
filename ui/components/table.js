// A small table (ui/components/table.py), built from its data with textContent: user text in a cell stays text. A click on
// a column's name sorts by it (numbers largest first, text A to Z with the numbers in it in order: "2 · a" before
// "10 · b"); another click reverses the order.

// a cell given as [text, value]: a number the page wrote itself, shown as written and sorted by its value
const written = (value) => Array.isArray(value);
const sortValue = (value) => (written(value) ? value[1] : value);

function cellText(value, digits, lang) {
  if (written(value)) return value[0];
  if (typeof value !== "number" || !Number.isFinite(value)) return String(value);
  // written as the page's language writes numbers (0,573 in French); decimals ungrouped, as the figures print them,
  // whole numbers grouped (174 604 in French)
  // a negative number with the minus sign (U+2212), as the figures and equations write it, not a hyphen
  const grouping = digits === 0;
  return value
    .toLocaleString(lang, { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: grouping })
    .replace(/^-/, "\u2212");
}

export default function (component) {
  const { data, parentElement } = component;
  const { columns, rows, digits, label, lang, sortBy } = data;
  const numeric = columns.map((_, c) => rows.length > 0 && rows.every((row) => typeof sortValue(row[c]) === "number"));
  let order = rows.map((_, i) => i);
  let sortedBy = null; // [column, direction]

  let box = parentElement.querySelector(".table");
  if (!box) {
    box = document.createElement("div");
    box.className = "table";
    parentElement.appendChild(box);
  }
  const table = document.createElement("table");
  table.setAttribute("aria-label", label);
  const head = table.createTHead().insertRow();
  const body = table.createTBody();

  const fill = () => {
    body.replaceChildren();
    for (const i of order) {
      const tr = body.insertRow();
      rows[i].forEach((value, c) => {
        const td = tr.insertCell();
        td.textContent = cellText(value, digits[c], lang);
        if (numeric[c]) td.className = "num";
      });
    }
    head.querySelectorAll("th").forEach((th, c) => {
      const sort = sortedBy && sortedBy[0] === c ? (sortedBy[1] > 0 ? "ascending" : "descending") : "none";
      th.setAttribute("aria-sort", sort);
    });
  };

  columns.forEach((name, c) => {
    const th = document.createElement("th");
    th.scope = "col";
    if (numeric[c]) th.className = "num";
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = name;
    button.title = sortBy.replace("{column}", name);
    button.addEventListener("click", () => {
      const first = numeric[c] ? -1 : 1;
      const direction = sortedBy && sortedBy[0] === c ? -sortedBy[1] : first;
      sortedBy = [c, direction];
      order = rows
        .map((_, i) => i)
        .sort((a, b) => {
          const x = sortValue(rows[a][c]);
          const y = sortValue(rows[b][c]);
          const d = numeric[c] ? x - y : String(x).localeCompare(String(y), undefined, { numeric: true });
          return direction * d || a - b;
        });
      fill();
    });
    th.appendChild(button);
    head.appendChild(th);
  });
  fill();
  box.replaceChildren(table);
}
