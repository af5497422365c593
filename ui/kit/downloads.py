"""Every figure of a page as files: their names, the page's list of them, and the images kaleido draws.

chart() names each figure after what it shows and lists it for the page's run; download_all() offers that
list as one zip, drawn only when asked for; `python -m ui.export LINK` writes the same files from a link.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import hashlib
import io
import json
import re
import threading
import unicodedata
import zipfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import streamlit as st

import attention
import attention.sources
from ui import internals, served
from ui.components import plot
from ui.figures import labels, theme
from ui.words.i18n import N_, _

SLUG_CHARS = 40
REGISTRY = "_page_figures"
# Each export starts a Chromium of its own (a few seconds, a browser's memory): one at a time, on a small server.
_ONE_AT_A_TIME = threading.Lock()
# A Chromium that has not drawn within these is stuck, not slow (render): a page's zip takes seconds
STARTING_SECONDS = 60.0
FIGURE_SECONDS = 30.0


def slug(text: str, limit: int = SLUG_CHARS) -> str:
    """User text as part of a file name: its words, lowercase, joined by "-", cut after a word.

    The words keep their own script ("le-café-est-chaud", "고양이가-앉았다"): a French or Korean sentence is not
    spelled in ASCII. Text with no letters or digits at all gets a short hash instead, so two still differ."""
    out = ""
    for word in re.findall(r"[^\W_]+", unicodedata.normalize("NFC", text).lower()):
        longer = f"{out}-{word}" if out else word[:limit]
        if len(longer) > limit:
            break
        out = longer
    return out or "text-" + hashlib.sha1(text.encode()).hexdigest()[:8]


def file_name(
    name: str, layer: int | None = None, head: int | None = None, *extra: str, text: str | None = None
) -> str:
    """`{name}_L{layer}_H{head}_{extra…}_{slug of the text}` (1-based, each part only where it applies), for
    example softmax_L2_H3_the-old-lighthouse: exports of different views do not overwrite each other."""
    parts = [name]
    if layer is not None:
        parts.append(f"L{layer + 1}")
    if head is not None:
        parts.append(f"H{head + 1}")
    parts += [p for p in extra if p]
    if text:
        parts.append(slug(text))
    return "_".join(parts)


MASK_NAMES = {"none": N_("no mask"), "causal": N_("causal mask")}  # by attention.MASKS, translated where shown


def what_it_shows(layer: int | None, head: int | None, mask: str | None) -> list[str]:
    """How a title names the figure's layer, head and mask (1-based), where they apply, in the page's language."""
    names = []
    if layer is not None:
        names.append(_("layer {n}").format(n=layer + 1))
    if head is not None:
        names.append(_("head {n}").format(n=head + 1))
    if mask is not None:
        names.append(_(MASK_NAMES[mask]))
    return names


def unusual(mask: str | None, model: str | None, own: str = "none") -> list[str]:
    """What a file name adds when it is not the usual: a mask other than the model's own (`own`), a model other
    than the bundled one, by the name the menu shows ("gemma-3-270m"): the same view under SmolLM2, or masked, is
    another file."""
    return [
        f"{mask}-mask" if mask is not None and mask != own else "",
        "" if model in (None, attention.DEFAULT_MODEL) else slug(attention.sources.SHOWN.get(model, model)),
    ]


def unique(names: Sequence[str], extension: str) -> list[str]:
    """The file names with their extension, a repeated one numbered (-2, -3…) so a zip or folder keeps each."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(f"{n}{'' if seen[n] == 1 else f'-{seen[n]}'}.{extension}")
    return out


# --- the page's figures ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Export:
    """One figure of the page, as chart() drew it, and the file name it is saved under (no extension)."""

    file_name: str
    fig: Any  # a plotly Figure, or its dict, or a function that makes it when the files are drawn


@dataclass
class _Registry:
    run: object  # what tells this run of the page from the next (see _this_run)
    figures: dict[str, Export] = field(default_factory=dict)  # by chart, in the order drawn


def _this_run() -> dict[str, Export] | None:
    """The figures drawn by this run of the page, in the session; None outside a Streamlit run.

    Streamlit gives every run of a page a fresh table of cursors, also when only a fragment reruns (the
    explorer's token picker): such a rerun adds to the list of the run that drew its page, whose button is
    still on screen, and a redrawn figure replaces its older self."""
    this_run = internals.run_of_this_page()
    if this_run is None:
        return None
    run, fragment = this_run
    registry = st.session_state.get(REGISTRY)
    if registry is None or (registry.run is not run and not fragment):
        registry = _Registry(run=run)
        st.session_state[REGISTRY] = registry
    return registry.figures


def register(chart: str, name: str, fig: Any) -> None:
    """List a figure for this run's "Download all figures". chart: which chart it is on the page; fig: the
    figure, or a function that makes it when the files are drawn."""
    figures = _this_run()
    if figures is not None:
        figures[chart] = Export(name, fig)


def page_name() -> str:
    """The page's name in its address ("scaling"), "explorer" for the home page."""
    return urlsplit(st.context.url or "").path.strip("/").rsplit("/", 1)[-1] or "explorer"


def page_figures() -> dict[str, Export]:
    """This run's figures, by chart: the dict itself, so a fragment's rerun updates what a click downloads."""
    figures = _this_run()
    return {} if figures is None else figures


# --- drawing them -----------------------------------------------------------------------------------------

SCREEN_ONLY = "screen_only"  # layout.meta's words of a title meant for the page alone ("click one to pick it")
INSTRUCTION = re.compile(r"\((?:click|tap|hover|drag)\s[^)]*\)", flags=re.IGNORECASE)  # one left unmarked


