"""Worksheets to print: a page's sentence, its figures as exported for slides, its questions with room to answer,
and the link to the same view with its QR code; the teacher's sheet adds the answers and the numbers behind them.
A chapter's sidebar offers both; `python -m ui.worksheet LINK` makes them from a link (one chapter or the whole
lesson). The PDF is printed by the Chromium that draws the figures, with the fonts the machine has (Noto CJK for
Korean).
"""

from __future__ import annotations

import dataclasses
import html
import re
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import streamlit as st

from ui import served
from ui.kit import downloads
from ui.kit.questions import Asked
from ui.words.locales import Words

PRINT_SECONDS = 120  # Chromium printing a sheet: a few seconds, even for the whole lesson


@dataclass(frozen=True)
class Sheet:
    """One page's worksheet: what it shows and asks, as the page computed it."""

    title: str
    sentence: str
    link: str
    figures: tuple[tuple[str, dict], ...]  # (file name, plotly spec as a file shows it)
    questions: tuple[Asked, ...]
    notation: str  # the notes' notation, said once before a shapes question ("" if none)


TEX = (
    (r"\\sqrt\{([^{}]*)\}", r"√\1"),
    (r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"\1 / \2"),
    (r"\\(?:operatorname|mathrm|text)\{([^{}]*)\}", r"\1"),
    (r"\^\{?\\top\}?", "ᵀ"),
    (r"\\cdot", "·"),
    (r"\\times", "×"),
    (r"\\infty", "∞"),
    (r"\\lambda", "λ"),
    (r"\\(?:left|right|Big|big)", ""),
    (r"_\{([^{}]*)\}", r"<sub>\1</sub>"),
    (r"_(\w)", r"<sub>\1</sub>"),
    (r"\^\{([^{}]*)\}", r"<sup>\1</sup>"),
    (r"\^(\w|−|-)", r"<sup>\1</sup>"),
    (r"\\,|\\!|\\;", " "),
)


def inline(text: str) -> str:
    """A line of the app's markdown as HTML for print: its text escaped, **bold** and `code` kept, each $equation$ in
    plain letters with sub- and superscripts (print has no KaTeX)."""
    out = []
    for i, part in enumerate(re.split(r"\$([^$]+)\$", text)):
        part = html.escape(part, quote=False)
        if i % 2:
            for pattern, repl in TEX:
                part = re.sub(pattern, repl, part)
            part = f"<i>{part.replace(chr(92), '')}</i>"
        out.append(part)
    text = re.sub(r"`([^`]+)`", r"<code>\1</code>", "".join(out))  # a token, as the page sets it
    return re.sub(r"\*\*([^*]+)\*\*", r"<b>\1</b>", text)


def qr_svg(link: str) -> str:
    """The link as a QR code, inline SVG (segno: pure Python, no image library)."""
    import segno

    return segno.make(link, error="m").svg_inline(scale=3, border=2, dark="#000")


def _figures(sheets: Sequence[Sheet]) -> list[list[str]]:
    """Each sheet's figures drawn as SVG, inline, so that their words take the sheet's fonts: all the sheets' by one
    Chromium (the whole lesson's fourteen sheets started one each, three seconds apiece)."""
    from ui.figures import theme

    specs = [spec for sheet in sheets for _name, spec in sheet.figures]
    images = iter(downloads.render([(s, theme.image_options("svg", "auto", downloads.height_of(s))) for s in specs]))
    return [
        [
            f'<figure aria-label="{html.escape(name)}">{_scalable(next(images).decode("utf-8"))}</figure>'
            for name, _spec in sheet.figures
        ]
        for sheet in sheets
    ]


def _scalable(svg: str) -> str:
    """The SVG without its XML prolog, given a viewBox so that it scales to the page's width."""
    svg = svg[svg.index("<svg") :]
    size = re.search(r'<svg[^>]*?\bwidth="([\d.]+)"[^>]*?\bheight="([\d.]+)"', svg)
    if size and "viewBox" not in svg[: svg.index(">")]:
        svg = svg.replace("<svg", f'<svg viewBox="0 0 {size.group(1)} {size.group(2)}"', 1)
    return svg


def _question(q: Asked, teacher: bool, words: Words) -> str:
    options = "".join(
        f'<li class="{"right" if teacher and o == q.answer else ""}">'
        f"{'☑' if teacher and o == q.answer else '☐'} {inline(q.options[o])}</li>"
        for o in q.order
    )
    body = f"<p class=q><b>{q.number}.</b> {inline(q.question)}</p><ul>{options}</ul>"
    if teacher:
        answer = html.escape(words._("Answer"))
        return body + f'<p class="why"><b>{answer}.</b> {inline(q.why)}</p>'
    why = html.escape(words._("Why?"))
    return body + f'<p class="room">{why}</p><div class="lines"></div>'


