"""Words about a model, from its fields: the one place that turns a config's field values into the sentences,
labels and LaTeX a page shows (positions, norm kind and place, biases, MLP, mask and sliding window, key/value
sharing, special tokens, QK-norm, embedding scale). A value it does not know raises, so that a new family is
never described as an old one: add its words here first.

Pages and figures never name a family; they ask this module what the loaded model does.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from attention import ModelConfig
from attention.lessons import budget
from ui.words.i18n import _, listing, n_, semicolons, whole


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


# --- tokens and embeddings ---------------------------------------------------------------------------------------


def special_tokens(cfg: ModelConfig) -> tuple[str, ...]:
    """What the tokenizer adds around a text, in order: ("[CLS]", "[SEP]"), ("<bos>",) or ()."""
    return tuple(t for t in (cfg.start_token, cfg.end_token) if t)


def specials_named(cfg: ModelConfig) -> str:
    """The added tokens for a label: "[CLS] and [SEP]", "<bos>", "" when there are none."""
    tokens = special_tokens(cfg)
    return _("{first} and {second}").format(first=tokens[0], second=tokens[1]) if len(tokens) == 2 else "".join(tokens)


def specials_aside(cfg: ModelConfig) -> str:
    """Why the tokenizer's own tokens are left out of the before-and-after picture unless asked for."""
    tokens = special_tokens(cfg)
    if not tokens:
        return ""
    return n_(
        "{tokens} is left out unless you show it here too: after a layer it lies far from the words (many heads "
        "park their weight there), which then crowd into a corner of the picture.",
        "{tokens} are left out unless you show them here too: after a layer they lie far from the words (many "
        "heads park their weight there), which then crowd into a corner of the picture.",
        len(tokens),
    ).format(tokens=specials_named(cfg))


def added_tokens_sentence(cfg: ModelConfig) -> str:
    tokens = special_tokens(cfg)
    if not tokens:
        return _("It adds no token of its own to the text.")
    if cfg.start_token and cfg.end_token:
        return _("It adds **{start}** at the start and **{end}** at the end.").format(
            start=cfg.start_token, end=cfg.end_token
        )
    if cfg.start_token:
        return _("It adds **{token}** at the start.").format(token=cfg.start_token)
    return _("It adds **{token}** at the end.").format(token=cfg.end_token)


def pieces_sentence(tokenizer_kind: str) -> str:
    """How its pieces show where words start, from the tokenizer's kind ("wordpiece", "byte_level",
    "sentencepiece"), which attention.tokens reads off the tokenizer."""
    if tokenizer_kind == "wordpiece":
        return _(
            "A word it does not know whole is cut into pieces, those marked **##** continuing the word before them."
        )
    if tokenizer_kind in ("byte_level", "sentencepiece"):
        return _(
            "A piece that starts with a space is marked ␣; a character it has no piece for is spelled by its UTF-8 "
            "bytes (‹E2›…)."
        )
    raise ValueError(f"No words for the tokenizer kind {tokenizer_kind!r}: add them to ui/words/architecture.py.")


def scale_sentence(cfg: ModelConfig) -> str:
    """What the embedding scale does, where there is one ("" where the rows are used as they are)."""
    if cfg.embedding_scale == 1.0:
        return ""
    scale = _(
        "Each row is multiplied by √{d} ≈ {scale} as it is looked up, so that it stands as tall as the numbers the "
        "layers add to it."
    ).format(d=cfg.d_model, scale=_num(cfg.embedding_scale, 2))
    return scale + (" " + _("The same rows serve the output head as they are.") if cfg.predicts_next_token else "")


