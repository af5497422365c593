"""Words about a model, from its fields: the one place that turns a config's field values into the sentences,
labels and LaTeX a page shows (positions, norm kind and place, biases, MLP, mask and sliding window, key/value
sharing, special tokens, QK-norm, embedding scale). A value it does not know raises, so that a new family is
never described as an old one: add its words here first. Pages and figures never name a family; they ask this
package what the loaded model does.

fields: a field's value looked up, the norm named; tokens: tokens and embeddings; heads: q, k, v, the scores, the
mask; after: the step after the heads, the block, the output; parts: the diagram, the parameter table, the gap to
GPT-2's calculator.
"""

from ui.words.architecture.after import (  # noqa: F401
    BIAS_STEP,
    Step,
    after_heads_latex,
    after_heads_note,
    after_heads_sentence,
    after_heads_steps,
    after_heads_toggle,
    attention_step_name,
    block_sentence,
    has_norm_after_heads,
    has_step_after_heads,
    heads_sum_tip,
    mlp_name,
    output_sentence,
    residual_sentence,
    unadded_sum,
)
from ui.words.architecture.fields import (  # noqa: F401
    a_norm,
    norm_latex,
    norm_name,
    pick,
)
from ui.words.architecture.heads import (  # noqa: F401
    grown_input_label,
    grown_input_words,
    head_end_label,
    heads_input_latex,
    mask_names,
    mask_sentence,
    projections_sentence,
    qk_norm_sentence,
    qkv_latex,
    reads_words,
    scores_sentence,
    sharing_name,
    stacked_words,
    value_latex,
    value_words,
)
from ui.words.architecture.parts import (  # noqa: F401
    BIAS_NAMES,
    biases_clause,
    budget_row,
    distance_enters,
    gap_sentence,
    part_words,
    pipeline_latex,
    positions_noun,
    sharing_note,
    window_clause,
)
from ui.words.architecture.tokens import (  # noqa: F401
    added_tokens_sentence,
    embedding_latex,
    pieces_sentence,
    positions_sentence,
    scale_sentence,
    special_tokens,
    specials_aside,
    specials_named,
)