def sheet_html(sheet: Sheet, teacher: bool, words: Words, figures: Sequence[str] = ()) -> str:
    """One sheet as HTML; `figures` are its figures already drawn (_figures)."""
    kind = words._("Answers") if teacher else words._("Worksheet")
    sentence = html.escape(words._("Sentence: {sentence}")).format(
        sentence=f'<span class="sentence">{html.escape(sheet.sentence)}</span>'
    )
    name = html.escape(words._("Name: {blank}")).format(blank="_" * 24)
    head = (
        f'<header><div><p class="kind">{html.escape(kind)}</p><h1>{inline(sheet.title)}</h1>'
        f"<p>{sentence}</p><p>{name}</p></div>"
        f'<div class="qr">{qr_svg(sheet.link)}<p class="link">{html.escape(sheet.link)}</p></div></header>'
    )
    notation = f'<p class="notation">{inline(sheet.notation)}</p>' if sheet.notation else ""
    asked = "".join(
        (notation if q.shapes else "") + f'<section class="question">{_question(q, teacher, words)}</section>'
        for q in sheet.questions
    )
    questions = html.escape(words._("Questions"))
    titled = f"<h2>{questions}</h2>{asked}" if asked else ""
    return f'<article lang="{words.code}">{head}{"".join(figures)}{titled}</article>'


STYLE = """
@page { size: A4; margin: 14mm 14mm 16mm; }
body { font-family: "DejaVu Sans", "Sheet CJK", sans-serif; font-size: 10.5pt; color: #111; }
article { break-after: page; }
article:last-child { break-after: auto; }
header { display: flex; justify-content: space-between; gap: 8mm; border-bottom: 1px solid #888; margin-bottom: 4mm; }
h1 { font-size: 17pt; margin: 1mm 0 2mm; } h2 { font-size: 13pt; margin: 5mm 0 2mm; }
.kind { text-transform: uppercase; letter-spacing: .08em; color: #555; margin: 0; font-size: 9pt; }
.sentence { font-weight: 600; }
.qr { text-align: center; width: 48mm; flex: none; } .qr svg { width: 30mm; height: 30mm; }
.link { font-size: 6.5pt; word-break: break-all; color: #333; margin: 1mm 0 0; }
figure { margin: 0 0 4mm; break-inside: avoid; } figure svg { width: 100%; height: auto; max-height: 120mm; }
figure svg text { font-family: "DejaVu Sans", "Sheet CJK", sans-serif !important; }
.question { break-inside: avoid; margin-bottom: 4mm; }
.q { margin: 0 0 1mm; } ul { list-style: none; padding-left: 6mm; margin: 0; } li { margin: 1mm 0; }
li.right { font-weight: 700; }
.why { margin: 2mm 0 0 6mm; padding: 2mm 3mm; background: #eef3f8; border-left: 3px solid #1f77b4; }
.room { margin: 2mm 0 0 6mm; color: #555; }
.lines { margin-left: 6mm; height: 16mm;
  background: repeating-linear-gradient(transparent 0 7mm, #bbb 7mm 7.3mm); }
.notation { color: #333; font-style: italic; margin: 2mm 0; }
code { font-family: "DejaVu Sans Mono", "Sheet CJK", monospace; background: #f2f2f2; padding: 0 1mm; }
"""


def document(sheets: Sequence[Sheet], teacher: bool, words: Words) -> str:
    """The sheets as one HTML document, their figures drawn (by one Chromium, for all of them)."""
    body = "".join(sheet_html(s, teacher, words, figures) for s, figures in zip(sheets, _figures(sheets), strict=True))
    return f'<!doctype html><html lang="{words.code}"><meta charset="utf-8"><style>{STYLE}</style><body>{body}</html>'


CJK = re.compile(r"[\u1100-\u11ff\u3000-\u9fff\uac00-\ud7af]")  # Hangul, kana, CJK ideographs and their punctuation


def cjk_font(text: str, out: Path, style: str = "Regular") -> None:
    """Noto Sans CJK KR, as the machine has it, cut to the characters of `text` and its outlines made TrueType:
    Chromium's PDF embeds a TrueType font by name, while it draws a CFF one (Noto CJK's) as nameless Type 3 shapes."""
    from fontTools import subset
    from fontTools.pens.cu2quPen import Cu2QuPen
    from fontTools.pens.ttGlyphPen import TTGlyphPen
    from fontTools.ttLib import TTFont, newTable

    path, index = noto_cjk(style)
    font = TTFont(path, fontNumber=index)
    options = subset.Options()
    options.name_IDs, options.layout_features, options.notdef_outline = ["*"], [], True
    cut = subset.Subsetter(options)
    cut.populate(text="".join(sorted(set(text))))
    cut.subset(font)
    glyphs, order = font.getGlyphSet(), font.getGlyphOrder()
    glyf = newTable("glyf")
    glyf.glyphs, glyf.glyphOrder = {}, order
    for name in order:
        pen = TTGlyphPen(glyphs)
        glyphs[name].draw(Cu2QuPen(pen, 1.0, reverse_direction=True))  # cubic curves to quadratic, within a unit
        glyf[name] = pen.glyph()
    for table in ("CFF ", "VORG"):
        if table in font:
            del font[table]
    font["glyf"], font["loca"] = glyf, newTable("loca")
    maxp = font["maxp"]
    maxp.tableVersion = 0x00010000
    for field in ("maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs", "maxStackElements"):
        setattr(maxp, field, 0)
    maxp.maxZones, maxp.maxSizeOfInstructions, maxp.maxComponentElements = 1, 0, 0
    font["head"].glyphDataFormat = 0
    font["post"].formatType = 3.0
    font.sfntVersion = "\x00\x01\x00\x00"
    font.save(out)


