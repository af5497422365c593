"""The explorer's last sections run headless (AppTest): the heads' displacement, before → after, the next word.

Each figure is checked against numbers computed here from the engine's trace with numpy: a PCA by SVD, cosine
tables, a softmax of the next-token logits. No network: the decoder is a small random GPT-2 built at test time
and laid out in a temporary Hugging Face cache.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import attention
from app_driver.apptest import array, figure, figures, run_page, table, typed_markup
from attention.tokens import readable
from tests.sentences import FLUFFY
from ui import figures as figures_


def pca(points: np.ndarray) -> np.ndarray:
    """The two principal directions of the points, by numpy's SVD."""
    return np.linalg.svd(points - points.mean(axis=0), full_matrices=False)[2][:2]


def projected(before: np.ndarray, after: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    both = np.vstack([before, after]).astype(np.float64)
    directions, mean = pca(both), both.mean(axis=0)
    return (before - mean) @ directions.T, (after - mean) @ directions.T


def same_up_to_sign(a: np.ndarray, b: np.ndarray, atol: float = 1e-4) -> bool:
    """Each axis equal, or equal flipped (PCA fixes no sign)."""
    return all(np.allclose(a[:, i], b[:, i], atol=atol) or np.allclose(a[:, i], -b[:, i], atol=atol) for i in range(2))


def points(spec: dict, name: str) -> np.ndarray:
    trace = next(t for t in spec["data"] if t.get("name") == name)
    return np.column_stack([array(trace["x"]), array(trace["y"])])


def cosines(m: np.ndarray) -> np.ndarray:
    """Mean-centred, over the tokens shown: every token's drift along one shared direction left out."""
    m = m - m.mean(axis=0)
    unit = m / np.linalg.norm(m, axis=1, keepdims=True)
    return unit @ unit.T


def arrows(spec: dict) -> list[dict]:
    return [a for a in spec["layout"].get("annotations", []) if a.get("showarrow") and a.get("axref") == "x"]


def labels(spec: dict) -> list[str]:
    return [a["text"] for a in spec["layout"].get("annotations", []) if a.get("xref") == "x" and a.get("text")]


# --- before → after ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(("specials", "here"), [("0", False), ("1", False), ("1", True)])
def test_cls_and_sep_count_in_before_after_only_when_shown_there_too(specials, here, model):
    """[CLS] and [SEP] lie far from the words after a layer: the section leaves them out unless asked."""
    at = run_page(specials=specials)
    if here:
        at.toggle(key="w:ba_specials").set_value(True).run()
    assert not at.exception
    shown = specials == "1" and here
    tr = attention.trace(model, FLUFFY)
    layer = tr.layers[0]
    keep = [t.position for t in tr.tokens if shown or not t.is_special]
    spec = figure(at, "Every token, before → after")
    before, after = projected(layer.x[keep], layer.updated[keep])
    assert same_up_to_sign(points(spec, "before"), before) and same_up_to_sign(points(spec, "after"), after)
    named = {a.get("text") for a in spec["layout"]["annotations"]}
    assert set(figures_.token_labels([tr.tokens[i].display for i in keep], keep)) <= named  # every token named

    moved = table(at, "moved_toward")
    names = [tr.tokens[i].display for i in keep]
    assert moved["token"] == [f"{i} · {n}" for i, n in zip(keep, names, strict=True)]
    change = cosines(layer.updated[keep].astype(np.float64)) - cosines(layer.x[keep].astype(np.float64))
    np.fill_diagonal(change, -np.inf)  # a token is not among those it moves toward
    toward = [f"{keep[i]} · {names[i]}" for i in change.argmax(axis=1)]
    assert moved["moved most toward"] == toward
    before_cos = cosines(layer.x[keep].astype(np.float64))[np.arange(len(keep)), change.argmax(axis=1)]
    assert np.allclose(moved["cosine before"], before_cos, atol=1e-5)
    assert np.allclose(np.subtract(moved["cosine after"], moved["cosine before"]), moved["change"])
    shown_specials = any("[CLS]" in t or "[SEP]" in t for t in [*moved["token"], *moved["moved most toward"]])
    assert shown_specials == shown
    # the caption counts what the table shows: the moves toward a neighbour, and the commonest target
    neighbours = sum(abs(i - j) == 1 for j, i in enumerate(change.argmax(axis=1)))
    captions = " ".join(c.value for c in at.caption)
    assert f"Here {neighbours} of the {len(keep)} tokens moved most toward a neighbour" in captions
    targets = list(change.argmax(axis=1))
    most = max(targets.count(t) for t in targets)
    tied = [f"“{names[t]}”" for t in sorted(set(targets)) if targets.count(t) == most]  # every one, where they tie
    assert (f"is {tied[0]}, by {most}." if len(tied) == 1 else f"are {', '.join(tied[:-1])}") in captions
    assert "mean-centred" in captions


def test_the_after_choice_is_in_the_link_and_a_link_reopens_it(model):
    at = run_page(specials="0")
    at.radio(key="w:after").set_value("layer").run()
    assert at.query_params.get("after") in ("layer", ["layer"])

    at = run_page(specials="0", after="layer")
    assert at.radio(key="w:after").value == "layer"
    layer = attention.trace(model, FLUFFY).layers[0]
    keep = [t.position for t in attention.trace(model, FLUFFY).tokens if not t.is_special]
    _, after = projected(layer.x[keep], layer.output[keep])  # after the whole layer, feed-forward included
    assert same_up_to_sign(points(figure(at, "Every token, before → after"), "after"), after)


# --- the heads' displacement -------------------------------------------------------------------------------


def test_displacement_draws_each_head_and_their_sum_and_the_layer_norm_step_on_demand():
    at = run_page()
    fan = figure(at, "How the heads move “creature”")
    assert len(arrows(fan)) == 12  # one per head
    numbers = [t for t in labels(fan) if t.isdigit()]
    assert len(numbers) == len(set(numbers)) and "head 1" in labels(fan)  # each head named at most once
    summed = figure(at, "The heads added up")
    assert len(arrows(summed)) == 13  # the twelve laid tip to tail, and their sum
    assert "e + ΣΔe" in labels(summed)
    assert any("LayerNorm" in a["text"] for a in summed["layout"]["annotations"])
    step = figure(at, "The step after the heads")
    assert {"+ b<sub>O</sub>", "LayerNorm → e′"} <= set(labels(step))  # b_O drawn with its subscript
    assert list(step["data"][0]["text"])[-1] == "e′ = LayerNorm(e + ΣΔe + b<sub>O</sub>)"  # the points' hover names
    assert typed_markup(at) == []

    off = run_page(layernorm="0")
    assert not [t for t in figures(off) if t.startswith("The step after")]
    off.toggle(key="w:layernorm").set_value(True).run()
    assert figure(off, "The step after the heads")
    assert off.query_params.get("layernorm") in (None, [])  # on is the default: the link leaves it out


# --- the next word -----------------------------------------------------------------------------------------


def test_the_next_word_panel_needs_a_decoder():
    at = run_page()
    assert not [t for t in figures(at) if t.startswith("The next token")]
    assert any(
        "is an encoder: it reads the whole sentence at once and has no head that predicts a next word. Only a decoder"
        in c.value
        for c in at.caption
    )
    assert not any("mask" in c.value for c in at.caption if "is an encoder" in c.value)  # ko22: no talk of masks
    (button,) = [b for b in at.button if b.key == "w:next_with_smollm2"]  # the decoder offered in one click
    button.click().run()
    assert at.session_state["model"] == "smollm2" and not at.exception
    assert [t for t in figures(at) if t.startswith("The next token")]


def top_ten(logits: np.ndarray, temperature: float, apart: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The ten likeliest text tokens and their probabilities, softmax(logits / T) computed here, the set-apart ids
    left out and the rest renormalised."""
    z = logits.astype(np.float64) / temperature
    p = np.exp(z - z.max())
    p[apart] = 0
    p /= p.sum()
    best = np.argsort(-p, kind="stable")[:10]
    return best, p[best]


def special_ids(folder) -> list[int]:
    """The ids a Hugging Face tokenizer.json marks special."""
    return [t["id"] for t in json.loads((folder / "tokenizer.json").read_text())["added_tokens"] if t["special"]]


def bars(at) -> tuple[list[str], np.ndarray]:
    spec = figure(at, "The next token after")
    bar = spec["data"][0]
    return list(spec["layout"]["yaxis"]["ticktext"]), array(bar["x"])


def test_the_next_word_on_a_decoder_is_softmax_of_its_logits_over_the_temperature(gpt2_in_cache, tiny_gpt2_folder):
    gpt2 = attention.load_model(str(tiny_gpt2_folder))
    at = run_page(model="gpt2")
    assert not at.exception
    logits = attention.trace(gpt2, FLUFFY).next_logits
    apart = special_ids(tiny_gpt2_folder)  # <|endoftext|>: the bars rank text tokens only, renormalised
    names, shown = bars(at)
    ids, expected = top_ten(logits, 1.0, apart)
    assert len(shown) == 10 and shown.sum() <= 1.0
    assert np.allclose(shown, expected, atol=1e-6)
    assert names == [readable(gpt2.tokenizer, gpt2.vocabulary[i], int(i)) for i in ids]
    assert not any("Ġ" in n for n in names)  # GPT-2's space mark is shown as a space, not as Ġ

    at.select_slider(key="w:temperature").set_value(0.5).run()
    names, shown = bars(at)
    ids, expected = top_ten(logits, 0.5, apart)
    assert np.allclose(shown, expected, atol=1e-6) and shown[0] > top_ten(logits, 1.0, apart)[1][0]  # sharper
    assert at.query_params.get("temperature") in ("0.5", ["0.5"])
    assert names == [readable(gpt2.tokenizer, gpt2.vocabulary[i], int(i)) for i in ids]

    reopened = run_page(model="gpt2", temperature="2")
    assert np.allclose(bars(reopened)[1], top_ten(logits, 2.0, apart)[1], atol=1e-6)


def test_gemma_s_next_word_is_a_text_token_and_the_tag_it_ranks_first_is_explained():
    """Gemma 3 puts 98 % on <start_of_image> after the lesson's sentence: the bars rank text tokens only, each the
    model's probability divided by the text tokens' share, and the caption names the tag and says what it is.
    "Remove this head" lists text tokens too."""
    gemma = attention.load_model("gemma3")
    tr = attention.trace(gemma, FLUFFY)
    p = np.exp(tr.next_logits.astype(np.float64) - tr.next_logits.max())
    p /= p.sum()
    at = run_page(model="gemma3", text=FLUFFY)
    names, shown = bars(at)
    assert "<start_of_image>" not in names and not any(n.startswith("<") and n.endswith(">") for n in names)
    image = gemma.vocabulary.index("<start_of_image>")
    text_share = 1 - p[gemma.token_kinds != 0].sum()
    ids = [gemma.vocabulary.index(n.replace("␣", "▁").replace("↵", "\n")) for n in names]
    assert np.allclose(shown, p[ids] / text_share, atol=1e-6)
    captions = " ".join(c.value for c in at.caption)
    assert "`<start_of_image>` takes 98.2%: it is a tag the tokenizer keeps whole" in captions
    assert "text tokens only" in captions and p[image] == pytest.approx(0.982, abs=1e-3)
    at.toggle(key="w:remove_True").set_value(True).run()
    removed = next(c.value for c in at.caption if c.value.startswith("Without it"))
    assert "renormalised over text tokens" in removed and "<start_of_image>" not in removed
    assert f"`{names[0]}` {shown[0]:.1%}" in removed


def test_a_decoders_displacement_says_there_is_no_norm_after_the_heads(gpt2_in_cache):
    at = run_page(model="gpt2")
    summed = figure(at, "The heads added up")
    notes = [a["text"].replace("<br>", " ") for a in summed["layout"]["annotations"]]  # wrapped to the figure
    assert any("no norm on the residual stream" in note for note in notes)
    step = figure(at, "The step after the heads")
    assert "+ b<sub>O</sub>" in labels(step) and list(step["data"][0]["text"]) == [
        "e",
        "e + ΣΔe",
        "e + ΣΔe + b<sub>O</sub>",
    ]


def test_a_model_without_bias_or_norm_after_its_heads_shows_no_empty_step():
    """SmolLM2 adds ΣΔe and nothing else: no switch, no empty picture, a line that says so."""
    at = run_page(model="smollm2")
    assert not [t for t in figures(at) if t.startswith("The step after")]
    assert not [t for t in at.toggle if t.key == "w:layernorm"]
    assert any("e′ = e + ΣΔe" in c.value and "no bias" in c.value for c in at.caption)


def followed(tr: attention.Trace, word: str) -> int:
    """The position of the token that reads `word` (SentencePiece's ▁ and GPT-2's Ġ before it left out)."""
    return next(t.position for t in tr.tokens if t.text.lstrip("▁Ġ") == word)


def test_gemma_s_step_after_the_heads_is_its_second_norm():
    """Gemma computes e′ = e + RMSNorm(ΣΔe): one step from e to e′, as long as RMSNorm(ΣΔe), computed here from the
    layer's own gains; e + ΣΔe is no point Gemma reaches, so it is drawn apart, named as never added."""
    from attention import ops

    at = run_page(model="gemma3")
    step = figure(at, "The step after the heads")
    assert list(step["data"][0]["text"]) == ["e", "e′ = e + RMSNorm(ΣΔe)", "ΣΔe, not added"]
    assert "+ ΣΔe" not in labels(step) and "+ RMSNorm(ΣΔe) → e′" in labels(step)
    summed = figure(at, "The heads added up")
    assert "ΣΔe" in labels(summed) and "e + ΣΔe" not in labels(summed)
    gemma = attention.load_model("gemma3")
    tr = attention.trace(gemma, FLUFFY)
    layer, j = tr.layers[0], followed(tr, "creature")
    delta = np.einsum("hi,hid,hde->e", layer.weights[:, j], layer.v, layer.w_o_heads, dtype=np.float64)
    moved = ops.rms_norm(delta, gemma.layers[0].norm_attention_out.gamma, gemma.config.norm_eps)
    lengths = next(c.value for c in at.caption if "Each arrow's length" in c.value)
    assert f"+ RMSNorm(ΣΔe) → e′: {np.linalg.norm(moved):.2f}" in lengths
    assert f"ΣΔe before its RMSNorm, never added: {np.linalg.norm(delta):.2f}" in lengths
    latex = "\n".join(e.value for e in at.get("latex"))
    assert r"\operatorname{RMSNorm}_q" in latex and r"\sqrt{640}\,W_E[t_i]" in latex
    assert r"e_j + \operatorname{RMSNorm}\Big(\sum_h" in latex


@pytest.mark.parametrize(
    ("name", "steps", "tip"),
    [
        # BERT, post-norm: + ΣΔe, + b_O, then LayerNorm around the sum
        (
            "all-MiniLM-L6-v2",
            ["e", "e + ΣΔe", "e + ΣΔe + b<sub>O</sub>", "e′ = LayerNorm(e + ΣΔe + b<sub>O</sub>)"],
            "e + ΣΔe",
        ),
        ("smollm2", None, "e + ΣΔe"),  # pre-norm, no bias: e′ = e + ΣΔe, no step to draw
        ("gemma3", ["e", "e′ = e + RMSNorm(ΣΔe)", "ΣΔe, not added"], "ΣΔe"),  # sandwich: the sum normalised first
    ],
)
def test_each_models_words_for_the_step_after_the_heads_follow_its_norm_position(name, steps, tip):
    cfg = attention.load_model(name).config
    at = run_page(model=name)
    assert not at.exception
    words = {"post": "LayerNorm", "pre": "e′ = e + ΣΔe", "sandwich": "normalised before it is added"}
    summed = figure(at, "The heads added up")
    notes = " ".join(a["text"].replace("<br>", " ") for a in summed["layout"]["annotations"])
    assert words[cfg.norm_position] in notes or words[cfg.norm_position] in " ".join(c.value for c in at.caption)
    assert tip in labels(summed)
    drawn = [t for t in figures(at) if t.startswith("The step after")]
    if steps is None:
        assert not drawn and cfg.norm_position == "pre" and not cfg.has_bias("o")
    else:
        assert list(figure(at, "The step after the heads")["data"][0]["text"]) == steps
    # the tip-to-tail caption says where the arrows end as the model computes it
    ends = next(c.value for c in at.caption if "laid tip to tail" in c.value)
    assert ("they end at e + ΣΔe" in ends) == (cfg.norm_position != "sandwich")


def test_the_heads_prose_says_which_maps_each_head_has_of_its_own():
    """From n_kv_heads against n_heads: MiniLM's 12 heads have all three; SmolLM2's 9 share W_K and W_V by groups of
    3; Gemma's 4 share one pair."""

    def prose(at) -> str:
        return " ".join(m.value for m in at.markdown)

    assert "Each has its own $W_Q$, $W_K$ and $W_V$." in prose(run_page())
    smollm2 = prose(run_page(model="smollm2"))
    assert "shared by each group of 3 heads" in smollm2 and "$W_K$ and $W_V$." not in smollm2
    assert "while all 4 share one $W_K$ and one $W_V$" in prose(run_page(model="gemma3"))


def test_the_default_followed_token_is_the_last_word_not_the_full_stop(model):
    """As the README says: the last word, not the full stop after it (nor [SEP])."""
    text = "The old lighthouse keeper climbed the stairs every night."
    at = run_page(text=text)
    box = next(s for s in at.selectbox if s.key == "w:token_follow")
    tokens = attention.trace(model, text).tokens
    assert tokens[-2].text == "." and tokens[box.value].text == "night"


def test_the_explorer_writes_each_models_own_equations_and_names_shared_heads():
    """Equations read from the config: BERT adds positions and biases; SmolLM2 rotates q and k, has no biases,
    normalizes with RMSNorm before attention and shares 3 key/value heads among 9 query heads."""
    encoder = "\n".join(e.value for e in run_page().get("latex"))
    assert r"P_i + T_0" in encoder and "b_Q" in encoder and "R_i" not in encoder
    at = run_page(model="smollm2")
    decoder = "\n".join(e.value for e in at.get("latex"))
    assert r"R_i(\hat e_i W_Q)" in decoder and "b_Q" not in decoder and "P_i" not in decoder  # row vectors
    assert r"\operatorname{RMSNorm}(e)" in decoder and r"\operatorname{RMSNorm}_f" in decoder
    assert any("heads 4–6 read key/value head 2" in c.value for c in at.caption)
    grid = figures(at)[next(t for t in figures(at) if t.startswith("All 9 heads"))]
    names = [a["text"] for a in grid["layout"]["annotations"] if a["text"].startswith("head ")]
    assert len(names) == 9 and any(" · " in n for n in names)  # the heads that have a role name it
