"""Figures export for slides: PNG at 3× and SVG through kaleido and Debian's Chromium, same template as on screen."""

from __future__ import annotations

import asyncio
import html
import io
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

import pytest

import attention
from app_driver.apptest import figures as drawn_figures
from app_driver.apptest import run_page
from tests.sentences import FLUFFY
from ui import figures
from ui.components import plot
from ui.figures import theme
from ui.kit import downloads
from ui.words import i18n
from ui.words.chapters import CHAPTERS


def image_of(fig, **opts) -> bytes:
    """The figure drawn as the app draws a download (downloads.render: its own event loop, its Chromium closed after),
    not with plotly's to_image, whose kaleido server thread outlives the test and keeps its process from exiting."""
    return downloads.render([(fig, opts)])[0]


def test_png_at_three_times_and_svg(model):
    from PIL import Image

    tr = attention.trace(model, FLUFFY, mask="causal")
    labels = figures.token_labels([t.text for t in tr.tokens])
    fig = figures.attention_heatmap(tr.layers[0].masked[0], labels, "3. Masked", words=i18n.words())
    assert fig.layout.template.layout.font.family == theme.FONT  # the one template, in the file too

    png = image_of(fig, format="png", scale=3, width=800)
    image = Image.open(io.BytesIO(png))
    assert image.size[0] == 2400 and image.size[1] == 3 * fig.layout.height

    svg = image_of(fig, format="svg", width=800).decode("utf-8")
    assert svg.lstrip().startswith("<svg") and "−∞" in svg and "fluffy" in svg


