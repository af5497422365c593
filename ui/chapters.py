"""The lesson's chapters, in the order they are taught, numbered as the sidebar and each page show them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chapter:
    file: str  # in pages/; its prose is assets/chapters/<file without .py>.md
    name: str
    number: int  # 1-based, its place in the lesson

    @property
    def title(self) -> str:
        """As the sidebar and the page's heading show it: "3 · Similarity"."""
        return f"{self.number} · {self.name}"

    @property
    def prose(self) -> str:
        """Its prose file's name under assets/, without .md."""
        return f"chapters/{self.file.removesuffix('.py')}"


LESSON = (
    ("01_big_picture.py", "The big picture"),
    ("02_why_attention.py", "Why attention"),
    ("03_similarity.py", "Similarity"),
    ("04_context.py", "Context moves meaning"),
    ("05_queries_keys.py", "Queries and keys"),
    ("06_scaling.py", "Scaling by √dₖ"),
    ("07_next_word.py", "Predicting the next word"),
    ("08_masking.py", "Masking and softmax"),
    ("09_values.py", "Values and the displacement"),
    ("10_heads.py", "Many heads"),
    ("11_position.py", "Position"),
    ("12_cross_attention.py", "Self- and cross-attention"),
    ("13_kv_cache.py", "The KV cache"),
    ("14_parameters.py", "The block and its parameters"),
)
CHAPTERS: list[Chapter] = [Chapter(file, name, i + 1) for i, (file, name) in enumerate(LESSON)]


def by_file(file: str) -> Chapter:
    return next(c for c in CHAPTERS if c.file == file)


def neighbours(file: str) -> tuple[Chapter | None, Chapter | None]:
    """The chapters before and after this one (None at either end)."""
    i = CHAPTERS.index(by_file(file))
    return (CHAPTERS[i - 1] if i > 0 else None), (CHAPTERS[i + 1] if i + 1 < len(CHAPTERS) else None)
