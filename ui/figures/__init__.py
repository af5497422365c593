"""Figure builders: plain arrays, token labels and the language's words (`words: Words`, ui/words/locales.py) in, a
plotly Figure out. No Streamlit and no session here: the page gives each figure its language.

base: what they share (escaped labels, token ticks, margins, the figure in one step, a figure made to stand alone);
tokens: the token chips; matrices: heatmaps (an attention matrix, small tables, large matrices); the explorer's
head view: one head's four steps (head_view), its q, k and v (qkv), every head of the layer (heads_grid), with cells
(what a cell prints) and head_meta (what the browser swaps in on a head switch); vectors: 2D pictures of vectors,
and heads_added: what a layer's heads do to a token; charts: lines, histograms, bars (of heads, of next tokens);
reach: a recurrent memory, an attention head's reach, the mask; roles: the map of what each head does; diagrams:
the model as boxes, the encoder beside the decoder, the value chain. Text measuring (text), pixel layout (pixels),
label placing (labels), the matrix layouts (layout), the look (theme, contrast) serve them. The names below are the
ones most pages use; the rest are imported from their module.
"""

from ui.figures.base import numbers_fit, plain, token_labels
from ui.figures.charts import bars, head_norm_bars, histograms, lines
from ui.figures.heads_added import displacement_figure
from ui.figures.matrices import attention_heatmap, big_heatmap, table_heatmap
from ui.figures.reach import mask_matrix
from ui.figures.roles import role_map, role_name, share_by_layer
from ui.figures.tokens import token_chips
from ui.figures.vectors import arrow_chain, before_after_figure, moves_figure, two_vectors

__all__ = [
    "arrow_chain",
    "attention_heatmap",
    "bars",
    "before_after_figure",
    "big_heatmap",
    "displacement_figure",
    "head_norm_bars",
    "histograms",
    "lines",
    "mask_matrix",
    "moves_figure",
    "numbers_fit",
    "plain",
    "role_map",
    "role_name",
    "share_by_layer",
    "table_heatmap",
    "token_chips",
    "token_labels",
    "two_vectors",
]