def test_user_text_stays_text_in_an_exported_svg():
    # A tokenizer can return any characters as a token (GPT-2's keeps "<b>" whole): each chip must show them
    # exactly, never read them as plotly's tags (<b> bold, <br> a line break) or entities (&amp; an ampersand).
    texts = ["[CLS]", "<b>bold</b>", "x&amp;y", "<br>", "<script>x</script>", "[SEP]"]
    fig = figures.token_chips(texts, [True, False, False, False, False, True], [False] * len(texts), words=i18n.words())
    svg = image_of(fig, format="svg").decode("utf-8")
    drawn = [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", svg)]
    assert drawn[: len(texts)] == texts
    assert "<script>" not in svg and "font-weight:bold" not in svg


# --- every figure of a view, named for what it shows --------------------------------------------------------

ROOT = Path(__file__).resolve().parents[1]
LIGHTHOUSE = "the old lighthouse keeper"  # short enough for a subtitle to hold whole
VIEW = {"text": LIGHTHOUSE, "layer": "2", "head": "3"}


def test_file_names_carry_layer_head_and_the_sentence():
    assert downloads.file_name("softmax", 1, 2, text="The old lighthouse!") == "softmax_L2_H3_the-old-lighthouse"
    assert downloads.file_name("tokens") == "tokens"
    long = downloads.slug("a fluffy blue creature roamed the verdant forest and then slept")
    assert long == "a-fluffy-blue-creature-roamed-the"  # cut after a word, at most 40 characters
    # the sentence in its own script, accents and Hangul kept (fr59, ko25)
    assert downloads.slug("Le café est chaud !") == "le-café-est-chaud"
    assert downloads.slug("고양이가 매트 위에 앉았다") == "고양이가-매트-위에-앉았다"
    other = [downloads.slug(t) for t in ("?!", "…")]  # no letter or digit at all: still two names
    assert other[0] != other[1] and all(s.startswith("text-") for s in other)
    assert downloads.unusual(None, "gemma3") == ["", "gemma-3-270m"]  # the model as the menu names it
    assert downloads.unique(["a", "b", "a"], "png") == ["a.png", "b.png", "a-2.png"]


def test_every_export_size_gives_a_sharp_png():
    for size in theme.EXPORT_SIZES:
        opts = theme.image_options("png", size, 700)
        assert opts["width"] * opts["scale"] >= 1600, size
    assert theme.image_options("png", "16:9", 800) == {"format": "png", "width": 960, "height": 540, "scale": 3}
    assert theme.image_options("png", "16:9", 152)["height"] == 152  # a row of chips is not stretched
    assert theme.image_options("svg", "auto", 700)["scale"] == 1


def _two_charts() -> None:  # a page for AppTest: two figures, one of a sentence at a layer and head, one of none
    import plotly.graph_objects as go
    import streamlit as st

    from ui.kit import inputs
    from ui.kit.chart import chart
    from ui.session import opening

    opening.init()
    chart(go.Figure(layout=dict(title=dict(text="4. Softmax weights"))), "softmax", layer=1, head=2, mask="causal")
    if st.session_state.get("second", True):
        chart(go.Figure(layout=dict(title=dict(text="Sinusoidal encoding"))), "sinusoidal")
    inputs.download_all()


def test_chart_names_what_it_shows_and_lists_each_figure_once_per_run():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_function(_two_charts, default_timeout=120)
    at.query_params["text"] = "the <b>old</b> lighthouse"
    at.run()
    assert not at.exception
    specs = [spec["layout"] for spec, _ in plot.drawn(at)]
    names = [config["toImageButtonOptions"]["filename"] for _, config in plot.drawn(at)]
    assert specs[0]["title"]["text"] == "4. Softmax weights · layer 2 · head 3 · causal mask"
    assert (
        specs[0]["title"]["subtitle"]["text"] == f"“the &lt;b&gt;old&lt;/b&gt; lighthouse” · {attention.DEFAULT_MODEL}"
    )
    assert names == ["softmax_L2_H3_causal-mask_the-b-old-b-lighthouse", "sinusoidal"]
    assert specs[1]["title"]["text"] == "Sinusoidal encoding" and "subtitle" not in specs[1]["title"]
    assert at.get("download_button")[0].proto.label == "Download all figures (2)"
    at.run()  # a new run lists its own figures, not the last run's again
    assert at.get("download_button")[0].proto.label == "Download all figures (2)"
    at.session_state["second"] = False
    at.run()
    assert at.get("download_button")[0].proto.label == "Download all figures (1)"
    assert [r.label for r in at.sidebar.radio] == ["Figures save as"]


# --- python -m ui.export LINK ----------------------------------------------------------------------------


def export(link: str, out: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ui.export", link, "--out", str(out), *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def charts_drawn(path: str, **params: str) -> int:
    """How many charts the page draws for these settings, as the app runs it (the explorer through app.py)."""
    at = run_page(path, **params)
    assert not at.exception
    return len(plot.drawn(at))


def chapter_file(name: str) -> str:
    return "pages/" + next(c.file for c in CHAPTERS if c.file.endswith(f"_{name}.py"))


def svg_texts(path: Path) -> list[str]:
    return [html.unescape(t) for t in re.findall(r"<text[^>]*>(.*?)</text>", path.read_text())]


def png_widths(out: Path) -> list[int]:
    from PIL import Image

    return [Image.open(p).size[0] for p in sorted(out.glob("*.png"))]


def test_an_explorer_link_gives_every_figure_as_a_png_at_least_1600_wide(tmp_path):
    done = export("http://localhost:8501/?" + urlencode(VIEW), tmp_path)
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.iterdir())
    assert len(files) == charts_drawn("app.py", **VIEW) >= 5
    assert all(f.suffix == ".png" for f in files)
    assert min(png_widths(tmp_path)) >= 1600


def test_an_explorer_link_in_svg_names_head_and_sentence_in_text(tmp_path):
    done = export("https://attention.example.org/?" + urlencode(VIEW | {"export": "svg"}), tmp_path)
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.glob("*.svg"))
    assert len(files) == charts_drawn("app.py", **VIEW)
    of_the_head = [f for f in files if "_L2_H3_the-old-lighthouse" in f.name]
    assert of_the_head, [f.name for f in files]
    for f in files:  # text stays text: the subtitle names the sentence, the title the layer and head
        texts = svg_texts(f)
        assert any(LIGHTHOUSE in t for t in texts), (f.name, texts[:3])
        if "_L2_" in f.name:
            assert any("layer 2" in t.lower() for t in texts), (f.name, texts[:3])
        if f in of_the_head:
            assert any("head 3" in t for t in texts), (f.name, texts[:3])


def test_a_chapter_link_gives_its_figures_as_svg(tmp_path):
    done = export("localhost:8501/heads?" + urlencode(VIEW), tmp_path, "--format", "svg")
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.iterdir())
    assert len(files) == charts_drawn(chapter_file("heads"), **VIEW) >= 2
    assert all(f.suffix == ".svg" for f in files)
    assert any(LIGHTHOUSE in t for f in files for t in svg_texts(f))