def positions_sentence(cfg: ModelConfig) -> str:
    """How word order reaches the model, and what the first layer receives."""
    scale = f" {scale_sentence(cfg)}" if cfg.embedding_scale != 1.0 else ""
    if pick(cfg, "positions", {"learned": False, "rotary": True}):
        return (
            _("Nothing is added for the position: the token's vector is the embedding $e_i$ the first layer receives.")
            + scale
            + " "
            + _(
                "Word order enters inside every head instead, where each query and key is rotated by an angle that "
                "grows with its place (rotary positions)."
            )
        )
    if _embedding_norm(cfg):
        learned = _(
            "Each token's vector is added to a learned vector for its position and to $T_0$, the vector of the "
            "first segment (BERT can read two texts, segments 0 and 1; a single sentence is all segment 0), then "
            "normalized: that is the embedding $e_i$ the first layer receives."
        )
    else:
        learned = _(
            "Each token's vector is added to a learned vector for its position: that is the embedding $e_i$ the "
            "first layer receives."
        )
    return learned + scale


def _embedding_norm(cfg: ModelConfig) -> bool:
    """A post-norm encoder (BERT) normalizes the summed embeddings before the first layer."""
    return pick(cfg, "norm_position", {"post": True, "pre": False, "sandwich": False})


def embedding_latex(cfg: ModelConfig) -> str:
    word = r"W_E[t_i]"
    if cfg.embedding_scale != 1.0:
        word = rf"\sqrt{{{cfg.d_model}}}\,W_E[t_i]"
    if cfg.positions == "rotary":
        note = _("positions: {q} and {k} rotated in every head").format(q="$q$", k="$k$")
        return rf"e_i = {word} \qquad (\text{{{note}}})"
    pick(cfg, "positions", {"learned": None})
    inner = rf"{word} + P_i" + (r" + T_0" if _embedding_norm(cfg) else "")
    return rf"e_i = {norm_latex(cfg)}\big({inner}\big)" if _embedding_norm(cfg) else rf"e_i = {inner}"


# --- queries, keys and values ---------------------------------------------------------------------------------------


def heads_input_latex(cfg: ModelConfig) -> str:
    """What the heads read, as a symbol: e itself (norm after) or the normalized ê."""
    return pick(cfg, "norm_position", {"post": "e", "pre": r"\hat e", "sandwich": r"\hat e"})


def qkv_latex(cfg: ModelConfig) -> str:
    x = heads_input_latex(cfg)
    parts = {
        m: rf"{x}_{i} W_{m}" + (rf" + b_{m}" if cfg.has_bias(m.lower()) else "")
        for m, i in (("Q", "i"), ("K", "j"), ("V", "j"))
    }
    q, k, v = parts["Q"], parts["K"], parts["V"]
    if cfg.qk_norm:  # each head's q and k normalized before the rotation
        q, k = rf"{norm_latex(cfg)}_q({q})", rf"{norm_latex(cfg)}_k({k})"
    if pick(cfg, "positions", {"learned": False, "rotary": True}):
        q, k = (q, k) if cfg.qk_norm else (rf"({q})", rf"({k})")  # the rotation turns the whole projected vector
        q, k = rf"R_i{q}", rf"R_j{k}"
    line = rf"q_i = {q} \qquad k_j = {k} \qquad v_j = {v}"  # row vectors, as every page writes them (e W)
    if x == "e":
        return line
    # the norm the heads read through on a line of its own: on one line Gemma's ran past a 1280 px column
    return rf"\begin{{gathered}} {line} \\ \hat e = {norm_latex(cfg)}(e) \end{{gathered}}"


def value_latex(cfg: ModelConfig) -> str:
    """A value vector as the model computes it, from what the heads read (row vectors): v_i = e_i W_V, or ê_i W_V."""
    return rf"v_i = {heads_input_latex(cfg)}_i W_V"


def value_words(cfg: ModelConfig) -> str:
    """The prose's value vector, inline: from e where the norm comes after, from ê (said) where it comes before."""
    x = heads_input_latex(cfg)
    if x == "e":
        return f"${value_latex(cfg)}$"
    return _("{v}, where {e_hat} is {e_i} normalised by the {norm} before the heads").format(
        v=f"${value_latex(cfg)}$", e_hat=r"$\hat e_i$", e_i="$e_i$", norm=norm_name(cfg)
    )


