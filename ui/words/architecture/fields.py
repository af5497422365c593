"""The words every other part of ui/words/architecture/ builds on: a field's value looked up (`pick`, which
raises on a value it has no words for) and the model's norm named."""

from __future__ import annotations

from typing import Any

from attention import ModelConfig
from ui.words.i18n import _


def _num(value: float, digits: int) -> str:
    from ui.words.i18n import num

    return num(value, digits)


def pick(cfg: ModelConfig, field: str, table: dict[Any, Any]) -> Any:
    """table[the field's value], or a ValueError naming the field and the value no words exist for."""
    value = getattr(cfg, field)
    if value not in table:
        raise ValueError(f"No words for {field}={value!r} ({cfg.name}): add them to ui/words/architecture.py.")
    return table[value]


def norm_name(cfg: ModelConfig) -> str:
    return pick(cfg, "norm", {"layer": "LayerNorm", "rms": "RMSNorm"})


def a_norm(cfg: ModelConfig) -> str:
    """The norm's name with its article, as a sentence says it ("an RMSNorm")."""
    return pick(cfg, "norm", {"layer": _("a LayerNorm"), "rms": _("an RMSNorm")})


def norm_latex(cfg: ModelConfig) -> str:
    return rf"\operatorname{{{norm_name(cfg)}}}"
