"""A computed question's options, shared by the chapters' questions (questions_chapters_*.py): the right value
beside the wrong ones, and how many decimals keep them apart when written."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Options:
    """A computed question's options: the right value, then the wrong ones, each from a plausible mistake."""

    right: float
    wrong: tuple[float, ...]

    @property
    def values(self) -> tuple[float, ...]:
        return (self.right, *self.wrong)


def digits_apart(values: tuple[float, ...], least: int, most: int = 6) -> int:
    """The fewest decimals, from `least` on, at which the values all round apart (`most` if none does)."""
    for digits in range(least, most + 1):
        if len({round(v, digits) for v in values}) == len(values):
            return digits
    return most
