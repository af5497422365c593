"""The browser's label placer (ui/components/labels.js) against the server's (ui/figures/labels.py), on the labels
the app's pages ask for: the explorer on the three models (a long paragraph among them, whose labels stand out on
leader lines and stop at forty) and the chapters that draw vectors. Each figure is sent with its labels' request
(layout.meta.labels); node runs labels.js on it, Python's placer on the same, and the annotations must be the same:
the same labels in the same places, each with or without its leader line, at the same offsets to a millionth of a
pixel (a sine can differ in its last bit between numpy and JavaScript)."""

from __future__ import annotations

import json
import math
import subprocess
from pathlib import Path

import pytest

from app_driver.apptest import run_page
from ui import internals
from ui.components import plot
from ui.figures import labels

PARAGRAPH = " ".join(["the old keeper climbed the stairs to light the lamp while a quiet river ran past the mill"] * 3)
PAGES = [
    ("pages/00_explorer.py", {}),
    ("pages/00_explorer.py", {"text": PARAGRAPH, "layer": "4"}),
    ("pages/00_explorer.py", {"model": "smollm2", "lang": "fr", "text": "Le petit chat dort sur le canapé bleu"}),
    ("pages/00_explorer.py", {"model": "gemma3", "lang": "ko"}),
    ("pages/09_values.py", {}),
    ("pages/10_heads.py", {"model": "smollm2"}),
]
LABELS_JS = Path(plot.__file__).with_name("labels.js")
NODE = """
const { placed } = require(process.argv[1]);
const requests = JSON.parse(require("fs").readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(requests.map(placed)));
"""


def requests_on(path: str, params: dict) -> list[dict]:
    """The layouts of a page run's figures that ask for labels, as sent to the browser."""
    at = run_page(path, **params)
    assert not at.exception, at.exception
    out = []
    for kind, proto in internals.elements_in_order(at):
        if kind == "bidi_component" and proto.component_name.endswith(plot.NAME):
            layout = json.loads(json.loads(proto.json)["spec"])["layout"]
            if "labels" in (layout.get("meta") or {}):
                out.append(layout)
    return out


def same(a, b) -> bool:
    if isinstance(a, float | int) and isinstance(b, float | int) and not isinstance(a, bool):
        return math.isclose(a, b, rel_tol=0, abs_tol=1e-6)
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


@pytest.fixture(scope="module")
def layouts() -> list[dict]:
    return [layout for path, params in PAGES for layout in requests_on(path, params)]


def test_the_browser_places_every_label_where_the_server_would(layouts):
    result = subprocess.run(
        ["node", "-e", NODE, str(LABELS_JS)],
        input=json.dumps([layout["meta"]["labels"] for layout in layouts]),
        capture_output=True,
        text=True,
        check=True,
    )
    browser = json.loads(result.stdout)
    assert len(browser) == len(layouts) >= 12
    leaders = 0
    for layout, theirs in zip(layouts, browser, strict=True):
        request = layout["meta"]["labels"]
        ours = labels.placed({"data": [], "layout": layout})["layout"]["annotations"]
        at = request["at"]
        ours = ours[at : len(ours) - (len(layout.get("annotations", ())) - at)]  # the labels alone
        assert 0 < len(ours) <= len(request["labels"]) <= labels.MAX_LABELS
        assert [n["text"] for n in theirs] == [n["text"] for n in ours]
        assert [n["showarrow"] for n in theirs] == [n["showarrow"] for n in ours]
        bad = [(a, b) for a, b in zip(theirs, ours, strict=True) if not same(a, b)]
        assert not bad, bad[:2]
        leaders += sum(n["showarrow"] for n in ours)
    assert leaders > 0  # the long paragraph's labels stand out on leader lines: that branch ran too
    assert max(len(layout["meta"]["labels"]["labels"]) for layout in layouts) == labels.MAX_LABELS


def test_the_labels_go_where_the_server_put_them_among_the_figure_s_own_annotations(layouts):
    """heads_summed_figure has a note after its labels: the labels go before it, as the server placed them."""
    node = """
    const { placeLabels } = require(process.argv[1]);
    const layouts = JSON.parse(require("fs").readFileSync(0, "utf8"));
    process.stdout.write(JSON.stringify(layouts.map((l) => placeLabels(l))));
    """
    result = subprocess.run(
        ["node", "-e", node, str(LABELS_JS)], input=json.dumps(layouts), capture_output=True, text=True, check=True
    )
    for sent, theirs in zip(layouts, json.loads(result.stdout), strict=True):
        ours = labels.placed({"data": [], "layout": sent})["layout"]
        assert "labels" not in theirs.get("meta", {}) and "labels" not in ours.get("meta", {})
        assert [n.get("text") for n in theirs["annotations"]] == [n.get("text") for n in ours["annotations"]]
