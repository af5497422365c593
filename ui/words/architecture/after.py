"""Words about what comes after the heads: the step after them (a bias, a norm), the residual stream, the whole
block and the output."""

from __future__ import annotations

from typing import NamedTuple

from attention import ModelConfig
from ui.words.architecture.fields import a_norm, norm_latex, norm_name, pick
from ui.words.i18n import _

BIAS_STEP = "+ b<sub>O</sub>"  # in a figure, which plotly draws with its subscript


class Step(NamedTuple):
    """A point of the step after the heads, as drawn: its name (on hover), the label of the step that reaches it
    (in the figure, where plotly draws b<sub>O</sub>), the same label for a caption (markdown, $b_O$), and what the
    step does: "sum" (the heads' ΣΔe added), "bias" (b_O added) or "norm"."""

    name: str
    label: str
    caption: str
    kind: str


def after_heads_steps(cfg: ModelConfig) -> tuple[Step, ...]:
    """The points of the step after the heads, as the model reaches them: e, then e + ΣΔe, + b_O where there is
    one, and the norm around the sum (post-norm); e + ΣΔe (+ b_O) and no more (pre-norm); or, where the norm
    acts on the heads' sum before it is added (a sandwich), e′ = e + Norm(ΣΔe) in one step, e + ΣΔe never formed.
    Two points: nothing happens after the heads but the sum (see has_step_after_heads)."""
    norm, bias = norm_name(cfg), (" + b<sub>O</sub>" if cfg.has_bias("o") else "")
    said = " + $b_O$" if cfg.has_bias("o") else ""
    start = Step("e", "e", "e", "")
    where = pick(cfg, "norm_position", {"post": "outer", "pre": None, "sandwich": "inner"})  # around e, or ΣΔe
    if where == "inner":
        label = _("+ {norm}(ΣΔe{bias}) → e′")
        name = f"e′ = e + {norm}(ΣΔe{bias})"
        return (start, Step(name, label.format(norm=norm, bias=bias), label.format(norm=norm, bias=said), "norm"))
    steps = [start, Step("e + ΣΔe", "+ ΣΔe", "+ ΣΔe", "sum")]
    if cfg.has_bias("o"):
        steps.append(Step(f"e + ΣΔe{bias}", BIAS_STEP, "+ $b_O$", "bias"))
    if where == "outer":
        label = _("{norm} → e′").format(norm=norm)
        steps.append(Step(f"e′ = {norm}(e + ΣΔe{bias})", label, label, "norm"))
    return tuple(steps)


def unadded_sum(cfg: ModelConfig, caption: bool = False) -> str:
    """Where the norm acts on the heads' sum before it is added (a sandwich), the label of that sum, drawn from e to
    compare with what the norm made of it; "" where e + ΣΔe is a point the model reaches. caption: the longer words
    of a caption (markdown, $b_O$), else a figure's short label (b<sub>O</sub>)."""
    if caption:
        bias = " + $b_O$" if cfg.has_bias("o") else ""
        unadded = _("ΣΔe{bias} before its {norm}, never added").format(bias=bias, norm=norm_name(cfg))
    else:
        unadded = _("ΣΔe{bias}, not added").format(bias=" + b<sub>O</sub>" if cfg.has_bias("o") else "")
    return pick(cfg, "norm_position", {"post": "", "pre": "", "sandwich": unadded})


def heads_sum_tip(cfg: ModelConfig) -> tuple[str, str, str]:
    """Where the heads' arrows laid tip to tail end: its label, its hover text, and the caption's words for it. A
    point the model reaches (e + ΣΔe) where the sum is added as it is; only the sum ΣΔe where the model normalises
    it before adding it (a sandwich), since e + ΣΔe is never formed there."""
    norm = norm_name(cfg)
    added = ("e + ΣΔe", _("e + ΣΔe: every head added"), _("they end at e + ΣΔe, the green sum"))
    normalised = (
        "ΣΔe",
        _("ΣΔe: every head's Δe laid end to end from e, before {norm} acts on it").format(norm=norm),
        _("the green arrow is their sum ΣΔe, which {norm} acts on before it is added to e").format(norm=norm),
    )
    return pick(cfg, "norm_position", {"post": added, "pre": added, "sandwich": normalised})


def has_step_after_heads(cfg: ModelConfig) -> bool:
    """Whether anything comes after the heads' sum: a bias, or a norm on the way to the residual stream."""
    return cfg.has_bias("o") or has_norm_after_heads(cfg)


def after_heads_latex(cfg: ModelConfig) -> str:
    """e′ in the equation of the displacement section."""
    summed = r"\sum_h \Delta e_j^{(h)}" + (r" + b_O" if cfg.has_bias("o") else "")
    return pick(
        cfg,
        "norm_position",
        {
            "post": rf"{norm_latex(cfg)}\Big(e_j + {summed}\Big)",
            "pre": rf"e_j + {summed}",
            "sandwich": rf"e_j + {norm_latex(cfg)}\Big({summed}\Big)",
        },
    )


def after_heads_note(cfg: ModelConfig) -> str:
    """One line under the heads-added-up picture: what becomes of e + ΣΔe."""
    bias = f" {BIAS_STEP}" if cfg.has_bias("o") else ""
    norm = norm_name(cfg)
    return pick(
        cfg,
        "norm_position",
        {
            "post": _("Then e′ = {norm}(e + ΣΔe{bias}).").format(norm=norm, bias=bias),
            "pre": _("Then e′ = e + ΣΔe{bias}: no norm on the residual stream.").format(bias=bias),
            "sandwich": _("Then e′ = e + {norm}(ΣΔe{bias}): the sum is normalised before it is added.").format(
                norm=norm, bias=bias
            ),
        },
    )


