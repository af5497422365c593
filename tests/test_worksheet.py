"""Worksheets: `python -m ui.worksheet LINK` makes the student's and the teacher's PDF of a chapter, of the explorer
and of the whole lesson, in the link's language; read back with pypdf: the sentence, the link and the questions in
each, the answers only in the teacher's, Korean set in Noto CJK (embedded by name, not drawn as shapes)."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from pypdf import PdfReader

from app_driver.apptest import ROOT, run_page
from ui.kit import downloads
from ui.words import chapters

pytestmark = pytest.mark.skipif(downloads.browser() is None, reason="needs Chromium, which prints the sheets")


def make(tmp_path, link: str, *flags: str) -> tuple[str, set[str], int]:
    """The sheet's text (spaces and line ends as one space), its fonts' names, and its number of pages."""
    out = tmp_path / "sheet.pdf"
    done = subprocess.run(
        [sys.executable, "-m", "ui.worksheet", link, *flags, "--out", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    reader = PdfReader(io.BytesIO(out.read_bytes()))
    text = " ".join(" ".join(page.extract_text().split()) for page in reader.pages)
    fonts = set()
    for page in reader.pages:
        for font in (page.get("/Resources", {}).get("/Font") or {}).values():
            fonts.add(str(font.get_object().get("/BaseFont", "")))
    return text, fonts, len(reader.pages)


def test_a_chapter_sheet_for_the_student_and_for_the_teacher(tmp_path):
    link = "http://localhost:8501/masking?text=the+cat+sat+on+the+mat"
    student, _fonts, _pages = make(tmp_path, link)
    teacher, _fonts, _pages = make(tmp_path, link, "--teacher")
    for text in (student, teacher):
        assert "8 · Masking and softmax" in text and "the cat sat on the mat" in text
        assert "localhost:8501/masking?text=the+cat+sat+on+the+mat" in text.replace(" ", "")
        assert "With the mask on, query q2 sees keys k1 and k2" in text  # the chapter's first question
    # why the right answer is right, with its numbers: the teacher's alone
    assert "Answer." in teacher and "Answer." not in student
    assert "the softmax keeps the order of the scores" in teacher and "keeps the order of the scores" not in student
    assert "Why?" in student and "Why?" not in teacher


def test_a_korean_sheet_is_set_in_noto_cjk(tmp_path):
    text, fonts, _pages = make(tmp_path, "localhost:8501/heads?lang=ko", "--teacher")
    assert "10 · 여러 헤드" in text and "문장" in text
    assert any("NotoSansCJKkr" in f for f in fonts), fonts  # named, so a reader finds and copies its text
    assert not any(f in ("", "None") for f in fonts), fonts  # no glyph drawn as a nameless shape


def test_the_explorer_gives_the_explorers_sheet_and_the_lesson_every_chapter(tmp_path):
    explorer, _fonts, _pages = make(tmp_path, "localhost:8501/?lang=fr&text=le+chat+dort")
    assert "le chat dort" in explorer and "Question" not in explorer
    lesson, _fonts, pages = make(tmp_path, "localhost:8501/similarity?text=a+dog+barks", "--lesson")
    assert all(c.title in lesson for c in chapters.CHAPTERS), [
        c.title for c in chapters.CHAPTERS if c.title not in lesson
    ]
    assert pages >= len(chapters.CHAPTERS)


def test_a_link_the_app_cannot_read_stops_with_a_message(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "ui.worksheet", "localhost:8501/nowhere", "--out", str(tmp_path / "x.pdf")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2 and "is not a page of this app" in done.stderr


def test_each_chapter_offers_its_sheet_and_answer_key_beside_the_figures():
    at = run_page("pages/08_masking.py", lang="fr")
    labels = [b.label for b in at.get("download_button")]
    assert "Feuille d’exercices (PDF)" in labels and "Corrigé (PDF)" in labels, labels
