"""Chapter 7: many heads, each a proposal, summed; Concat(heads)·W_O equals the sum."""

import streamlit as st

from attention import before_after, heads
from ui import chapter, figures, widgets
from ui import lesson_figures as lf

prose = chapter.begin("07_heads.py")
st.latex(r"\operatorname{MultiHead} = \operatorname{Concat}(\text{head}_1, \dots, \text{head}_h)\, W_O "
         r"= \sum_{h=1}^{H} \text{head}_h\, W_O^{(h)} = \sum_h \Delta e^{(h)}")
view = chapter.sentence_view()
model, cfg, layer_i, head_i = view.model, view.config, view.layer, view.head
tr = view.trace()
layer = tr.layers[layer_i]
texts = [t.text for t in tr.tokens]
labels = figures.token_labels(texts)
st.markdown(prose["sum"])
gap = heads.concat_gap(layer)
m1, m2, m3 = st.columns(3)
m1.metric("max |Σₕ Δe⁽ʰ⁾ − Concat·W_O|", f"{gap:.2e}")
m2.metric(f"{cfg.name}: {cfg.n_heads} heads × {cfg.n_layers} layers", f"{cfg.n_heads * cfg.n_layers:,} heads")
m3.metric("GPT-3: 96 heads × 96 layers", f"{96 * 96:,} heads")
widgets.chart(lf.table_heatmap(heads.displacement_norms(layer), [f"head {h + 1}" for h in range(cfg.n_heads)], labels,
                               f"|Δe⁽ʰ⁾| of every token, layer {layer_i + 1}", fmt=".1f", numbers=tr.n_tokens <= 16,
                               zmin=0, row_title="", col_title="tokens"), "head_norms", key="fig_ch7_norms")
st.markdown(prose["scale"])
only = st.toggle(f"One head only (head {head_i + 1})", key="w:ch7_only", help="A counterfactual: the other heads switched off.")
ba = before_after(layer.x, heads.moved(layer, head_i if only else None))
widgets.chart(figures.before_after_figure(ba.before, ba.after, ba.projection.explained, labels,
                                          after_name=f"e + Δe⁽{head_i + 1}⁾" if only else "e + ΣΔe"),
              "heads_move", key="fig_ch7_move")
widgets.try_this(prose["try"])
chapter.end()
