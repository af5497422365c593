"""The Plotly the app's pages load (ui/components/preload.py): static/plotly-cartesian.min.js.gz unzips to the npm
release package.json names, byte for byte, the plotly.js release that draws the exported figures (the plotly package's), and
it holds every trace type a figure of the app uses; the browser is sent there first only where the server serves
the app's static folder."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import plotly.offline
import pytest
from streamlit import config

from ui.components import preload

ROOT = Path(__file__).resolve().parents[1]
NPM = ROOT / "node_modules" / "plotly.js-cartesian-dist-min" / "plotly-cartesian.min.js"


def test_the_bundle_is_the_npm_release_package_json_names():
    wanted = json.loads((ROOT / "package.json").read_text())["devDependencies"]["plotly.js-cartesian-dist-min"]
    installed = json.loads((NPM.parent / "package.json").read_text())["version"]
    assert installed == wanted
    assert gzip.decompress(preload.BUNDLE.read_bytes()) == NPM.read_bytes()


def test_the_bundle_is_the_plotly_js_that_draws_the_exported_figures():
    head = gzip.decompress(preload.BUNDLE.read_bytes())[:400].decode("utf-8")
    assert re.search(r"plotly\.js \(cartesian - minified\) v(\S+)", head)[1] == plotly.offline.get_plotlyjs_version()


def test_the_bundle_has_every_trace_type_the_app_draws():
    used = set()
    for path in (ROOT / "ui" / "figures").glob("*.py"):
        used |= set(
            re.findall(
                r'\btype="(scatter|heatmap|bar|histogram|[a-z]+gl|[a-z]+3d|[a-z]+polar|pie|table)"',
                path.read_text(encoding="utf-8"),
            )
        )
    assert used >= {"scatter", "heatmap", "bar"}, used
    readme = (NPM.parent / "README.md").read_text(encoding="utf-8")
    held = set(
        re.search(r"Contains trace modules (.+?)\.\n", readme)[1].replace(" and ", ", ").replace("`", "").split(", ")
    )
    assert used <= held, used - held


@pytest.mark.parametrize("served", [True, False])
def test_the_browser_is_sent_to_the_bundle_only_where_the_server_serves_it(served):
    before = config.get_option("server.enableStaticServing")
    config.set_option("server.enableStaticServing", served)
    try:
        sources = json.loads(preload.sources())
    finally:
        config.set_option("server.enableStaticServing", before)
    assert sources[-1] == preload.STREAMLITS and sources[-1]["module"]
    assert (sources[0] == preload.OWN) is served and len(sources) == (2 if served else 1)
    assert (ROOT / "static" / Path(preload.OWN["url"]).name).is_file() and preload.OWN["gzip"]
