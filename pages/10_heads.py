"""Chapter 10: many heads, each a proposal, summed; Concat(heads)·W_O equals the sum."""

import numpy as np
import streamlit as st

import attention
import attention.tokens
from attention.lessons import budget, heads
from ui import figures
from ui.components import table
from ui.kit import chapter, next_word, questions
from ui.kit.chart import chart
from ui.session import engine, state
from ui.words import architecture, i18n
from ui.words.i18n import _, n_

prose = chapter.begin("10_heads.py")
st.latex(
    r"\operatorname{MultiHead} = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_H)\, W_O "
    r"= \sum_{h=1}^{H} \text{head}_h\, W_O^{(h)} = \sum_{h=1}^{H} \Delta e^{(h)}"
)
view = chapter.sentence_view()
cfg, layer_i, head_i = view.config, view.layer, view.head
tr = view.trace()
layer = tr.layers[layer_i]
texts = [t.display for t in tr.tokens]
labels = figures.token_labels(texts)
# the paper's split: the heads share out the model's width, and each has its own keys and values
q_width, kv_width = cfg.n_heads * cfg.d_head, cfg.n_kv_heads * cfg.d_head
paper_split = q_width == cfg.d_model and cfg.n_kv_heads == cfg.n_heads
if paper_split:
    st.markdown(prose["split"])
else:  # each way the loaded model departs from the paper's split, said only where it does
    st.markdown(prose["split_own"])
    if q_width != cfg.d_model:
        st.markdown(
            chapter.fill(
                prose["own_width"],
                n_heads=cfg.n_heads,
                d_head=i18n.whole(cfg.d_head),
                q_width=i18n.whole(q_width),
                d_model=i18n.whole(cfg.d_model),
            )
        )
    if cfg.n_kv_heads < cfg.n_heads:
        st.markdown(chapter.fill(prose["own_kv"], kv_heads=cfg.n_kv_heads, n_heads=cfg.n_heads))
    st.markdown(prose["own_numbers"])
slice_h = rf"Q^{{(h)}} = Q_{{:,\; {cfg.d_head}(h-1) + 1 \,\dots\, {cfg.d_head} h}} \in \mathbb{{R}}^{{{tr.n_tokens} \times {cfg.d_head}}}"
if paper_split:
    st.latex(  # two lines: on one, the equation ran past the column at 1280 px
        rf"\begin{{gathered}} d_\text{{model}} = n_\text{{heads}} \times d_\text{{head}}: \quad {cfg.d_model} = "
        rf"{cfg.n_heads} \times {cfg.d_head} \\ Q = X W_Q \in \mathbb{{R}}^{{{tr.n_tokens} \times {cfg.d_model}}} "
        rf"\;\to\; {slice_h} \end{{gathered}}"
    )
else:
    st.latex(
        rf"\begin{{gathered}} Q = X W_Q \in \mathbb{{R}}^{{{tr.n_tokens} \times {q_width}}}\ ({cfg.n_heads} \times "
        rf"{cfg.d_head}), \quad K, V \in \mathbb{{R}}^{{{tr.n_tokens} \times {kv_width}}}\ ({cfg.n_kv_heads} \times "
        rf"{cfg.d_head}), \quad d_\text{{model}} = {cfg.d_model} \\ {slice_h} \end{{gathered}}"
    )