def for_file(fig: Any) -> Any:
    """The figure as a file shows it, away from its page: the same figure, but

    - its title without the words its builder marked as meant for the page (layout.meta["screen_only"]: an
      instruction such as "click one to pick it", found again where wrapping broke it over lines), and without an
      English "(click …)" left unmarked: a slide cannot be clicked;
    - axes that keep one scale (a 2D picture of vectors) keep the page's ranges: the file is drawn at the slide's
      width, and plotly would otherwise widen the x range to fill it (−6…5 around arrows within −2…1.5); here
      the plot narrows instead, and the arrows keep the size and the names the page placed for them.

    fig: a plotly Figure or its dict; returned as it is where nothing changes, else as a changed copy (a dict)."""
    spec = fig if isinstance(fig, dict) else fig.to_dict()
    layout = spec.get("layout", {})
    title = layout.get("title")
    text = (title.get("text") if isinstance(title, dict) else title) or ""
    meta = layout.get("meta") if isinstance(layout.get("meta"), dict) else {}
    shown = _without_screen_only(text, meta.get(SCREEN_ONLY, ()))
    tied = any(isinstance(layout.get(a), dict) and layout[a].get("scaleanchor") for a in ("xaxis", "yaxis"))
    if shown == text and not tied:
        return fig
    layout = dict(layout)
    if shown != text:
        layout["title"] = dict(title, text=shown) if isinstance(title, dict) else shown
    if tied:
        for a in ("xaxis", "yaxis"):
            layout[a] = dict(layout.get(a) or {}, constrain="domain")
    return dict(spec, layout=layout)


def _without_screen_only(text: str, marked: str | Sequence[str]) -> str:
    """The title without each marked phrase, matched across the spaces and line breaks wrapping put between its
    words, and without any "(click …)", "(hover …)" left unmarked; no empty line or dangling separator is left."""
    kept = text
    for phrase in [marked] if isinstance(marked, str) else list(marked):
        words = [re.escape(w) for w in phrase.split()]
        if words:
            kept = re.sub(r"(?:\s|<br>)*\(?" + r"(?:\s|<br>)+".join(words) + r"\)?", "", kept)
    kept = INSTRUCTION.sub("", kept)
    if kept == text:
        return text
    lines = [re.sub(r"\s+", " ", line).strip(" ·,") for line in kept.split("<br>")]
    return "<br>".join(line for line in lines if line)


@functools.cache
def browser() -> str | None:
    """The Chromium that kaleido would start (on PATH, or BROWSER_PATH), None if this machine has none."""
    from choreographer.browsers.chromium import Chromium

    return Chromium.find_browser(skip_local=False)


def render(figures: Sequence[tuple[Any, dict]]) -> list[bytes]:
    """Each figure drawn with its options (theme.image_options) by one Chromium, started for the call.

    kaleido bounds each figure's drawing, not the start of its Chromium: a start that hangs would hold this server's
    downloads forever, the lock below with them (a zip once never came, on a machine running the tests on three
    workers). So each step is bounded, the start and the end (STARTING_SECONDS) and each figure (FIGURE_SECONDS), and
    the call tried once more with a new Chromium before it fails. (One bound for the whole call, the start's and
    every figure's added up, let a hang at any step hold a zip of nine figures for five and a half minutes.)

    Runs its own event loop, in the calling thread (Streamlit calls a download's callable in a worker thread, where
    none runs), or in a thread of its own where one already runs (a notebook's, a browser driver's)."""
    import kaleido  # a second to import: only when a file is asked for

    async def draw() -> list[bytes]:
        loop = asyncio.get_running_loop()
        async with asyncio.timeout(STARTING_SECONDS) as step:
            async with kaleido.Kaleido(n=1, mathjax=False) as k:  # no MathJax: our figures write no TeX
                images = []
                for fig, opts in figures:
                    step.reschedule(loop.time() + FIGURE_SECONDS)
                    images.append(await k.calc_fig(with_labels(fig), opts=opts))
                step.reschedule(loop.time() + STARTING_SECONDS)  # its Chromium closed
                return images

    async def bounded() -> list[bytes]:
        try:
            return await draw()
        except TimeoutError:
            return await draw()

    with _ONE_AT_A_TIME:
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(bounded())
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            return pool.submit(lambda: asyncio.run(bounded())).result()


def with_labels(fig: Any) -> Any:
    """The figure (a plotly Figure or its JSON) with the labels it leaves to the browser placed here
    (ui/figures/labels.py), as JSON; the figure as it is where it has none: a file is drawn by no page's browser."""
    layout = fig.get("layout", {}) if isinstance(fig, dict) else internals.figure_dicts(fig)[1]
    meta = layout.get("meta")
    if not (isinstance(meta, dict) and "labels" in meta):
        return fig
    return labels.placed(fig if isinstance(fig, dict) else json.loads(plot.spec(fig)))


def height_of(fig: Any) -> int | None:
    layout = fig.get("layout", {}) if isinstance(fig, dict) else fig.layout.to_plotly_json()
    return layout.get("height")


def zip_of(exports: Sequence[Export], export: str, size: str = "auto") -> bytes:
    """Every figure drawn as `export` ("png" or "svg") at `size` (theme.EXPORT_SIZES), in one zip. Made in a worker
    thread of the server (not a run): after its first quiet moment, when no module is half imported (ui/served.py)."""
    served.started()
    figs = [for_file(e.fig() if callable(e.fig) else e.fig) for e in exports]
    images = render([(fig, theme.image_options(export, size, height_of(fig))) for fig in figs])
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, image in zip(unique([e.file_name for e in exports], export), images, strict=True):
            z.writestr(name, image)
    return buffer.getvalue()
