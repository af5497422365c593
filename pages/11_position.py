"""Chapter 11: without positions attention cannot see order; sinusoidal, learned and rotary positions."""

import numpy as np
import streamlit as st

from attention.lessons import position
from ui import architecture, chapter, engine, figures, state, widgets

prose = chapter.begin("11_position.py")
st.latex(r"PE_{(p,\,2i)} = \sin\!\big(p / 10000^{2i/d}\big), \qquad PE_{(p,\,2i+1)} = \cos\!\big(p / 10000^{2i/d}\big)")
view = chapter.sentence_view()
model, cfg, layer_i, head_i = view.model, view.config, view.layer, view.head
st.markdown(chapter.fill(prose["blind"], positions=architecture.positions_noun(cfg)))
if cfg.is_decoder:
    st.markdown(prose["decoder"])
c1, c2 = st.columns(2)
seed = c1.slider("Shuffle", 0, 20, **state.bound("pos_shuffle"))
with_positions = c2.toggle(
    architecture.positions_noun(cfg).capitalize(),
    help="Off is the counterfactual: the model was trained with them.",
    **state.bound("pos_embeddings"),
)
try:
    exp = engine.shuffle(view.text, seed, with_positions)
except ValueError as exc:
    st.info(str(exc))
    engine.stop()
labels = figures.token_labels([t.display for t in exp.original.tokens])
positions = "" if with_positions else f", {architecture.positions_noun(cfg)} off"  # the counterfactual, in titles
shuffled = [exp.original.tokens[i].display for i in exp.order]
st.caption("The shuffled sentence, as tokens:")
st.code(" · ".join(shuffled), language=None)
left, right = st.columns(2)
with left:
    chapter.half_chart(
        figures.attention_heatmap(
            exp.original.layers[layer_i].weights[head_i],
            labels,
            f"Original order{positions}",
            half_width=True,
        ),
        "original",
        key="fig_position_original",
        layer=layer_i,
        head=head_i,
    )
with right:
    chapter.half_chart(
        figures.attention_heatmap(
            exp.unshuffled_weights(layer_i)[head_i],
            labels,
            f"Shuffled, put back{positions}",
            half_width=True,
        ),
        "unshuffled",
        key="fig_position_unshuffled",
        layer=layer_i,
        head=head_i,
    )
st.metric("max difference, all heads of this layer", f"{exp.gap(layer_i):.2e}")

st.header("Sinusoidal positions (the original paper)")
st.markdown(prose["sinusoid"])
c1, c2 = st.columns(2)
n_pos = c1.slider("positions", 8, 256, **state.bound("pos_n"))
d = c2.select_slider("d_model", state.SINUSOID_WIDTHS, **state.bound("pos_d"))
widgets.chart(
    figures.big_heatmap(position.sinusoidal_encoding(n_pos, d), "Sinusoidal encoding", "dimension", "position"),
    "sinusoidal",
    key="fig_position_sin",
)
if cfg.positions == "rotary":
    st.header("Rotary positions (the loaded model)")
    st.markdown(chapter.fill(prose["rotary"], model=cfg.name, pairs=cfg.d_head // 2, base=f"{cfg.rope_base:,.0f}"))
    st.latex(
        r"\begin{pmatrix} q'_i \\ q'_{i+d/2} \end{pmatrix} = "
        r"\begin{pmatrix} \cos p\theta_i & -\sin p\theta_i \\ \sin p\theta_i & \cos p\theta_i \end{pmatrix}"
        r"\begin{pmatrix} q_i \\ q_{i+d/2} \end{pmatrix}, \quad \theta_i = \mathrm{base}^{-2i/d_{head}}"
        r"\qquad (R_m q)\cdot(R_n k) = q \cdot R_{n-m}\, k"
    )
    widgets.chart(
        figures.big_heatmap(
            np.cos(position.rotary_angles(n_pos, cfg.d_head, cfg.rope_base)),
            f"{cfg.name}: cos(position × θᵢ), the turn of each pair of q and k",
            "pair i of a head's coordinates",
            "position",
        ),
        "rotary",
        key="fig_position_rotary",
        text="",
    )
else:
    st.header("Learned positions (the loaded model)")
    n_learned = min(n_pos, model.embeddings.position.shape[0])
    st.markdown(chapter.fill(prose["learned"], model=cfg.name, rows=f"{model.embeddings.position.shape[0]:,}"))
    left, right = st.columns(2)
    with left:
        widgets.chart(
            figures.big_heatmap(
                model.embeddings.position[:n_learned], f"{cfg.name}: position embeddings", "dimension", "position"
            ),
            "learned",
            key="fig_position_learned",
        )
    with right:
        widgets.chart(
            figures.big_heatmap(
                engine.position_similarity(n_learned), "Cosine similarity between positions", "position", "position"
            ),
            "learned_cosine",
            key="fig_position_cos",
        )

st.header("The same sentence, further along")
st.markdown(prose["rotary_shift" if cfg.positions == "rotary" else "learned_shift"])
shift = st.slider("Shift every position by", 0, 256, **state.bound("pos_shift"))
moved = engine.shifted(view.text, shift)
shift_labels = figures.token_labels([t.display for t in moved.original.tokens])
left, right = st.columns(2)
for col, tr, where in ((left, moved.original, "positions 0…"), (right, moved.shifted, f"positions {moved.shift}…")):
    with col:
        chapter.half_chart(
            figures.attention_heatmap(
                tr.layers[0].scores[head_i], shift_labels, f"Scores q·k at {where}", kind="scores", half_width=True
            ),
            f"scores_at_{where.split()[-1].rstrip('…')}",
            layer=0,
            head=head_i,
        )
st.metric(
    f"change in layer 1's scores, all {cfg.n_heads} heads, shifted by {moved.shift}",
    f"{moved.gap(0):.1e}",
    help="Layer 1 reads the embeddings directly, so this compares what positions alone do to q·k.",
)
chapter.try_this(prose, positions=architecture.positions_noun(cfg))
chapter.end()