per_token = n_("{n} number each", "{n} numbers each", cfg.d_head).format(n=cfg.d_head)
table.table(
    {
        _("head"): [h + 1 for h in range(cfg.n_heads)],
        _("its columns of Q"): [f"{h * cfg.d_head + 1}–{(h + 1) * cfg.d_head}" for h in range(cfg.n_heads)],
        _("its columns of K and V"): [  # its group's key/value head's (each own where no head shares them)
            f"{g * cfg.d_head + 1}–{(g + 1) * cfg.d_head}"
            for g in (h * cfg.n_kv_heads // cfg.n_heads for h in range(cfg.n_heads))
        ],
        _("its q, k, v per token"): [per_token] * cfg.n_heads,
    },
    key="heads_columns",
    label=_("Each head's columns of Q, K and V"),
    digits=0,
)
st.markdown(prose["sum"])
gap = heads.concat_gap(layer)
m1, m2, m3 = st.columns(3)
m1.metric(r"$\max \big|\sum_h \Delta e^{(h)} - \operatorname{Concat} \cdot W_O\big|$", i18n.sci(gap, 2))
gpt3 = budget.GPT3
for column, name, sizes in ((m2, cfg.name, cfg), (m3, "GPT-3", gpt3)):
    total = budget.head_count(sizes.n_layers, sizes.n_heads)
    column.metric(
        _("{model}: {heads} heads × {layers} layers").format(model=name, heads=sizes.n_heads, layers=sizes.n_layers),
        n_("{n} head", "{n} heads", total).format(n=i18n.whole(total)),
    )
chart(
    figures.table_heatmap(
        heads.displacement_norms(layer),
        [_("head {head}").format(head=h + 1) for h in range(cfg.n_heads)],
        figures.token_labels(texts, escaped=False),  # table_heatmap escapes them itself
        _("|Δe⁽ʰ⁾| of every token, layer {layer}").format(layer=layer_i + 1),
        fmt=".1f",
        numbers=figures.numbers_fit(tr.n_tokens),
        zmin=0,
        row_title="",
        col_title="",
        words=i18n.words(),  # the tokens name themselves; an axis title would collide with the subtitle
    ),
    "head_norms",
    key="fig_heads_norms",
    layer=layer_i,
)
st.markdown(
    chapter.fill(
        prose["scale"],
        gpt3_heads=gpt3.n_heads,
        gpt3_layers=gpt3.n_layers,
        gpt3_total=i18n.whole(budget.head_count(gpt3.n_layers, gpt3.n_heads)),
    )
)
only = st.toggle(
    _("One head only (head {head})").format(head=head_i + 1),
    help=_("A counterfactual: the other heads switched off."),
    **state.bound("hd_only"),
)
mv = engine.heads_move(view.text, layer_i, head_i if only else None)
moved_by = f"Δe⁽{head_i + 1}⁾" if only else "ΣΔe"
chart(
    figures.moves_figure(
        mv.moves,
        mv.projection.explained,
        labels,
        moved_by,
        _("Where the heads move every token: its {moved}").format(moved=moved_by),
        words=i18n.words(),
    ),
    "heads_move",
    key="fig_heads_move",
    layer=layer_i,
    head=head_i if only else None,
)
e_length = float(np.median(np.linalg.norm(layer.x, axis=-1)))
move_length = float(np.median(mv.lengths))
FITTED = _(  # what every case says first
    "Each arrow is one token's {moved}, what the heads propose to add, drawn from one common start so that the moves "
    "compare. The picture is fitted to the moves themselves, not to the embeddings: its two axes are the directions "
    "along which the heads move these tokens most, and keep {kept} of their squared length."
)
if e_length >= 2 * move_length:
    lengths = _(
        "A picture fitted to the embeddings shows their spread instead, which can dwarf the moves: here a token's |e| "
        "is about {e_length} and its |{moved}| about {move_length}."
    )
elif move_length >= 2 * e_length:
    lengths = _(
        "Here the proposals are longer than the embeddings themselves: a token's |e| is about {e_length} and its "
        "|{moved}| about {move_length}. {after}"
    )
else:
    lengths = _(
        "Here the proposals are about as long as the embeddings themselves: a token's |e| is about {e_length} and its "
        "|{moved}| about {move_length}."
    )
words = dict(
    moved=moved_by,
    kept=i18n.share(mv.projection.explained_total),
    e_length=i18n.num(e_length, 0 if e_length >= 10 else 1),
    move_length=i18n.num(move_length, 1),
    after=architecture.residual_sentence(cfg, cfg.name),
)
st.caption(FITTED.format(**words) + " " + lengths.format(**words))
st.header(_("Heads that share their keys and values"), anchor="heads-that-share-their-keys-and-values")
sharing = heads.key_value_sharing(cfg)
if cfg.n_kv_heads < cfg.n_heads:
    group_of = cfg.kv_head_of(head_i)
    st.markdown(
        chapter.fill(
            prose["grouped"],
            model=cfg.name,
            n_heads=cfg.n_heads,
            kv_heads=n_("{n} key/value head", "{n} key/value heads", cfg.n_kv_heads).format(n=cfg.n_kv_heads),
            size=cfg.group_size,
            groups=i18n.semicolons(
                _("key/value head {kv} → query heads {heads}").format(
                    kv=g + 1, heads=", ".join(str(h + 1) for h in members)
                )
                for g, members in enumerate(sharing.groups)
            ),
            kv=i18n.whole(sharing.kv_weights),
            kv_unshared=i18n.whole(sharing.kv_weights_unshared),
            cache=i18n.whole(sharing.cache_per_token),
            cache_unshared=i18n.whole(sharing.cache_per_token_unshared),
            layers=cfg.n_layers,
            d_head=cfg.d_head,
            sharing=architecture.sharing_name(cfg),
            sharing_note=architecture.sharing_note(cfg),
        )
    )
    members = sharing.groups[group_of]
    shown = chapter.token_window(labels)  # a long sentence: the heatmaps' window of tokens, each named
    for i, h in enumerate(members):
        if i % 2 == 0:  # two by two, each in half the page's width: four side by side were too narrow to read
            columns = chapter.figure_columns(2)
        with columns[i % 2]:
            chapter.half_chart(
                figures.attention_heatmap(
                    chapter.windowed(layer.weights[h], shown),
                    [labels[i] for i in shown],
                    _("Query head {query}, keys of head {kv}").format(query=h + 1, kv=group_of + 1),
                    **chapter.heatmap_room(),
                    words=i18n.words(),
                ),
                f"group_{group_of + 1}_head_{h + 1}",
                key=f"fig_heads_group_{h}",
                layer=layer_i,
                head=h,
            )
    same_keys = all(np.array_equal(layer.k[h], layer.k[members[0]]) for h in members)
    st.caption(
        (
            _(
                "The {n} heads read the very same keys and values (checked: identical); their patterns differ because "
                "each asks its own queries."
            )
            if same_keys
            else _(
                "The {n} heads read the very same keys and values (NOT identical); their patterns differ because each "
                "asks its own queries."
            )
        ).format(n=len(members))
    )
else:
    st.markdown(
        chapter.fill(
            prose["ungrouped"],
            model=cfg.name,
            n_heads=cfg.n_heads,
        )
    )
    st.markdown(
        chapter.fill(
            prose["cache_decoder" if cfg.is_decoder else "cache_encoder"],
            n_heads=cfg.n_heads,
            cache=i18n.whole(sharing.cache_per_token),
            layers=cfg.n_layers,
            d_head=cfg.d_head,
        )
    )
st.header(_("What each head does, and whether it matters"), anchor="what-each-head-does-and-whether-it-matters")
found = engine.roles(view.text, None)
st.markdown(chapter.fill(prose["roles"], model=cfg.name, n_layers=cfg.n_layers, n_heads=cfg.n_heads))
measures = {
    _("previous token"): found.previous_token_share,
    _("first token"): found.first_token_share,
    **({cfg.end_token: found.sep_share} if cfg.end_token else {}),  # the text's closing token, if it has one
    _("self"): found.self_share,
    _("entropy (normalized)"): found.normalized_entropy,
    _("induction"): found.induction_score,
}
chart(
    figures.role_map(found.roles, measures, _("The role of every head"), chosen=(layer_i, head_i), words=i18n.words()),
    "head_roles",
    key="fig_heads_roles",
    text=view.text,
    pick=True,
)
points = (st.session_state.get("fig_heads_roles") or {}).get("selection", {}).get("points", [])
if points and "x" in points[0] and "y" in points[0]:  # a square clicked: x is its head, y its layer (1-based)
    clicked = int(points[0]["y"]), int(points[0]["x"])
    if clicked != (layer_i + 1, head_i + 1) and 1 <= clicked[0] <= cfg.n_layers and 1 <= clicked[1] <= cfg.n_heads:
        state.put("layer", clicked[0])
        state.put("head", clicked[1])
        st.rerun()  # the whole chapter, and the sidebar, on the clicked head
counts = found.counts
st.caption(
    _("{counts} (of {n} heads). Click a head to pick it, here and in the sidebar.").format(
        counts=" · ".join(
            _("{role}: {n}").format(role=figures.role_name(role, words=i18n.words()), n=i18n.whole(n))
            for role, n in counts.items()
            if n
        ),
        n=i18n.whole(cfg.n_layers * cfg.n_heads),
    )
)
chapter.link_explorer(
    _("Open layer {layer} · head {head} in the explorer →").format(layer=layer_i + 1, head=head_i + 1)
)
first_last = float(found.first_token_share.mean())
if cfg.predicts_next_token:
    if np.isnan(found.first_token_share).all():  # too few tokens: no row to measure the first token's share in
        st.markdown(
            _(
                "Decoders park attention on the first token, whatever it is (an attention sink). This text has too "
                "few tokens to measure it (it is measured from the third token on, where the first token is "
                "neither the row's own nor the one before it): type a few more words."
            )
        )
    else:
        last_row_sink = float(view.trace().weights[:, :, -1, 0].mean())
        st.markdown(
            chapter.fill(
                prose["sink"],
                model=cfg.name,
                share=i18n.num(last_row_sink, 3),
                mean=i18n.num(first_last, 2),
                n=len(view.trace().tokens),
            )
        )
    shares, y_title = found.first_token_share, _("mean weight")  # the title says on which token
    shares_title = _("{model}: attention on the first token, by layer").format(model=cfg.name)
else:
    sep_layers = np.nanmean(found.sep_share, axis=1)
    top_layer, top_head = np.unravel_index(np.nanargmax(found.sep_share), found.sep_share.shape)
    st.markdown(
        chapter.fill(
            prose["sep"],
            model=cfg.name,
            top=i18n.num(np.nanmax(sep_layers), 2),
            head_top=i18n.num(found.sep_share[top_layer, top_head], 2),
            head_layer=int(top_layer) + 1,
            head=int(top_head) + 1,
            first=i18n.num(first_last, 2),
            start=cfg.start_token,
            end=cfg.end_token,
        )
    )
    shares, y_title = found.sep_share, _("weight on {token}").format(token=cfg.end_token)
    shares_title = _("{model}: attention on {token}, by layer").format(model=cfg.name, token=cfg.end_token)
chart(
    figures.share_by_layer(shares, shares_title, y_title, words=i18n.words()),
    "share_by_layer",
    key="fig_heads_share",
    text=view.text,
)

st.subheader(
    _("Remove head {head} of layer {layer}").format(head=head_i + 1, layer=layer_i + 1), anchor="remove-a-head"
)
kind = st.radio(
    _("How"),
    ["zero", "uniform"],
    format_func={"zero": _("remove its proposal (Δe = 0)"), "uniform": _("make its pattern uniform")}.get,
    horizontal=True,
    key="w:ko_kind",
)
gone = engine.removed(view.text, layer_i, head_i, kind)


def shown(p: attention.Prediction) -> str:
    """A predicted token as a person reads it (a byte-level "Ġforest" as "␣forest")."""
    return attention.tokens.readable(view.model.tokenizer, p.token, p.id)


if gone.kl_divergence is not None:
    st.markdown(chapter.fill(prose["removed_decoder"], kl=i18n.num(gone.kl_divergence, 4)))
    words = gone.words_before  # text tokens only: a control token or a tag is named, never offered as a word
    table.table(
        {
            _("next token, with every head"): [shown(p) for p in words.text],
            _("probability"): [p.probability for p in words.text],
            _("without the head"): list(gone.words_before_after),
        },
        key="heads_removed",
        label=_("The likeliest next tokens with every head, and without this one"),
    )
    st.caption(
        next_word.text_only(view.model, words.set_apart_share) + " " + next_word.named(view.model, words.set_apart)
    )
else:
    st.markdown(
        chapter.fill(
            prose["removed_encoder"],
            sentence=i18n.num(gone.sentence_cosine, 4),
            lowest=i18n.num(gone.token_cosines.min(), 4),
            token=texts[int(gone.token_cosines.argmin())],
        )
    )
    chart(
        figures.bars(  # 1 − cosine: cosines of 0.996 to 0.999 on a 0-to-1 axis all read as "no change"
            figures.token_labels(texts, escaped=False),  # bars escapes them
            1 - gone.token_cosines,
            _("How far each token's final vector turns without the head: 1 − cosine"),
            _("1 − cosine"),
            text_fmt=".4f",
            words=i18n.words(),
        ),
        "removed_cosines",
        key="fig_heads_removed",
        layer=layer_i,
        head=head_i,
    )

norms = heads.displacement_norms(layer)
chapter.try_this(
    prose,
    layer=layer_i + 1,
    quiet=int(norms.max(axis=1).argmin()) + 1,  # the head whose largest push is the smallest
    loud=int(norms.max(axis=1).argmax()) + 1,
    quiet_top=i18n.num(norms.max(axis=1).min(), 1),
    loud_top=i18n.num(norms.max(), 1),
    **questions.shape_values(cfg, tr.n_tokens),
)
chapter.end()
