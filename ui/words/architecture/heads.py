"""Words about the heads: q, k and v as the model computes them, what the scores include, grouped key/value
heads, QK-norm, the mask and what a token reads."""

from __future__ import annotations

from attention import ModelConfig
from ui.words.architecture.fields import norm_latex, norm_name, pick
from ui.words.i18n import _, n_, semicolons, whole


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
