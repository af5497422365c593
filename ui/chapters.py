"""The lesson's chapters, in the order they are taught."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Chapter:
    file: str  # in pages/
    title: str


CHAPTERS: list[Chapter] = []
