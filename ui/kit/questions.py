"""A chapter's questions: three at its end (its prose's `quiz`, `quiz_2` and `quiz_shapes` sections), each answered in
the page, checked, and explained; a wrong answer may be tried again before the answer is shown.

The options' order follows from the link (the sentence, the model, the chapter and the question), so that a class
that opens one link sees one order, while the right option's place changes from one question and one sentence to
the next. The answers a student gave go into the link only while the student's switch says to share them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from dataclasses import dataclass

import streamlit as st

from attention import ModelConfig
from ui.session import state
from ui.words import chapters, i18n
from ui.words.i18n import _
from ui.words.prose import fill

SECTIONS = ("quiz", "quiz_2", "quiz_shapes")  # in the order the page asks them
ASKED = "_asked"  # this run's questions as the page asked them (its chapter's file, the questions), for a worksheet
NOTATION = "_notation"  # the notes' notation as this run said it before a shapes question
ANSWER = re.compile(r"^(\d+)\.(\d+):(\d+)$")  # chapter.question:option, the option as the prose lists it


@dataclass(frozen=True)
class Quiz:
    """A question with one right choice, and the line that explains it."""

    question: str
    options: tuple[str, ...]
    answer: int  # index of the right option
    why: str


@dataclass(frozen=True)
class Asked:
    """A question as a page asked it: its options in the order shown, the right one and why."""

    number: int
    question: str
    options: tuple[str, ...]
    order: tuple[int, ...]  # the options' places in the order the page shows them
    answer: int
    why: str
    shapes: bool  # a question in the notes' notation, said just before it


def asked(session, file: str | None = None) -> tuple[Asked, ...]:
    """The questions the session's last chapter asked (only if it is `file`, when given)."""
    kept = session[ASKED] if ASKED in session else None  # noqa: SIM401 (a headless run's state has no get)
    if kept is None or (file is not None and kept[0] != file):
        return ()
    return tuple(kept[1])


def notation_of(session) -> str:
    return session[NOTATION] if NOTATION in session else ""  # noqa: SIM401


def quiz(markdown: str) -> Quiz:
    """Read a question written as: its text, then `- [ ] option` lines with one `- [x] option`, then the
    explanation."""
    question, options, why, answer = [], [], [], None
    for line in markdown.splitlines():
        m = re.match(r"- \[( |x)\] (.+)", line.strip())
        if m:
            if m.group(1) == "x":
                answer = len(options)
            options.append(m.group(2).strip())
        elif line.strip():
            (why if options else question).append(line.strip())
    if answer is None or len(options) < 2 or not question or not why:
        raise ValueError(f"A quiz needs a question, two options or more with one marked [x], and a why: {markdown!r}")
    return Quiz(" ".join(question), tuple(options), answer, " ".join(why))


def order(q: Quiz, seed: str) -> list[int]:
    """The options' places, drawn from the seed (what the link names) and each option's place in the prose, not
    its words: the same link gives the same order in every language."""
    return sorted(range(len(q.options)), key=lambda i: hashlib.sha1(f"{seed}\n{i}".encode()).digest())


def shape_values(cfg: ModelConfig, n_tokens: int) -> dict[str, object]:
    """The sizes a shapes question names, in the notes' notation: C tokens of E numbers each, and the heads'."""
    return dict(
        C=n_tokens,
        E=cfg.d_model,
        H=cfg.n_heads,
        D=cfg.d_head,
        KV=cfg.n_kv_heads,
        HD=cfg.n_heads * cfg.d_head,
        V=i18n.whole(cfg.vocab_size),
        model=cfg.name,
    )


def answers() -> dict[str, int]:
    """{"5.1": option} for the answers the link keeps."""
    out = {}
    for part in filter(None, state.get("answers").split(",")):
        m = ANSWER.match(part)
        if m:
            out[f"{m.group(1)}.{m.group(2)}"] = int(m.group(3))
    return out


def _keep(key: str, option: int | None) -> None:
    kept = answers()
    if option is None:
        kept.pop(key, None)
    else:
        kept[key] = option
    state.put("answers", ",".join(f"{k}:{v}" for k, v in sorted(kept.items())))


def ask(chapter: chapters.Chapter, number: int, total: int, q: Quiz) -> Asked:
    """One question: its options in the link's order; a right answer says why, a wrong one asks to try again,
    with the answer one click away."""
    key = f"{chapter.number}.{number}"
    seed = f"{state.get('text')}\n{state.get('model')}\n{chapter.file}\n{number}"
    places = order(q, seed)
    shown = Asked(number, q.question, q.options, tuple(places), q.answer, q.why, shapes=False)
    widget = f"w:quiz_{key}"
    kept = answers().get(key) if state.get("share_answers") else None
    if widget not in st.session_state and kept is not None and kept < len(q.options):
        st.session_state[widget] = kept  # the answer the shared link keeps
    picked = st.radio(
        _("**Question {n} of {total}.** {question}").format(n=number, total=total, question=q.question),
        places,
        format_func=lambda i: q.options[i],
        index=None,
        key=widget,
        on_change=lambda: _keep(key, st.session_state.get(widget)) if state.get("share_answers") else None,
    )
    if picked == q.answer:
        st.success(_("Right. {why}").format(why=q.why))
    elif picked is not None:
        st.error(_("Not this one. Try another option, or show the answer."))
        if st.toggle(_("Show the answer"), key=f"w:show_{key}"):
            st.info(_("It is “{answer}”. {why}").format(answer=q.options[q.answer], why=q.why))
    return shown


def ask_all(chapter: chapters.Chapter, prose: dict[str, str], values: dict[str, object]) -> None:
    """The chapter's questions, in the order of SECTIONS; the shapes question after the notes' notation."""
    sections = [s for s in SECTIONS if s in prose]
    shown, notation = [], ""
    for number, section in enumerate(sections, start=1):
        if section == "quiz_shapes":
            notation = _(
                "In the notes' notation, C is the number of tokens ($n$, {C} here) and E the width of each "
                "token's vector ($d_{{\\text{{model}}}}$, {E} for {model})."
            ).format(C=values["C"], E=values["E"], model=values["model"])
            st.caption(notation)
        one = ask(chapter, number, len(sections), quiz(fill(prose[section], **values)))
        shown.append(dataclasses.replace(one, shapes=section == "quiz_shapes"))
    st.session_state[ASKED] = (chapter.file, tuple(shown))
    st.session_state[NOTATION] = notation
    st.toggle(
        _("Keep my answers in the link"),
        help=_("Your answers go into the page's address, so that a link you send shows them; off, they stay here."),
        **state.bound("share_answers", on_change=_share_changed),
    )


def _share_changed() -> None:
    state.put("share_answers", st.session_state["w:share_answers"])
    if not state.get("share_answers"):
        state.put("answers", "")
        return
    kept = {}
    for name, value in st.session_state.items():
        if isinstance(name, str) and name.startswith("w:quiz_") and isinstance(value, int):
            kept[name.removeprefix("w:quiz_")] = value
    state.put("answers", ",".join(f"{k}:{v}" for k, v in sorted(kept.items())))
