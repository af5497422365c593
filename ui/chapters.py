"""The lesson's chapters, in the order they are taught."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chapter:
    file: str  # in pages/; its prose is assets/chapters/<file without .py>.md
    title: str


CHAPTERS: list[Chapter] = [
    Chapter("01_similarity.py", "Similarity"),
    Chapter("02_context.py", "Context moves meaning"),
    Chapter("03_queries_keys.py", "Queries and keys"),
    Chapter("04_scaling.py", "Scaling by √dₖ"),
    Chapter("05_masking.py", "Masking and softmax"),
    Chapter("06_values.py", "Values and the displacement"),
    Chapter("07_heads.py", "Many heads"),
    Chapter("08_position.py", "Position"),
    Chapter("09_cross_attention.py", "Self- and cross-attention"),
    Chapter("10_kv_cache.py", "The KV cache"),
    Chapter("11_parameters.py", "The block and the parameter budget"),
]
