"""Chapter 11: without positions attention cannot see order; sinusoidal, learned and rotary positions."""

import numpy as np
import streamlit as st

from attention.lessons import position, questions_chapters_11_to_14
from ui import figures
from ui.kit import chapter, questions
from ui.kit.chart import chart
from ui.session import engine, models, state
from ui.words import architecture, i18n
from ui.words.i18n import _


def in_code(text: str) -> str:
    """A token in the prose, as a code span: what a sentence holds is never read as Markdown."""
    return "`" + " ".join(text.split()).replace("`", "ˋ") + "`"


def shuffle_question(exp: position.Shuffle, layer_i: int, head_i: int, shown: list[int], on: bool) -> dict | None:
    """The places of the computed question on the shuffle: two tokens of the drawn window, where the shuffle puts
    them, and the weights a student may answer, written alike (None where the shuffle moved no two tokens)."""
    text = [i for i in shown if not exp.original.tokens[i].is_special]
    words = [i for i in text if any(c.isalnum() for c in exp.original.tokens[i].display)]  # not a lone space or comma
    text_places = words if len(words) > 1 else text
    pair = questions_chapters_11_to_14.shuffle_pair(
        exp.original.layers[layer_i].weights[head_i],
        exp.unshuffled_weights(layer_i)[head_i],
        exp.order,
        text_places,
        on,
    )
    if pair is None:
        return None
    names = figures.token_labels([t.display for t in exp.original.tokens], escaped=False)
    weights = ("weight_moved", "weight_places", "weight_swapped", "weight_other")
    return dict(
        layer=layer_i + 1,
        head=head_i + 1,
        first=in_code(names[pair.i]),
        second=in_code(names[pair.j]),
        i=pair.i,
        j=pair.j,
        p=pair.p,
        q=pair.q,
        **{name: i18n.num(v, pair.digits) for name, v in zip(weights, pair.options.values, strict=True)},
    )


prose = chapter.begin("11_position.py")
st.latex(r"PE_{(p,\,2i)} = \sin\!\big(p / 10000^{2i/d}\big), \qquad PE_{(p,\,2i+1)} = \cos\!\big(p / 10000^{2i/d}\big)")
view = chapter.sentence_view()
model, cfg, layer_i, head_i = view.model, view.config, view.layer, view.head
positions = architecture.positions_noun(cfg)  # what carries word order: the switch and the titles name it
st.markdown(chapter.fill(prose["blind"], positions=positions))
if cfg.is_decoder:
    st.markdown(prose["decoder"])
c1, c2 = st.columns(2)
seed = c1.slider(_("Shuffle"), 0, 20, **state.bound("pos_shuffle"))
with_positions = c2.toggle(
    positions.capitalize(),
    help=_("Off is the counterfactual: the model was trained with them."),
    **state.bound("pos_embeddings"),
)
try:
    exp = engine.on_model(position.shuffle_experiment, view.text, seed, with_positions)
except ValueError:  # a sentence with nothing to read: empty, or only spaces and unprintable characters
    st.info(_("The sentence in the sidebar holds nothing to read: type one with letters, digits or symbols."))
    models.stop()
labels = figures.token_labels([t.display for t in exp.original.tokens])
if with_positions:
    original_title, unshuffled_title = _("Original order"), _("Shuffled, put back")
else:  # the counterfactual, in the titles
    original_title = _("Original order, {positions} off").format(positions=positions)
    unshuffled_title = _("Shuffled, put back, {positions} off").format(positions=positions)
shuffled = [exp.original.tokens[i].display for i in exp.order]
st.caption(_("The shuffled sentence, as tokens:"))
st.code(" · ".join(shuffled), language=None, wrap_lines=True)  # a long sentence wraps, at any zoom
shown = chapter.token_window(labels)  # a long sentence: the heatmaps' window of tokens, each named
left, right = chapter.figure_columns(2)
with left:
    chapter.half_chart(
        figures.attention_heatmap(
            chapter.windowed(exp.original.layers[layer_i].weights[head_i], shown),
            [labels[i] for i in shown],
            original_title,
            **chapter.heatmap_room(),
            words=i18n.words(),
        ),
        "original",
        key="fig_position_original",
        layer=layer_i,
        head=head_i,
    )
with right:
    chapter.half_chart(
        figures.attention_heatmap(
            chapter.windowed(exp.unshuffled_weights(layer_i)[head_i], shown),
            [labels[i] for i in shown],
            unshuffled_title,
            **chapter.heatmap_room(),
            words=i18n.words(),
        ),
        "unshuffled",
        key="fig_position_unshuffled",
        layer=layer_i,
        head=head_i,
    )
st.metric(_("max difference, all heads of this layer"), i18n.sci(exp.gap(layer_i), 2))

