"""The heads' displacement and before → after in Chromium: every label readable, nothing outside its picture.

Measured on the drawn page: each label's box against every other label, the titles and every arrowhead;
each point, arrow tip and label inside the plot area; each figure's title inside the figure.
"""

from __future__ import annotations

import re

import pytest

from app_driver.server import wait_complete
from tests.e2e.driver import SCREENSHOTS

# the pictures, by the start of their titles: each places its labels for the page's width and for a phone
PICTURES = ("How the heads move", "The heads added up", "The step after the heads", "Every token, before → after")
NOTE = re.compile(r"^(Then e′|GPT-2:)")  # a line of type under a plot, by design outside it

MEASURE = """f => {
    const box = e => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
    const svg = f.querySelector('.main-svg').getScreenCTM();
    const heads = [];
    for (const g of f.querySelectorAll('.annotation-arrow-g')) {
        const paths = g.querySelectorAll('path');
        if (paths.length < 2) continue;  // a leader line has no head
        const m = paths[1].getScreenCTM();
        const at = (x, y) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f];
        heads.push([at(-4.45, -3), at(1.55, 0), at(-4.45, 3)]);  // plotly's arrowhead 3, tip in the middle
    }
    return {
        figure: box(f.querySelector('.main-svg')),
        plot: box(f.querySelector('.nsewdrag')),
        title: box(f.querySelector('.gtitle')),
        axes: Array.from(f.querySelectorAll('.g-xtitle text, .g-ytitle text')).map(box),
        legend: f.querySelector('.legend') ? box(f.querySelector('.legend')) : null,
        labels: Array.from(f.querySelectorAll('.annotation-text-g'))
            .filter(g => g.textContent.trim())
            .map(g => ({text: g.textContent, box: box(g.querySelector('text'))})),
        points: Array.from(f.querySelectorAll('.scatterlayer .point')).map(p => {
            const r = p.getBoundingClientRect(); return [(r.left + r.right) / 2, (r.top + r.bottom) / 2];
        }),
        heads: heads,
    };
}"""


def overlap(a, b, slack: float = 0.5) -> bool:
    return a[0] < b[2] - slack and b[0] < a[2] - slack and a[1] < b[3] - slack and b[1] < a[3] - slack


def inside(point, box, slack: float = 1.0) -> bool:
    return box[0] - slack <= point[0] <= box[2] + slack and box[1] - slack <= point[1] <= box[3] + slack


def covers(triangle, box) -> bool:
    """Whether any point of the (arrowhead) triangle lies inside the box: a grid of points on the triangle."""
    (ax, ay), (bx, by), (cx, cy) = triangle
    steps = 12
    for i in range(steps + 1):
        for j in range(steps + 1 - i):
            u, v = i / steps, j / steps
            x, y = ax + u * (bx - ax) + v * (cx - ax), ay + u * (by - ay) + v * (cy - ay)
            if box[0] + 0.5 < x < box[2] - 0.5 and box[1] + 0.5 < y < box[3] - 0.5:
                return True
    return False


def check(figure_measure: dict, name: str) -> None:
    m = figure_measure
    labels = m["labels"]
    assert labels, name
    for i, a in enumerate(labels):
        assert inside(a["box"][:2], m["figure"]) and inside(a["box"][2:], m["figure"]), (name, a["text"], "cut")
        if not NOTE.match(a["text"]):
            assert inside(a["box"][:2], m["plot"]) and inside(a["box"][2:], m["plot"]), (name, a["text"], "outside")
        for b in labels[i + 1 :]:
            assert not overlap(a["box"], b["box"]), (name, a["text"], b["text"])
        for other in [m["title"], *m["axes"]]:
            assert not overlap(a["box"], other), (name, a["text"], "on a title")
        for head in m["heads"]:
            assert not covers(head, a["box"]), (name, a["text"], "under an arrowhead")
    for p in m["points"]:
        assert inside(p, m["plot"]), (name, p)
    for head in m["heads"]:
        assert inside(head[1], m["plot"]), (name, "arrow tip", head[1])
    assert m["title"][2] <= m["figure"][2] + 1, (name, "title cut")
    for axis in m["axes"]:  # "PC2 (31% of va…", "|Δe| in model sp…": an axis title runs past its figure's edge
        assert inside(axis[:2], m["figure"]) and inside(axis[2:], m["figure"]), (name, "axis title cut")
    if m["legend"]:
        assert inside(m["legend"][:2], m["figure"]) and inside(m["legend"][2:], m["figure"]), (name, "legend cut")
        assert not any(overlap(m["legend"], other) for other in [m["title"], m["plot"], *m["axes"]]), (name, "legend")


def picture(page, title: str):
    return page.locator(".js-plotly-plot").filter(
        has=page.locator(".gtitle", has_text=re.compile("^" + re.escape(title)))
    )


@pytest.mark.parametrize(
    ("width", "height", "model"),
    [
        (1280, 720, "all-MiniLM-L6-v2"),
        (1920, 1080, "all-MiniLM-L6-v2"),
        (390, 844, "all-MiniLM-L6-v2"),
        (1280, 720, "gemma3"),  # its step after the heads: e → e′ in one step, the unadded sum beside it
        (1280, 720, "smollm2"),  # no step after the heads to draw
    ],
)
def test_displacement_labels_never_collide_and_nothing_is_cut(server, browser, width, height, model):
    page = browser.new_page(viewport={"width": width, "height": height})
    try:
        page.goto(server + f"/?specials=0&model={model}")
        state = wait_complete(page, titled="Every token, before", timeout=180)
        assert state["exceptions"] == 0
        heading = page.get_by_role("heading", name="5 · Displacement")
        heading.evaluate("e => e.scrollIntoView()")
        page.wait_for_timeout(600)
        page.screenshot(path=str(SCREENSHOTS / f"displacement-{model}-{width}x{height}.png"))
        for title in PICTURES if model != "smollm2" else [t for t in PICTURES if t != "The step after the heads"]:
            found = picture(page, title)
            assert found.count() == 1, title
            found.scroll_into_view_if_needed()
            check(found.evaluate(MEASURE), f"{title} at {width}px")
    finally:
        page.close()