def noto_cjk(style: str) -> tuple[str, int]:
    """The file and face of Noto Sans CJK KR in `style` on this machine (fontconfig), or a clear error."""
    found = subprocess.run(
        ["fc-match", f"Noto Sans CJK KR:style={style}", "--format=%{file}:%{index}:%{family}"],
        capture_output=True,
        text=True,
    ).stdout
    path, index, family = ([*found.split(":", 2), "", "", ""])[:3]
    if "CJK" not in family:
        raise RuntimeError("a Korean worksheet needs the Noto CJK fonts (Debian: apt install fonts-noto-cjk)")
    return path, int(index or 0)


def pdf(document_html: str) -> bytes:
    """The document printed to PDF by the machine's Chromium (the one that draws the figures)."""
    chromium = downloads.browser()
    if chromium is None:
        raise RuntimeError("printing a worksheet needs Chromium on the server (Debian: apt install chromium)")
    with tempfile.TemporaryDirectory() as tmp:
        page, out = Path(tmp) / "sheet.html", Path(tmp) / "sheet.pdf"
        if CJK.search(document_html):  # its regular and bold faces (a bold made up by Chromium is drawn as shapes)
            faces = ""
            for weight, style in ((400, "Regular"), (700, "Bold")):
                cjk_font(document_html, Path(tmp) / f"cjk-{weight}.ttf", style)
                faces += (
                    f'@font-face {{ font-family: "Sheet CJK"; src: url("cjk-{weight}.ttf"); font-weight: {weight}; }}'
                )
            document_html = document_html.replace("<style>", f"<style>{faces}", 1)
        page.write_text(document_html, encoding="utf-8")
        flags = ["--headless", "--no-sandbox", "--disable-gpu", "--no-pdf-header-footer", f"--user-data-dir={tmp}"]
        subprocess.run(
            [chromium, *flags, f"--print-to-pdf={out}", page.as_uri()],
            check=True,
            capture_output=True,
            timeout=PRINT_SECONDS,
        )
        return out.read_bytes()


# --- from the page --------------------------------------------------------------------------------------------


def sheet_here(title: str, file: str | None, address: str) -> Sheet:
    """This run's sheet, its figures not drawn yet: the sentence, the questions it asked, the link to this very view
    (`address`, relative to the app's root, as chapter.address gives it). Read while the run is on: a download's
    callable runs later, in a thread that has no session."""
    from ui.kit import questions
    from ui.session import state

    parts = urlsplit(st.context.url or "http://localhost:8501/")
    root = f"{parts.scheme}://{parts.netloc}" + parts.path.rsplit("/", 1)[0] + "/"
    return Sheet(
        title=title,
        sentence=state.get("text"),
        link=root + address.removeprefix("./"),
        figures=(),
        questions=questions.asked(st.session_state, file) if file else (),
        notation=questions.notation_of(st.session_state) if file else "",
    )


def with_figures(sheet: Sheet, exports: Sequence[downloads.Export]) -> Sheet:
    """The sheet with the page's figures, as files show them (made now where chart() kept only how to make them):
    in a worker thread of the server, after its first quiet moment (see downloads.zip_of)."""
    served.started()
    figures = tuple((e.file_name, downloads.for_file(e.fig() if callable(e.fig) else e.fig)) for e in exports)
    return dataclasses.replace(sheet, figures=figures)


def buttons(title: str, file: str | None, address: str, page: str) -> None:
    """In the sidebar, under the figures' download: the worksheet and its answer key, drawn only when asked for."""
    from ui.words import i18n
    from ui.words.i18n import _

    words = i18n.words()
    ready = downloads.browser() is not None
    sheet = sheet_here(title, file, address)
    exports = downloads.page_figures()  # live: the explorer's token picker redraws two of them on its own
    with st.sidebar:
        for teacher, label, name in (
            (False, _("Worksheet (PDF)"), "worksheet"),
            (True, _("Answers (PDF)"), "answers"),
        ):
            st.download_button(
                label,
                data=lambda teacher=teacher: pdf(
                    document([with_figures(sheet, list(exports.values()))], teacher, words)
                ),
                file_name=f"{page}-{name}-{words.code}.pdf",
                mime="application/pdf",
                on_click="ignore",
                disabled=not ready,
                help=_("To print: the sentence, this page's figures, its questions and the link to this view.")
                if not teacher
                else _("The same sheet with the answers, and why, for the teacher."),
            )