def head_end_label(cfg: ModelConfig) -> str:
    """The point one head's weighted values end at, drawn from e: e + Δe, a point the model reaches with the other
    heads' (pre- and post-norm), or Δe alone where the model normalises the heads' sum before adding it (a
    sandwich), so that e + Δe is never formed."""
    norm = norm_name(cfg)
    return pick(
        cfg,
        "norm_position",
        {"post": "e + Δe", "pre": "e + Δe", "sandwich": _("Δe, before {norm}").format(norm=norm)},
    )


def scores_sentence(cfg: ModelConfig) -> str:
    """Under the chapter's bare equation q = e W_Q, what the loaded model's q · k also includes, in the order the
    model applies it: the normalised input, the biases, QK-norm, the rotation."""
    norm = norm_name(cfg)
    steps = []
    if heads_input_latex(cfg) != "e":
        steps.append(
            _("the heads read {e_hat}, {e} normalised by the {norm} before attention").format(
                e_hat=r"$\hat e$", e="$e$", norm=norm
            )
        )
    if cfg.has_bias("q") and cfg.has_bias("k"):
        steps.append(_("the biases {b_q} and {b_k} are added").format(b_q="$b_Q$", b_k="$b_K$"))
    elif cfg.has_bias("q") or cfg.has_bias("k"):
        steps.append(_("the bias {b} is added").format(b="$b_Q$" if cfg.has_bias("q") else "$b_K$"))
    if cfg.qk_norm:
        steps.append(
            _("each head's {q} and {k} then go through their own {norm} (QK-norm)").format(q="$q$", k="$k$", norm=norm)
        )
    if pick(cfg, "positions", {"learned": False, "rotary": True}):
        steps.append(_("{q} and {k} are then rotated by their positions (chapter 11)").format(q="$q$", k="$k$"))
    if not steps:
        return _("The heatmap's {qk} is {model}'s, exactly as this equation writes it.").format(
            qk=r"$q \cdot k$", model=cfg.name
        )
    return _("The heatmap's {qk} is {model}'s own, with what this equation leaves out: {steps}.").format(
        qk=r"$q \cdot k$", model=cfg.name, steps=semicolons(steps)
    )