def test_another_chapter_link_fits_a_16_9_slide(tmp_path):
    from PIL import Image

    done = export("http://localhost:8501/cross_attention?" + urlencode(VIEW), tmp_path, "--size", "16:9")
    assert done.returncode == 0, done.stderr
    files = sorted(tmp_path.glob("*.png"))
    assert len(files) == charts_drawn(chapter_file("cross_attention"), **VIEW) >= 1
    sizes = [Image.open(f).size for f in files]
    assert {w for w, _ in sizes} == {2880} and max(h for _, h in sizes) <= 1620


@pytest.mark.parametrize(
    ("link", "says"),
    [
        ("http://localhost:8501/no_such_page?text=a", "/no_such_page is not a page of this app"),
        ("http://localhost:8501/?layer=two", "layer='two' is not a value"),
        ("http://localhost:8501/?colour=red", "'colour' is not a setting"),
        ("http://localhost:8501/?layer=99", "layer=99 cannot be used on this page"),
        ("http://localhost:8501/?text=", "draws no figure"),
    ],
)
def test_a_link_that_cannot_be_read_stops_with_a_message(tmp_path, link, says):
    done = export(link, tmp_path / "out")
    assert done.returncode == 2
    assert says in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()


# which explorer figures show one head (the others show a whole layer, or the tokens before any layer)
ONE_HEAD = ("queries, keys and values", "from scores to weights", "How the heads move", "The heads added up", "How far")
OF_A_LAYER = (*ONE_HEAD, "All 12 heads", "The step after the heads", "Every token")


def test_every_explorer_figure_names_its_sentence_and_its_layer_and_head_where_they_apply():
    """Read away from the page (on a slide, in a file), a figure says which sentence, layer and head it shows."""
    at = run_page(**VIEW, layernorm="1")
    assert not at.exception
    drawn = {title: spec["layout"]["title"] for title, spec in drawn_figures(at).items()}
    assert len(drawn) == 9
    for title, spec in drawn.items():
        assert LIGHTHOUSE in spec.get("subtitle", {}).get("text", ""), title
        text = title.lower()
        assert ("layer 2" in text) == any(k in title for k in OF_A_LAYER), title
        assert ("head 3" in text) == any(k in title for k in ONE_HEAD), title


# --- a figure as a file shows it ---------------------------------------------------------------------------


def test_a_file_leaves_out_the_words_meant_for_the_page_even_where_wrapping_broke_them():
    import plotly.graph_objects as go

    marked = go.Figure(
        layout=dict(
            title=dict(text="Toutes les 12 têtes de la couche 4 (cliquez-en<br>une pour la choisir) · couche 4"),
            meta={downloads.SCREEN_ONLY: "(cliquez-en une pour la choisir)", "alt": ["kept"]},
        )
    )
    shown = downloads.for_file(marked)["layout"]
    assert shown["title"]["text"] == "Toutes les 12 têtes de la couche 4 · couche 4"
    assert shown["meta"]["alt"] == ["kept"]
    # an English instruction nobody marked is left out too: a slide cannot be clicked
    unmarked = {"layout": {"title": {"text": "All 12 heads of layer 4 (click one to pick it)<br>layer 4 · no mask"}}}
    assert downloads.for_file(unmarked)["layout"]["title"]["text"] == "All 12 heads of layer 4<br>layer 4 · no mask"
    plain_figure = go.Figure(layout=dict(title=dict(text="Cache size (click-free)")))
    assert downloads.for_file(plain_figure) is plain_figure  # nothing to change: the very figure


def test_a_picture_of_vectors_keeps_the_pages_ranges_in_a_file():
    """Drawn at a slide's width, a picture whose axes share one scale would widen its x range to fill it (−6…5
    around arrows within −2…1.5): the file narrows the plot instead."""
    spec = {"data": [], "layout": {"xaxis": {"range": [-2, 1.5]}, "yaxis": {"range": [-1, 1], "scaleanchor": "x"}}}
    shown = downloads.for_file(spec)["layout"]
    assert shown["xaxis"] == {"range": [-2, 1.5], "constrain": "domain"}
    assert shown["yaxis"]["constrain"] == "domain" and shown["yaxis"]["range"] == [-1, 1]