st.header(_("Sinusoidal positions (the original paper)"), anchor="sinusoidal-positions-the-original-paper")
st.markdown(prose["sinusoid"])
c1, c2 = st.columns(2)
n_pos = c1.slider(_("positions"), 8, 256, **state.bound("pos_n"))
d = c2.select_slider("d_model", state.SINUSOID_WIDTHS, **state.bound("pos_d"))
chart(
    figures.big_heatmap(
        position.sinusoidal_encoding(n_pos, d), _("Sinusoidal encoding"), _("dimension"), _("position")
    ),
    "sinusoidal",
    key="fig_position_sin",
)
if cfg.positions == "rotary":
    st.header(_("Rotary positions (the loaded model)"), anchor="rotary-positions-the-loaded-model")
    base = cfg.rope_base_of(layer_i)  # Gemma 3 turns its sliding-window layers with a smaller base
    st.markdown(chapter.fill(prose["rotary"], model=cfg.name, pairs=cfg.d_head // 2, base=i18n.whole(round(base))))
    if cfg.rope_base_local and cfg.rope_base_local != cfg.rope_base:
        st.caption(
            _(
                "{model} turns with base {local} on its sliding-window layers and {whole} on its global ones: the "
                "formula and the picture are layer {layer}'s."
            ).format(
                model=cfg.name,
                local=i18n.whole(round(cfg.rope_base_local)),
                whole=i18n.whole(round(cfg.rope_base)),
                layer=layer_i + 1,
            )
        )
    st.latex(
        r"\begin{pmatrix} q'_i \\ q'_{i+d/2} \end{pmatrix} = "
        r"\begin{pmatrix} \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i \end{pmatrix}"
        r"\begin{pmatrix} q_i \\ q_{i+d/2} \end{pmatrix}, \quad \theta_i = \operatorname{base}^{-2i/d_{\text{head}}}"
        r"\qquad (R_m q)\cdot(R_n k) = q \cdot R_{n-m}\, k"
    )
    chart(
        figures.big_heatmap(
            np.cos(position.rotary_angles(n_pos, cfg.d_head, base)),
            _("{model}: cos(position × θᵢ), the turn of each pair of q and k").format(model=cfg.name),
            _("pair i of a head's coordinates"),
            _("position"),
        ),
        "rotary",
        key="fig_position_rotary",
        layer=layer_i,
        text="",
    )
else:
    st.header(_("Learned positions (the loaded model)"), anchor="learned-positions-the-loaded-model")
    n_learned = min(n_pos, model.embeddings.position.shape[0])
    st.markdown(chapter.fill(prose["learned"], model=cfg.name, rows=i18n.whole(model.embeddings.position.shape[0])))
    left, right = chapter.figure_columns(2)
    with left:
        chart(
            figures.big_heatmap(
                model.embeddings.position[:n_learned],
                _("{model}: position embeddings").format(model=cfg.name),
                _("dimension"),
                _("position"),
            ),
            "learned",
            key="fig_position_learned",
            share=chapter.figure_share(0.5),
        )
    with right:
        chart(
            figures.big_heatmap(
                engine.on_model(position.position_similarity, n_learned),
                _("Cosine similarity between positions"),
                _("position"),
                _("position"),
            ),
            "learned_cosine",
            key="fig_position_cos",
            share=chapter.figure_share(0.5),
        )

st.header(_("The same sentence, further along"), anchor="the-same-sentence-further-along")
st.markdown(prose["rotary_shift" if cfg.positions == "rotary" else "learned_shift"])
shift = st.slider(_("Shift every position by"), 0, 256, **state.bound("pos_shift"))
moved = engine.shifted(view.text, shift)
shift_labels = figures.token_labels([t.display for t in moved.original.tokens])
shift_shown = chapter.token_window(shift_labels) if len(shift_labels) != len(labels) else shown  # the same window
left, right = chapter.figure_columns(2)
# both on one colour scale, so that a colour means the same score in each
shown_scores = [tr.layers[0].scores[head_i] for tr in (moved.original, moved.shifted)]
shared_top = max(float(np.abs(s[np.isfinite(s)]).max(initial=0.0)) for s in shown_scores) or None
# keyed by side, not by start: a shift of 0 starts both at position 0
for col, tr, start, side in ((left, moved.original, 0, "original"), (right, moved.shifted, moved.shift, "shifted")):
    with col:
        chapter.half_chart(
            figures.attention_heatmap(
                chapter.windowed(tr.layers[0].scores[head_i], shift_shown),
                [shift_labels[i] for i in shift_shown],
                _("Scores q·k at positions {start}…").format(start=start),
                kind="scores",
                **chapter.heatmap_room(),
                scale_top=shared_top,
                words=i18n.words(),
            ),
            f"scores_{side}",
            layer=0,
            head=head_i,
        )
changed_head, change, head_top = moved.largest_change(0)
st.metric(
    _("largest change of one layer-1 score q·k, shifted by {shift}").format(shift=moved.shift),
    i18n.sci(change, 1),
    help=_("Layer 1 reads the embeddings directly, so this compares what positions alone do to q·k."),
)
st.caption(
    _(
        "The largest |Δ(q·k)| over every query–key pair of all {n} heads of layer 1, found in head {head}. A raw score "
        "q·k has no unit: it is a dot product, before the division by √dₖ and the softmax. For scale, the largest "
        "|q·k| of head {head} before the shift is {top}."
    ).format(n=cfg.n_heads, head=changed_head + 1, top=i18n.num(head_top, 1))
)
shuffled_question = shuffle_question(exp, layer_i, head_i, shown, with_positions)
left_out = {  # questions this sentence cannot ask: no two tokens moved; one token, whose shapes would read alike
    "quiz_2": shuffled_question is None,
    "quiz_shapes": exp.original.n_tokens < 2,
}
chapter.try_this(
    {key: text for key, text in prose.items() if not left_out.get(key)},
    positions=positions,
    **(shuffled_question or {}),
    **questions.shape_values(cfg, exp.original.n_tokens),
)
chapter.end()
