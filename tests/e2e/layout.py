"""What the browser tests measure on a laid-out page: texts cut short or drawn past their figure, a page wider
than its window, and controls the keyboard cannot bring into view. Shared by the languages test (a phone's 390×844
and 1280×720) and the reflow test (200 % zoom)."""

from __future__ import annotations

# What the browser draws past its box: in each figure, a text whose box leaves the figure's; anywhere, a text its
# box cuts short (an ellipsis, or a box that hides what overflows it); the page wider than its window. With how many
# texts and boxes it measured, so that a page whose selectors no longer match fails instead of passing.
CUT = """() => {
  const out = [];
  let measured = 0;
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    const frame = plot.getBoundingClientRect();
    const title = plot.querySelector('.gtitle')?.textContent || '';
    for (const t of plot.querySelectorAll('.gtitle, .g-xtitle text, .g-ytitle text, .annotation-text, .xtick text, .ytick text, .legendtext')) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 || getComputedStyle(t).opacity === '0') continue;
      measured++;
      if (r.left < frame.left - 2 || r.right > frame.right + 2)
        out.push(`figure "${title.slice(0, 50)}": "${t.textContent.slice(0, 40)}" past its edge`);
      else if (t.matches('.legendtext') && r.bottom > frame.bottom + 2)  // a legend's row below the figure
        out.push(`figure "${title.slice(0, 50)}": "${t.textContent.slice(0, 40)}" below its edge`);
      else if (t.closest('.g-ytitle') && (r.top < frame.top - 2 || r.bottom > frame.bottom + 2))  // turned on its side
        out.push(`figure "${title.slice(0, 50)}": "${t.textContent.slice(0, 40)}" past its top or bottom`);
    }
  }
  // buttons, the menu, tabs, labels and a metric's label and value, and anything else that ends in an ellipsis
  const boxes = 'button, [data-testid="stTopNavLink"], [data-testid="stTopNavSection"], [data-baseweb="tab"], '
    + '[data-testid="stWidgetLabel"] p, [data-testid="stPageLink"] a, [data-testid="stMetricLabel"] *, '
    + '[data-testid="stMetricValue"] *, [data-baseweb="select"] *';
  for (const e of document.querySelectorAll(boxes)) {
    const style = getComputedStyle(e);
    // KaTeX's MathML is for screen readers, clipped to a pixel on purpose
    if (e.offsetParent === null || !e.textContent.trim() || e.closest('.katex-mathml')) continue;
    measured++;
    const hides = style.textOverflow === 'ellipsis' || ['hidden', 'clip'].includes(style.overflowX);
    // 2 px: what KaTeX's sub- and superscripts reach past a label's box, drawn whole all the same
    if (hides && e.scrollWidth > e.clientWidth + 2) out.push(`"${e.textContent.trim().slice(0, 50)}" cut short`);
  }
  for (const e of document.querySelectorAll('[data-baseweb="select"] input'))  // a select box's chosen value
    if (e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1) out.push(`"${e.value.slice(0, 50)}" cut short`);
  const main = document.querySelector('[data-testid="stMain"]');
  if (main.scrollWidth > main.clientWidth + 1) out.push(`the page is ${main.scrollWidth - main.clientWidth} px too wide`);
  return {measured, out};
}"""


def cut(page, least: int = 5) -> list[str]:
    """What is cut on the page as it stands (CUT), having measured at least `least` texts and boxes."""
    found = page.evaluate(CUT)
    assert found["measured"] >= least, f"the cut-text check measured {found['measured']} texts on {page.url}"
    return found["out"]
