"""Every figure of a view, as files: `python -m ui.export LINK --out DIR [--format png|svg] [--size auto|16:9|…]`.

LINK is a link copied from the app. Its host is ignored, its path picks the page ("/" the explorer, "/scaling"
pages/06_scaling.py: the names Streamlit gives the pages of app.py), its query is the state. The page runs headless
(Streamlit's AppTest), so the files hold the very figures it draws, from the same builders, under the names
its camera buttons give them; one Chromium draws them all. A link that cannot be read stops with a message
and exit status 2; a page that fails, with status 1.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import streamlit.logger
from streamlit.testing.v1 import AppTest

import attention
from ui import internals
from ui.components import plot
from ui.figures import theme
from ui.kit import downloads
from ui.session import state
from ui.words import chapters

ROOT = Path(__file__).resolve().parents[1]
PAGE_TIMEOUT = 300  # seconds: the first run of a page loads the model


class LinkError(ValueError):
    """A link this command cannot read: the message says why and what would work."""


@dataclass(frozen=True)
class View:
    page: str  # as in the link's path ("" for the explorer)
    script: Path  # the page's file, which AppTest runs
    params: dict[str, str]  # the query, checked against ui.session.state


def page_scripts() -> dict[str, Path]:
    """Each page's path in a link, with the script that draws it. Streamlit names a page from its file
    (pages/06_scaling.py is /scaling); the explorer is the default page, at /."""
    explorer = ROOT / "pages" / "00_explorer.py"
    scripts = {"": explorer, internals.page_name(explorer): explorer}
    for c in chapters.CHAPTERS:
        scripts[internals.page_name(Path(c.file))] = ROOT / "pages" / c.file
    return scripts


def read_link(link: str) -> View:
    """The page and the state a link names, each value checked as the app checks it (ui.session.state.PARAMS)."""
    if "://" not in link and not link.startswith(("/", "?")):
        link = "http://" + link  # "localhost:8501/scaling?…": a link pasted without its scheme
    parts = urlsplit(link)
    page = parts.path.strip("/")
    scripts = page_scripts()
    if page not in scripts:
        known = ", ".join("/" + p for p in scripts if p != "explorer")
        raise LinkError(f"the link's page /{page} is not a page of this app; its pages are {known}")
    params = dict(parse_qsl(parts.query, keep_blank_values=True))  # a repeated name: the last wins, as in the app
    for name, raw in params.items():
        if name not in state.PARAMS:
            raise LinkError(f"the link's {name!r} is not a setting of this app; it has {', '.join(state.PARAMS)}")
        try:
            state.PARAMS[name].parse(raw)
        except ValueError:
            raise LinkError(f"the link's {name}={raw!r} is not a value the app can show") from None
    model = params.get("model")
    if model is not None:
        choice = next(c for c in attention.available_models() if c.name == model)
        if not choice.available:
            raise LinkError(f"the link's model {model} cannot be used on this machine: {choice.reason}")
    return View(page, scripts[page], params)


@dataclass(frozen=True)
class Drawn:
    """What the page drew: each chart's plotly spec and file name, and what it said besides."""

    figures: list[tuple[str, dict]]
    notes: list[str]


def run_page(view: View) -> Drawn:
    """The page run headless with the link's state; a LinkError if it refused a value of the link."""
    at = AppTest.from_file(str(view.script), default_timeout=PAGE_TIMEOUT)
    for name, raw in view.params.items():
        at.query_params[name] = raw
    at.run()
    if at.exception:
        raise RuntimeError("the page failed: " + "; ".join(f"{e.proto.type}: {e.message}" for e in at.exception))
    for name, raw in view.params.items():  # the page falls back to a default for a value it cannot use here
        if name != "text" and name in at.session_state and at.session_state[name] != state.PARAMS[name].parse(raw):
            raise LinkError(f"the link's {name}={raw} cannot be used on this page (it shows {at.session_state[name]})")
    notes = [e.value for kind in ("error", "warning", "info") for e in at.get(kind)]
    figures = [(config["toImageButtonOptions"]["filename"], spec) for spec, config in plot.drawn(at)]
    if not figures:
        raise LinkError("the page draws no figure for this link" + "".join(f"\n  the page says: {n}" for n in notes))
    return Drawn(figures, notes)


def write(drawn: Drawn, out: Path, export: str, size: str) -> list[Path]:
    """Every figure drawn by one Chromium, written to `out` (created if need be)."""
    out.mkdir(parents=True, exist_ok=True)
    names = downloads.unique([name for name, _ in drawn.figures], export)
    specs = [downloads.for_file(spec) for _, spec in drawn.figures]  # as a file shows them: no page instruction
    images = downloads.render([(spec, theme.image_options(export, size, downloads.height_of(spec))) for spec in specs])
    paths = []
    for name, image in zip(names, images, strict=True):
        path = out / name
        path.write_bytes(image)
        paths.append(path)
    return paths


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.export", description=__doc__.split("\n\n")[0])
    parser.add_argument("link", help="a link copied from the app, e.g. 'http://localhost:8501/scaling?text=…'")
    parser.add_argument("--out", required=True, type=Path, help="the folder the files go to (created if need be)")
    parser.add_argument(
        "--format", choices=list(theme.EXPORT_FORMATS), help="png (3×) or svg; by default the link's, else png"
    )
    parser.add_argument(
        "--size",
        choices=list(theme.EXPORT_SIZES),
        default="auto",
        help="auto: each figure's own height at a 16:9 slide's width (960 px); 16:9, 4:3: fitted into a whole "
        "slide; 8:9: into half a 16:9 slide. PNGs are drawn at 3× (at least 1600 px wide).",
    )
    args = parser.parse_args(argv)
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"--out {args.out} is a file, not a folder")
    streamlit.logger.set_log_level("error")  # a headless run warns that no browser session is attached
    t0 = time.perf_counter()
    try:
        view = read_link(args.link)
        export = args.format or view.params.get("export", theme.DEFAULT_EXPORT)
        drawn = run_page(view)
    except LinkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    t1 = time.perf_counter()
    for note in drawn.notes:
        print(f"the page says: {note}", file=sys.stderr)
    paths = write(drawn, args.out, export, args.size)
    t2 = time.perf_counter()
    for p in paths:
        print(p)
    print(
        f"{len(paths)} figures ({export}, size {args.size}) from /{view.page}: "
        f"page {t1 - t0:.1f} s, drawing {t2 - t1:.1f} s",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
