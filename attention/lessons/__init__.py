"""The lesson's computations: what the pages work out from the engine's results, one module per idea.

    motivation   why attention: a recurrent network's fading memory
    similarity   how alike two vectors are, and the notes' hand-made embedding mixed by context
    context      one word in two sentences, measured on the real model
    heads        queries versus keys, the low-rank value map, many heads summed
    scaling      why the scores are divided by √d_k
    qk_norm      a second answer: each head's queries and keys normalised (Gemma 3)
    prediction   a decoder predicts every next token of a passage at once
    masking      the notes' worked example of the mask and a column-wise softmax
    window       sliding-window layers: which are local, what a narrower window hides
    position     word order: sinusoidal, learned and rotary positions, shuffled and shifted text
    cross        cross-attention's shapes, on a self-attention head
    budget       where a transformer's parameters are
    geometry     pictures of d_model-dimensional vectors, and who moved toward whom
    head_roles   what each head does, read from its pattern
    knockouts    whether a head matters: the same text run again without it

Each reads a model or a trace from the engine (`attention`) and returns numbers, arrays or a small frozen
dataclass. `import attention` imports none of them.
"""
