"""The lesson's chapters, in the order they are taught, numbered as the sidebar and each page show them."""

from __future__ import annotations

from dataclasses import dataclass

from ui.words.i18n import N_, _


@dataclass(frozen=True)
class Chapter:
    file: str  # in pages/; its prose is assets/chapters/<file without .py>.md
    name: str
    number: int  # 1-based, its place in the lesson

    @property
    def title(self) -> str:
        """As the menu and the page's heading show it, in the page's language: "3 · Similarity"."""
        return f"{self.number} · {_(self.name)}"

    @property
    def prose(self) -> str:
        """Its prose file's name under assets/, without .md."""
        return f"chapters/{self.file.removesuffix('.py')}"


LESSON = (
    ("01_big_picture.py", N_("The big picture")),
    ("02_why_attention.py", N_("Why attention")),
    ("03_similarity.py", N_("Similarity")),
    ("04_context.py", N_("Context moves meaning")),
    ("05_queries_keys.py", N_("Queries and keys")),
    ("06_scaling.py", N_("Scaling by √dₖ")),
    ("07_next_word.py", N_("Predicting the next word")),
    ("08_masking.py", N_("Masking and softmax")),
    ("09_values.py", N_("Values and the displacement")),
    ("10_heads.py", N_("Many heads")),
    ("11_position.py", N_("Position")),
    ("12_cross_attention.py", N_("Self- and cross-attention")),
    ("13_kv_cache.py", N_("The KV cache")),
    ("14_parameters.py", N_("The block and its parameters")),
)
CHAPTERS: list[Chapter] = [Chapter(file, name, i + 1) for i, (file, name) in enumerate(LESSON)]


def by_file(file: str) -> Chapter:
    return next(c for c in CHAPTERS if c.file == file)


def neighbours(file: str) -> tuple[Chapter | None, Chapter | None]:
    """The chapters before and after this one (None at either end)."""
    i = CHAPTERS.index(by_file(file))
    return (CHAPTERS[i - 1] if i > 0 else None), (CHAPTERS[i + 1] if i + 1 < len(CHAPTERS) else None)