@pytest.mark.parametrize("chapter_", CHAPTERS, ids=lambda c: c.file)
def test_no_figure_of_a_chapter_carries_an_instruction_meant_for_its_page(chapter_):
    """A figure's title says what it shows; what to do with it (click, hover, drag, pick) belongs to the page's
    text, which a slide or a file does not have."""
    at = run_page(f"pages/{chapter_.file}")
    for title in drawn_figures(at):
        flat = title.replace("<br>", " ").lower()
        assert not re.search(r"\b(click|hover|drag|tap)\b|to pick it", flat), title
        assert downloads.for_file({"layout": {"title": {"text": title}}}) == {"layout": {"title": {"text": title}}}


def test_the_zip_and_the_command_draw_each_figure_as_a_file_shows_it(monkeypatch, tmp_path):
    from ui import export

    drawn = []
    monkeypatch.setattr(downloads, "render", lambda figs: drawn.extend(f for f, _ in figs) or [b""] * len(figs))
    title = {"text": "All 12 heads of layer 4 (click one to pick it)"}
    downloads.zip_of([downloads.Export("grid", {"layout": {"title": title}})], "png")
    export.write(export.Drawn([("grid", {"layout": {"title": title}})], []), tmp_path, "png", "auto")
    assert [f["layout"]["title"]["text"] for f in drawn] == ["All 12 heads of layer 4"] * 2


def test_a_chromium_that_never_starts_is_started_again_and_a_second_one_fails_with_an_error(monkeypatch):
    """kaleido bounds each figure's drawing but not its Chromium's start: a start that hangs must neither hold the
    server's downloads (and their lock) forever nor lose the file when a second start works."""
    import kaleido
    import plotly.graph_objects as go

    fig = go.Figure(go.Bar(x=["a", "b"], y=[1, 2]))
    opts = theme.image_options("png", "auto", None)
    opened, real_open = [], kaleido.Kaleido.open

    async def hangs_first(self):
        opened.append(len(opened))
        if len(opened) == 1:
            await asyncio.sleep(3600)
        return await real_open(self)

    # the first Chromium given 15 s to start, which the second, a real one, needs far less than
    monkeypatch.setattr(downloads, "STARTING_SECONDS", 15.0)
    monkeypatch.setattr(downloads, "FIGURE_SECONDS", 20.0)
    monkeypatch.setattr(kaleido.Kaleido, "open", hangs_first)
    (png,) = downloads.render([(fig, opts)])
    assert png.startswith(b"\x89PNG") and opened == [0, 1]

    async def hangs(self):
        await asyncio.sleep(3600)

    monkeypatch.setattr(kaleido.Kaleido, "open", hangs)
    monkeypatch.setattr(downloads, "STARTING_SECONDS", 1.0)
    with pytest.raises(TimeoutError):
        downloads.render([(fig, opts)])
    assert downloads._ONE_AT_A_TIME.acquire(blocking=False)  # the lock is free again for the next download
    downloads._ONE_AT_A_TIME.release()


def test_a_figure_that_hangs_costs_its_own_bound_not_the_whole_calls(monkeypatch):
    """A hang while one figure is drawn is cut after that figure's bound, and the call tried again: not after the
    start's and every figure's bounds added up (five minutes and a half for the explorer's nine figures)."""
    import time

    import kaleido
    import plotly.graph_objects as go

    figs = [(go.Figure(go.Bar(x=["a", "b"], y=[1, k])), theme.image_options("png", "auto", None)) for k in range(3)]
    drawn, real_calc = [], kaleido.Kaleido.calc_fig

    async def second_hangs_once(self, fig, *args, **kwargs):
        drawn.append(len(drawn))
        if len(drawn) == 2:
            await asyncio.sleep(3600)
        return await real_calc(self, fig, *args, **kwargs)

    monkeypatch.setattr(downloads, "STARTING_SECONDS", 60.0)
    monkeypatch.setattr(downloads, "FIGURE_SECONDS", 3.0)
    monkeypatch.setattr(kaleido.Kaleido, "calc_fig", second_hangs_once)
    t0 = time.perf_counter()
    images = downloads.render(figs)
    assert [png[:4] for png in images] == [b"\x89PNG"] * 3 and drawn == [0, 1, 2, 3, 4]
    assert time.perf_counter() - t0 < 60  # the hang cost its 3 s, not the start's 60 s and more