def residual_sentence(cfg: ModelConfig, model: str) -> str:
    """The residual step of the loaded model's attention, as an equation in a sentence: E′ = E + ΔE where the norm
    sits before attention, around the sum after it, on attention's output in a sandwich."""
    bias = " + b_O" if cfg.has_bias("o") else ""
    norm = norm_name(cfg)
    return pick(
        cfg,
        "norm_position",
        {
            "post": _(
                "In {model}, the residual step is $E' = \\operatorname{{{norm}}}(E + \\Delta E{bias})$: its norm comes "
                "after the sum."
            ),
            "pre": _(
                "In {model}, the residual step is exactly $E' = E + \\Delta E{bias}$: its norm comes before attention."
            ),
            "sandwich": _(
                "In {model}, the residual step is $E' = E + \\operatorname{{{norm}}}(\\Delta E{bias})$: attention's "
                "output is normalised before it is added."
            ),
        },
    ).format(model=model, norm=norm, bias=bias)


def after_heads_sentence(cfg: ModelConfig) -> str:
    """The prose's sentence on what comes after the heads."""
    norm = norm_name(cfg)
    where = pick(cfg, "norm_position", {"post": "post", "pre": "pre", "sandwich": "sandwich"})
    words = {
        ("post", True): _(
            "Then this model adds the bias $b_O$ and normalises the sum with {a_norm} to give the updated embedding "
            "(its own panel below)."
        ),
        ("post", False): _(
            "Then this model normalises the sum with {a_norm} to give the updated embedding (its own panel below)."
        ),
        ("pre", True): _(
            "Then this model adds the bias $b_O$ and stops there: its {norm} comes before the heads, so the updated "
            "embedding is the sum itself."
        ),
        ("pre", False): _(
            "That sum is the updated embedding: this model has no bias after the heads, and its {norm} comes before "
            "them."
        ),
        ("sandwich", True): _(
            "That end is where the sum alone would take $e_j$, and this model never goes there: it adds the bias "
            "$b_O$ and normalises the heads' sum with {a_norm} before adding it to $e_j$ (its own panel below), its "
            "norms sitting both before and after each sub-layer."
        ),
        ("sandwich", False): _(
            "That end is where the sum alone would take $e_j$, and this model never goes there: it normalises the "
            "heads' sum with {a_norm} before adding it to $e_j$ (its own panel below), its norms sitting both before "
            "and after each sub-layer."
        ),
    }
    return words[where, cfg.has_bias("o")].format(norm=norm, a_norm=a_norm(cfg))


def after_heads_toggle(cfg: ModelConfig) -> str:
    """The switch that shows the step after the heads, naming what the step does."""
    done = [
        name
        for name, present in (("+ $b_O$", cfg.has_bias("o")), (norm_name(cfg), has_norm_after_heads(cfg)))
        if present
    ]
    return _("Show the step after the heads ({what})").format(what=_(", then ").join(done))


def has_norm_after_heads(cfg: ModelConfig) -> bool:
    return pick(cfg, "norm_position", {"post": True, "pre": False, "sandwich": True})


def attention_step_name(cfg: ModelConfig) -> str:
    """The updated section's first step, as its menu names it."""
    bias = " + b_O" if cfg.has_bias("o") else ""
    return pick(
        cfg,
        "norm_position",
        {
            "post": _("attention + {norm}").format(norm=norm_name(cfg)),
            "pre": _("attention (e + ΣΔe{bias})").format(bias=bias),
            "sandwich": _("attention (e + {norm}(ΣΔe{bias}))").format(norm=norm_name(cfg), bias=bias),
        },
    )


def mlp_name(cfg: ModelConfig) -> str:
    return pick(
        cfg,
        "mlp",
        {
            "gelu": _("an MLP with a GELU between its two layers"),
            "gelu_tanh": _("an MLP with a GELU (its tanh form) between its two layers"),
            "swiglu": _("a gated MLP (SwiGLU: a SiLU gate times a second projection)"),
            "geglu": _("a gated MLP (GeGLU: a GELU gate times a second projection)"),
        },
    )


def block_sentence(cfg: ModelConfig) -> str:
    """What one block of the loaded model does, in order, for the big picture."""
    norm, mlp = norm_name(cfg), mlp_name(cfg)
    return pick(
        cfg,
        "norm_position",
        {
            "post": _(
                "attention, whose result is **added** to the token's vector (the residual connection), then {a_norm} "
                "that brings the sum back to a standard scale; then {mlp}, added and normalised the same way. The "
                "norm comes **after** each part."
            ),
            "pre": _(
                "{a_norm}, then attention, whose result is **added** to the token's vector (the residual connection); "
                "another {norm}, then {mlp}, added the same way. The norm comes **before** each part, so the vector "
                "that runs through the blocks is never normalised itself."
            ),
            "sandwich": _(
                "{a_norm}, then attention, whose result goes through a second {norm} before it is **added** to the "
                "token's vector (the residual connection); then the same around {mlp}. The norms sit **before and "
                "after** each part, a sandwich."
            ),
        },
    ).format(norm=norm, a_norm=a_norm(cfg), mlp=mlp)


def output_sentence(cfg: ModelConfig) -> str:
    """What happens after the last block."""
    if not cfg.predicts_next_token:
        if cfg.pooling == "mean":
            return _(
                "After the last block, the tokens' vectors are averaged into one sentence vector, which is what a "
                "search or a comparison of sentences uses."
            )
        return _(
            "After the last block, the tokens' vectors are pooled into one sentence vector, which is what a search or "
            "a comparison of sentences uses."
        )
    return _(
        "After the last block, one more {norm}, and the last token's vector is compared with every row of the token "
        "table (the output head is the embedding matrix itself) to score each possible next token."
    ).format(norm=norm_name(cfg))
