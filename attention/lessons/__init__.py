"""The lesson's computations: what the pages work out from the engine's results, one module per idea.

    motivation   why attention: a recurrent network's fading memory (chapter 2)
    similarity   how alike two vectors are, the notes' hand-made embedding (chapters 3 to 5)
    context      one word in two sentences, measured on the real model (chapter 4)
    heads        queries versus keys, the low-rank value map, many heads summed (chapters 5, 9, 10)
    scaling      why the scores are divided by √d_k (chapter 6)
    prediction   a decoder predicts every next token at once (chapter 7)
    masking      the notes' worked example of the mask and a column-wise softmax (chapters 7, 8)
    position     word order: learned and rotary positions, shuffled and shifted text (chapter 11)
    cross        cross-attention's shapes on a self-attention head (chapter 12)
    budget       where a transformer's parameters are (chapters 5, 9, 10, 13, 14)
    geometry     pictures of d_model-dimensional vectors, and who moved toward whom (the explorer, 9, 10)
    head_roles   what each head does, read from its pattern (the explorer, chapter 10)
    knockouts    whether a head matters: the run again without it (the explorer, chapter 10)

Each reads a model or a trace from the engine (`attention`) and returns numbers, arrays or a small frozen
dataclass. `import attention` imports none of them.
"""
