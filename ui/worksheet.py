"""A worksheet to print: `python -m ui.worksheet LINK [--teacher] [--lesson] --out FILE.pdf`.

For the view a link names (as `python -m ui.export` reads it: its path the page, its query the state), in the
link's language: the sheet a chapter's sidebar gives (ui/kit/worksheets.py), made from the page run headless;
`--teacher` adds the answers and the numbers behind them; `--lesson` makes one sheet per chapter, the whole lesson,
from the same state. A link that cannot be read stops with a message and exit status 2; a page that fails, 1.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from urllib.parse import urlencode, urlsplit

import streamlit.logger

from ui import export, internals
from ui.kit import downloads, questions
from ui.kit.worksheets import Sheet, document, pdf
from ui.words import chapters
from ui.words.locales import Words


def sheet_of_link(link: str) -> tuple[Sheet, str]:
    """The sheet of the view a link names, and the link's language: the page run headless (ui.export)."""
    from streamlit.testing.v1 import AppTest

    from ui.components import plot

    view = export.read_link(link)
    at = AppTest.from_file(str(view.script), default_timeout=export.PAGE_TIMEOUT)
    for name, raw in view.params.items():
        at.query_params[name] = raw
    at.run()
    if at.exception:
        raise RuntimeError("the page failed: " + "; ".join(e.message for e in at.exception))
    figures = tuple((c["toImageButtonOptions"]["filename"], downloads.for_file(s)) for s, c in plot.drawn(at))
    asked = questions.asked(at.session_state)
    sheet = Sheet(
        title=at.title[0].value if at.title else "",
        sentence=at.session_state["text"],
        link=absolute(link),
        figures=figures,
        questions=asked,
        notation=questions.notation_of(at.session_state),
    )
    return sheet, at.session_state["lang"]


def absolute(link: str) -> str:
    """The link as a browser opens it (a link pasted without its scheme gets http://)."""
    return link if "://" in link else "http://" + link.lstrip("/")


def lesson_links(link: str) -> list[str]:
    """The same view's state on every chapter of the lesson."""
    parts = urlsplit(absolute(link))
    view = export.read_link(link)
    base = f"{parts.scheme}://{parts.netloc}"
    query = f"?{urlencode(view.params)}" if view.params else ""
    return [f"{base}/{internals.page_name(Path(c.file))}{query}" for c in chapters.CHAPTERS]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ui.worksheet", description=__doc__.split("\n\n")[0])
    parser.add_argument("link", help="a link copied from the app, e.g. 'http://localhost:8501/masking?lang=fr'")
    parser.add_argument("--teacher", action="store_true", help="the teacher's sheet: the answers and why")
    parser.add_argument("--lesson", action="store_true", help="one sheet per chapter, the whole lesson")
    parser.add_argument("--out", required=True, type=Path, help="the PDF file to write")
    args = parser.parse_args(argv)
    streamlit.logger.set_log_level("error")  # a headless run warns that no browser session is attached
    internals.components_scanned_once()  # the lesson runs fourteen pages
    try:
        links = lesson_links(args.link) if args.lesson else [args.link]
        made = [sheet_of_link(link) for link in links]
    except export.LinkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RuntimeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    words = Words(made[0][1])
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(pdf(document([s for s, _ in made], args.teacher, words)))
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
