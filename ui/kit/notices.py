"""What a page says about the text and the link before its figures: a text the model cannot read, a text cut
to the part it reads, a link's value that could not be used; and prose that presenter mode hides."""

from __future__ import annotations

import streamlit as st

import attention
import attention.tokens
from ui.kit.choices import choose_model, short_label
from ui.session import engine, models, opening, state
from ui.words import i18n
from ui.words.i18n import _

UNREAD = 0.5  # the share of a text's words a tokenizer cannot read as characters past which the page says so
# Words that mark a Latin-script text as written in another language than English, and English ones against them:
# the commonest small words of French, Spanish, Portuguese, Italian, German and Dutch, none of them an English word.
# A text reads as "not English" when it has more of these (a letter English does not write counts as one) than
# English small words, so that an English-only model's page can say it was not trained on it. A guess on a
# sentence's words, no dependency: a name or a loan word ("café") does not tip an English sentence.


def _words(line: str) -> frozenset[str]:
    return frozenset(line.split())


OTHER_WORDS = _words(
    # French
    "le la les un une des du et est dans sur pour par avec qui que ne pas il elle nous vous ils au aux ce cette son "
    "sa ses mon ma mes était sont "
    # Spanish, Portuguese, Italian
    "el los las y es en del con por para una unos se lo su sus fue muy pero como más o um uma os da do não são "
    "il lo gli della di che è sono per non nel "
    # German, Dutch
    "der die das und ist ein eine nicht mit auf für von dem den sich auch het een van en niet zijn ook"
)
ENGLISH_WORDS = _words(
    "the a an and is are was were of in on for by with who that not it he she we you they this his her my"
)
OTHER_LETTERS = frozenset("éèêëàâîïôûùçñáíóúãõäöüßœæøåìò¿¡")


def looks_not_english(text: str) -> bool:
    """Whether a Latin-script text reads as written in another language than English (OTHER_WORDS): more of its
    marks than English small words."""
    words = [w.strip('.,;:!?«»"()¿¡').lower() for w in text.replace("'", " ").replace("’", " ").split()]
    other = sum((w in OTHER_WORDS and w not in ENGLISH_WORDS) or bool(OTHER_LETTERS & set(w)) for w in words)
    english = sum(w in ENGLISH_WORDS for w in words)
    return other >= 2 and other > english


def unread_notice(model: attention.Model, text: str) -> None:
    """When the model reads most of the text's words only as unknown or byte pieces (a Korean sentence in
    MiniLM's jamo or SmolLM2's bytes), or reads English only and the text is in another language, say so, and offer, in one
    click, a model whose tokenizer reads it."""
    share = engine.unread_share(text)
    options = models.choices()
    current = options.get(model.config.name)
    if share is None or (current is not None and current.multilingual) or models.reads_many_languages():
        return
    if share >= UNREAD:
        pieces = {  # what an unread word comes out as, by how the tokenizer spells its pieces
            "wordpiece": _(
                "unknown tokens ([UNK]) or pieces smaller than its letters (a Korean syllable, for one, cut into its jamo)"
            ),
            "byte_level": _("pieces of the bytes that encode its letters"),
            "sentencepiece": _("pieces of the bytes that encode its letters (<0xE2>)"),
        }[attention.tokens.spelling(model.tokenizer)]
        said = _(
            "{model} cannot read this text: {share} of its words come out as {pieces}, so what it computes says "
            "little about the sentence."
        ).format(model=model.config.name, share=i18n.share(share), pieces=pieces)
    elif looks_not_english(text):
        said = _(
            "{model} was trained on English text only: it reads this sentence, which is not English, as pieces of "
            "English words, so its attention here says less about the sentence than a model trained on its "
            "language would."
        ).format(model=model.config.name)
    else:
        return
    reader = next((c for c in options.values() if c.available and c.multilingual), None)
    with st.container(border=True):
        st.warning(
            said
            + " "
            + (
                _("**{model}** reads it.").format(model=short_label(reader))
                if reader
                else _("No model on this server reads it.")
            )
        )
        if reader is not None:
            st.button(
                _("Read it with {model}").format(model=short_label(reader)),
                on_click=choose_model,
                args=(reader.name,),
                key="w:unread",
            )


def cut_notice() -> None:
    """Say that the sentence was cut, for as long as the cut text is the one shown."""
    cut = st.session_state.get(opening.CUT)
    if cut is not None and cut.kept == state.get("text"):
        st.warning(cut.message)


def url_notices() -> None:
    """Say which values of the link could not be used (each once)."""
    for name in state.take_notices():
        st.warning(_("The link's **{name}** value could not be used here, so the default is shown.").format(name=name))


def explanation(text: str, hidden: bool, caption: bool = False) -> None:
    """Prose (a caption where `caption`), or where presenter mode hides it an empty element in its place: the
    elements after it keep their places on the page, so that switching presenter mode does not mount every chart
    below afresh, and draw it again."""
    if hidden:
        st.empty()
    elif caption:
        st.caption(text)
    else:
        st.markdown(text)