def stacked_words(cfg: ModelConfig) -> str:
    """A layer's W_Q and W_K as the model stores them, each with its own size: W_K is narrower where query heads
    share key/value heads."""
    q_width, kv_width = cfg.n_heads * cfg.d_head, cfg.n_kv_heads * cfg.d_head
    sizes = dict(
        wq="$W_Q$", wk="$W_K$", d_model=whole(cfg.d_model), width=whole(q_width), n_heads=cfg.n_heads, d_head=cfg.d_head
    )
    if cfg.n_kv_heads == cfg.n_heads:
        return _(
            "{d_model} × {width} here, cut into {n_heads} blocks of {d_head} columns, for {wq} and {wk} alike"
        ).format(**sizes)
    return n_(
        "{wq} is {d_model} × {width} here, cut into {n_heads} blocks of {d_head} columns, and {wk} is {d_model} × "
        "{kv_width}, {kv} block of {d_head} columns, which all {group} query heads share",
        "{wq} is {d_model} × {width} here, cut into {n_heads} blocks of {d_head} columns, and {wk} is {d_model} × "
        "{kv_width}, {kv} blocks of {d_head} columns, each shared by {group} query heads",
        cfg.n_kv_heads,
    ).format(**sizes, kv_width=whole(kv_width), kv=cfg.n_kv_heads, group=cfg.n_heads // cfg.n_kv_heads)


def grown_input_label(cfg: ModelConfig) -> str:
    """The QK-norm slider's label: what it scales is the heads' input, which is ê, already normalised, where the
    norm comes before attention: the model's own input could not grow, larger gains or projections could."""
    normalised = _(
        "The heads' input ê, the vectors after the {norm} before attention, made this many times larger (a "
        "counterfactual: as if that norm's gains, or $W_Q$ and $W_K$, grew)"
    ).format(norm=norm_name(cfg))
    return pick(
        cfg,
        "norm_position",
        {
            "post": _("The vectors entering the layer, made this many times larger (a counterfactual)"),
            "pre": normalised,
            "sandwich": normalised,
        },
    )


def grown_input_words(cfg: ModelConfig) -> str:
    """In the QK-norm prose, what the slider makes larger, and why the model's own input cannot grow so."""
    norm = norm_name(cfg)
    pre = _(
        "the heads' input {e_hat} larger, the vectors after the {norm} before attention. That norm already fixes "
        "their size, so the vectors entering the layer cannot grow this way in the model itself: the slider stands "
        "for larger gains in that norm, or larger {wq} and {wk}"
    ).format(e_hat=r"$\hat e$", norm=norm, wq="$W_Q$", wk="$W_K$")
    return pick(
        cfg,
        "norm_position",
        {"post": _("the vectors entering the layer larger"), "pre": pre, "sandwich": pre},
    )


def qk_norm_sentence(cfg: ModelConfig) -> str:
    if not cfg.qk_norm:
        return ""
    return _(
        "Each head's queries and keys are then {norm}-normalised (QK-norm), so no score can grow without bound "
        "however large the vectors entering the layer become."
    ).format(norm=norm_name(cfg))


def sharing_name(cfg: ModelConfig) -> str:
    """Multi-head, grouped-query or multi-query attention, from the key/value heads."""
    if cfg.n_kv_heads == cfg.n_heads:
        return _("multi-head attention")
    if cfg.n_kv_heads == 1:
        return _("multi-query attention")
    return _("grouped-query attention")


def projections_sentence(cfg: ModelConfig) -> str:
    """Which of W_Q, W_K and W_V each head has of its own, from n_kv_heads against n_heads: all three (multi-head
    attention), or its own W_Q while the key and value maps are shared by a group of heads (grouped-query) or by
    all of them (multi-query)."""
    if cfg.n_kv_heads == cfg.n_heads:
        return _("Each has its own $W_Q$, $W_K$ and $W_V$.")
    if cfg.n_kv_heads == 1:
        return _(
            "Each has its own $W_Q$, while all {n} share one $W_K$ and one $W_V$, so they read the same keys and "
            "values ({sharing})."
        ).format(n=cfg.n_heads, sharing=sharing_name(cfg))
    return _(
        "Each has its own $W_Q$, while $W_K$ and $W_V$ are shared by each group of {group} heads: the layer "
        "computes {n} sets of keys and values for its {heads} query heads ({sharing})."
    ).format(group=cfg.group_size, n=cfg.n_kv_heads, heads=cfg.n_heads, sharing=sharing_name(cfg))


# --- the mask ------------------------------------------------------------------------------------------------------


def mask_sentence(cfg: ModelConfig) -> str:
    """The mask the model was trained with, and its sliding windows, for the page that shows the mask."""
    window = ""
    if cfg.sliding_window and cfg.layer_kinds:
        n_local = sum(k == "local" for k in cfg.layer_kinds)
        window = " " + _(
            "On {n_local} of its {n_layers} layers (the local ones) the mask also hides every key more than {before} "
            "places back: a sliding window of {window} tokens."
        ).format(
            n_local=n_local,
            n_layers=cfg.n_layers,
            before=whole(cfg.sliding_window - 1),
            window=whole(cfg.sliding_window),
        )
    names = mask_names()
    if pick(cfg, "native_mask", {"causal": True, "none": False}):
        return (
            _(
                "{model} was trained with this mask, so it always runs with it; **{mask} → {none}** in the sidebar "
                "shows what its heads would do if they could see ahead."
            ).format(model=cfg.name, mask=_("Mask"), none=names["none"])
            + window
        )
    return _(
        "{model} was trained without it: each token sees the whole sentence, and **{mask} → {causal}** in the "
        "sidebar shows what the mask would hide."
    ).format(model=cfg.name, mask=_("Mask"), causal=names["causal"])


def mask_names() -> dict[str, str]:
    """The explorer's Mask choices (attention.MASKS) as its sidebar names them, in the page's language: the prose
    that sends a reader there quotes the same words."""
    return {"none": _("none"), "causal": _("causal")}


def reads_words(cfg: ModelConfig) -> str:
    """Which tokens a query reads under the mask the model runs with, after "reads"."""
    return pick(
        cfg,
        "native_mask",
        {"causal": _("every earlier token"), "none": _("every token of the text, before it and after it")},
    )


# --- after the heads --------------------------------------------------------------------------------------------


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
            "Then this model adds the bias $b_O$ and normalizes the sum with {a_norm} to give the updated embedding "
            "(its own panel below)."
        ),
        ("post", False): _(
            "Then this model normalizes the sum with {a_norm} to give the updated embedding (its own panel below)."
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
            "Then this model adds the bias $b_O$ and normalizes the heads' sum with {a_norm} before adding it to "
            "$e_j$ (its own panel below): its norms sit both before and after each sub-layer."
        ),
        ("sandwich", False): _(
            "Then this model normalizes the heads' sum with {a_norm} before adding it to $e_j$ (its own panel "
            "below): its norms sit both before and after each sub-layer."
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


# --- the whole block ---------------------------------------------------------------------------------------------


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
                "that brings the sum back to a standard scale; then {mlp}, added and normalized the same way. The "
                "norm comes **after** each part."
            ),
            "pre": _(
                "{a_norm}, then attention, whose result is **added** to the token's vector (the residual connection); "
                "another {norm}, then {mlp}, added the same way. The norm comes **before** each part, so the vector "
                "that runs through the blocks is never normalized itself."
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


# --- the model as boxes (the big picture's diagram) ---------------------------------------------------------------


def _norm_detail(cfg: ModelConfig) -> str:
    n = whole(cfg.d_model)
    return pick(cfg, "norm", {"layer": _("{n} gains and {n} biases").format(n=n), "rms": _("{n} gains").format(n=n)})


def part_words(model: Any, key: str) -> tuple[str, str]:
    """(the box's name, its sizes) for a part of budget.architecture, from the model's fields and arrays."""
    cfg, d = model.config, model.config.d_model
    norm, detail = norm_name(cfg), _norm_detail(cfg)
    if key == "tokens":
        return _("Tokens"), _("a vocabulary of {n}").format(n=whole(cfg.vocab_size))
    if key == "embedding":
        scaled = f" × √{cfg.d_model}" if cfg.embedding_scale != 1.0 else ""
        rows = model.embeddings.position.shape[0] if model.embeddings.position is not None else 0
        positions = pick(
            cfg,
            "positions",
            {
                "learned": _(" + {rows} positions × {d}").format(rows=whole(rows), d=d),
                "rotary": _("; positions rotate q and k instead"),
            },
        )
        types = model.embeddings.token_type  # BERT's segment vectors: counted in the box, so named in it
        segments = (
            n_(" + {n} token type × {d}", " + {n} token types × {d}", types.shape[0]).format(n=types.shape[0], d=d)
            if types is not None
            else ""
        )
        normalized = _(", then {norm}").format(norm=norm) if model.embeddings.norm is not None else ""
        tokens = _("{n} tokens × {d}").format(n=whole(cfg.vocab_size), d=d)
        return _("Embeddings"), f"{tokens}{scaled}{positions}{segments}{normalized}"
    if key == "attention":
        heads = (
            _("{n} heads × d<sub>head</sub> {d}").format(n=cfg.n_heads, d=cfg.d_head)
            if cfg.n_kv_heads == cfg.n_heads
            else n_(
                "{n} query heads, {kv} key/value head, d<sub>head</sub> {d}",
                "{n} query heads, {kv} key/value heads, d<sub>head</sub> {d}",
                cfg.n_kv_heads,
            ).format(n=cfg.n_heads, kv=cfg.n_kv_heads, d=cfg.d_head)
        )
        extras = [pick(cfg, "positions", {"learned": "", "rotary": _("rotary")}), "QK-norm" if cfg.qk_norm else ""]
        return _("Attention"), semicolons([heads, *extras])  # its window: chapter 8 (one line here)
    if key == "mlp":
        gated = pick(cfg, "mlp", {"gelu": "", "gelu_tanh": "", "swiglu": "SwiGLU", "geglu": "GeGLU"})
        name = f"MLP ({gated})" if gated else _("MLP (feed-forward)")
        wide = whole(cfg.d_ff)
        return name, _("{d} → {ff} (×2: gate and up) → {d}").format(d=d, ff=wide) if gated else f"{d} → {wide} → {d}"
    if key in ("norm_attention", "norm_mlp"):
        return norm, detail
    if key in ("norm_attention_out", "norm_mlp_out"):
        return _("{norm} (on the output)").format(norm=norm), detail
    if key in ("add_attention", "add_mlp"):
        # what the sub-layer adds, as the model computes it: f(x), f(norm(x)) or norm(f(norm(x)))
        read = f"{norm}(x)" if cfg.norm_position in ("pre", "sandwich") else "x"
        what = (_("attention({x})") if key == "add_attention" else "MLP({x})").format(x=read)
        if has_norm_after_heads(cfg) and cfg.norm_position == "post":
            return f"Add & {norm}", _("x + {what}, then {detail}").format(what=what, detail=detail)
        if cfg.norm_position == "sandwich":
            what = f"{norm}({what})"
        return _("Residual: x + {what}").format(what=what), _("adds, learns nothing")
    if key == "final_norm":
        return _("Final {norm}").format(norm=norm), detail
    if key == "output":
        if not cfg.predicts_next_token:
            how = {"cls": _("the first token's vector"), "max": _("the largest value of each coordinate")}
            pooled = how.get(cfg.pooling, _("the mean of the tokens' vectors"))
            shape = _("{pooled}, {d} wide, scaled to length 1") if cfg.normalize else _("{pooled}, {d} wide")
            return _("Sentence embedding"), shape.format(pooled=pooled, d=d)
        if model.output is None:
            return _("Next-token scores"), _("× W<sub>E</sub>ᵀ: {d} → {n}, the embedding reused").format(
                d=d, n=whole(cfg.vocab_size)
            )
        return _("Next-token scores"), f"× W<sub>out</sub>: {d} → {whole(cfg.vocab_size)}"
    raise ValueError(f"No words for the part '{key}' of {cfg.name}: add them to ui/words/architecture.py.")


def pipeline_latex(cfg: ModelConfig) -> str:
    """The whole model in one line, as the big picture writes it."""
    word = rf"\sqrt{{{cfg.d_model}}}\,W_E[t]" if cfg.embedding_scale != 1.0 else "W_E[t]"
    n = norm_latex(cfg)
    learned = rf"{word} + P" + (r" + T_0" if _embedding_norm(cfg) else "")  # as embedding_latex writes it
    embedding = pick(
        cfg, "positions", {"learned": rf"{n}({learned})" if _embedding_norm(cfg) else learned, "rotary": word}
    )
    sub_layer = pick(  # one sub-layer, its norms where the model puts them (f: Attention, then MLP)
        cfg,
        "norm_position",
        {
            "post": rf"x \leftarrow {n}(x + \operatorname{{{{f}}}}(x))",
            "pre": rf"x \leftarrow x + \operatorname{{{{f}}}}({n}(x))",
            "sandwich": rf"x \leftarrow x + {n}(\operatorname{{{{f}}}}({n}(x)))",
        },
    )
    attention_line, mlp_line = (sub_layer.replace("{f}", f) for f in ("Attention", "MLP"))
    # the block's two sub-layers on a line each: Gemma's sandwich on one line ran past a 1280 px column
    block = rf"{attention_line} \\ {mlp_line}"
    tokens, one_block, output, block_is = _("tokens"), _("block"), _("output"), _("block:")
    return (
        rf"\begin{{gathered}}\text{{{tokens}}} \;\to\; e = {embedding} \;\to\; {cfg.n_layers} \times "
        rf"\text{{{one_block}}} \;\to\; \text{{{output}}} \\ \text{{{block_is} }} {block}\end{{gathered}}"
    )


# --- the parameter table of the loaded model ---------------------------------------------------------------------


def budget_row(cfg: ModelConfig, key: str) -> str:
    """The name of a row of budget.model_budget, with the arrays this model has (no b_Q where it has no biases)."""
    norm = norm_name(cfg)

    def matrix(name: str, bias: str) -> str:
        return f"{name}, {bias}" if cfg.has_bias(bias[-1].lower()) else name

    post = cfg.norm_position == "post"
    names = {
        "word": _("word embeddings (also the output head)") if cfg.predicts_next_token else _("word embeddings"),
        "position": _("position embeddings"),
        "token_type": _("token-type embeddings + {norm}").format(norm=norm),
        "query": matrix(_("query W_Q"), "b_Q"),
        "key": matrix(_("key W_K"), "b_K"),
        "value": matrix(_("value W_V"), "b_V"),
        "output": matrix(_("output W_O"), "b_O"),
        "qk_norm": _("QK-norm: the {norm} gains of queries and keys").format(norm=norm),
        "norm_attention": (_("{norm} after attention") if post else _("{norm} before attention")).format(norm=norm),
        "norm_attention_out": _("{norm} of attention's output").format(norm=norm),
        "up": _("MLP up, its bias") if cfg.has_bias("mlp") else _("MLP up"),
        "gate": _("MLP gate"),
        "down": _("MLP down, its bias") if cfg.has_bias("mlp") else _("MLP down"),
        "norm_ffn": (_("{norm} after the MLP") if post else _("{norm} before the MLP")).format(norm=norm),
        "norm_ffn_out": _("{norm} of the MLP's output").format(norm=norm),
        "final_norm": _("final {norm}").format(norm=norm),
        "output_head": _("output head (not tied to the embeddings)"),
    }
    if key not in names:
        raise ValueError(f"No words for the parameter row '{key}' ({cfg.name}): add them to ui/words/architecture.py.")
    return names[key]


BIAS_NAMES = {"q": "b_Q", "k": "b_K", "v": "b_V", "o": "b_O"}  # and the MLP's, named in words


def biases_clause(cfg: ModelConfig) -> str:
    """Which biases the model adds, where the calculator counts one for every linear layer."""
    if not cfg.biases:
        return _("it has no biases")
    named = [BIAS_NAMES[m] for m in BIAS_NAMES if cfg.has_bias(m)]
    if cfg.has_bias("mlp"):
        named.append(_("the MLP's"))
    return _("its only biases are {biases}").format(biases=listing(named))


def gap_sentence(cfg: ModelConfig, gap: tuple[tuple[str, int], ...]) -> str:
    """Why the GPT-2 calculator's count differs from the arrays', one clause per assumption the model breaks,
    each with what it changes (budget.calculator_gap)."""
    if not gap:
        return _("The two agree: the model is built as the calculator assumes.")
    clauses = {
        "width": _(
            "its heads are {heads} × {d_head} = {width} wide while its vectors are {d_model} (the calculator takes "
            "d_model = heads × d_head)"
        ).format(
            heads=cfg.n_heads, d_head=cfg.d_head, width=whole(cfg.n_heads * cfg.d_head), d_model=whole(cfg.d_model)
        ),
        "positions": _("it has no table of learned positions (its positions are rotary)"),
        "biases": biases_clause(cfg),
        "norm": _("its {norm}s have gains only, no biases").format(norm=norm_name(cfg)),
        "kv_heads": n_(
            "its {heads} query heads share {kv} key/value head ({sharing}), so W_K and W_V are smaller",
            "its {heads} query heads share {kv} key/value heads ({sharing}), so W_K and W_V are smaller",
            cfg.n_kv_heads,
        ).format(heads=cfg.n_heads, kv=cfg.n_kv_heads, sharing=sharing_name(cfg)),
        "d_ff": _(
            "its MLP is {d_ff} wide, where the calculator takes {ratio} × its own width, heads × d_head = {width}: "
            "{calc} ({ratio} is {d_ff} ÷ {d_model}, rounded down)"
        ).format(
            d_ff=whole(cfg.d_ff),
            ratio=budget.sizes_of(cfg).mlp_ratio,
            width=whole(budget.sizes_of(cfg).d_model),
            d_model=whole(cfg.d_model),
            calc=whole(budget.sizes_of(cfg).d_ff),
        ),
        "gated": _("its MLP is gated, a third matrix beside up and down"),
        "norms": _("it has two more norms in every layer, on the sub-layers' outputs"),
        "qk_norm": _("QK-norm adds gains for the queries and keys"),
        "output_head": _("its output head is a matrix of its own"),
    }
    parts = []
    for key, change in gap:
        if key not in clauses:
            raise ValueError(f"No words for the difference '{key}' ({cfg.name}): add them to ui/words/architecture.py.")
        sign = "+" if change >= 0 else "−"
        parts.append(f"{clauses[key]} ({sign}{whole(abs(change))})")
    return _("Replace its assumptions by the model's own, one at a time: {steps}.").format(steps=semicolons(parts))


def positions_noun(cfg: ModelConfig) -> str:
    """What carries word order in this model, as a noun: the switch that turns it off is named so."""
    return pick(cfg, "positions", {"learned": _("position embeddings"), "rotary": _("rotary positions")})


def distance_enters(cfg: ModelConfig) -> str:
    """How far apart two tokens are reaches the scores only through..."""
    return pick(
        cfg,
        "positions",
        {
            "learned": _("through the position vectors added to the embeddings"),
            "rotary": _(
                "through the rotation that turns each query and key by its place, so that their dot product depends "
                "on how far apart they are"
            ),
        },
    )


def window_clause(cfg: ModelConfig) -> str:
    """After distance_enters: the sliding window's hard limit on the local layers, "" where the model has none."""
    if not (cfg.sliding_window and cfg.layer_kinds):
        return ""
    n_local = sum(k == "local" for k in cfg.layer_kinds)
    if not n_local:
        return ""
    return " " + _(
        "(except on its {n_local} local layers of {n_layers}, where a key more than {before} tokens back gets a "
        "weight of exactly 0: the sliding window hides it)"
    ).format(n_local=whole(n_local), n_layers=whole(cfg.n_layers), before=whole(cfg.sliding_window - 1))


def sharing_note(cfg: ModelConfig) -> str:
    """Where the model's kind of key/value sharing is used, after its name."""
    if cfg.n_kv_heads == cfg.n_heads:
        return _(", as in the original Transformer")
    if cfg.n_kv_heads == 1:
        return _(
            ", the limit of grouped-query attention with a single group, used by PaLM and by the smallest Gemma 3 "
            "models (270M and 1B; the larger ones group their heads)"
        )
    return _(", used by Llama, Mistral, Qwen and SmolLM")
