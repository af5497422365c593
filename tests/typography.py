"""Typography rules a rendered page is held to, in each language (issue 37): what the code assembles as well as what
the catalogues say. A text here is one a page shows (prose, notices, controls, figures' words and hovers)."""

from __future__ import annotations

import re

from tests.test_translations import FRENCH_SPACE, NOT_PROSE

TOKENS = re.compile(r"␣\S*|\[[A-Z]+\]|<[a-z_]+>|&\w+;")  # token pieces, shown as the tokenizer has them
HYPHEN_MINUS = re.compile(r"(?<![\w.)\]}/])-(?=\d)")  # "-0.3": a negative number written with a hyphen
GLUED = re.compile(r"[\w)»][;!?](?=\s|$)|[^\W\d][:](?=\s)")  # French: « mot ; », never « mot; » nor « q: »
PERCENT = re.compile(r"\d%")  # French: « 10 % »


def faults(text: str, code: str) -> list[str]:
    """What breaks the language's typography in one text: a hyphen for a minus (every language); in French a plain
    space or none before ; : ! ?, “ ” quotes, a percent sign glued to its number."""
    if re.search(r"\\(?:operatorname|mathrm|frac|begin|text|sqrt|left)\b", text):
        return []  # an equation (st.latex): LaTeX's own typography
    prose = TOKENS.sub(" ", NOT_PROSE.sub(" ", text))
    found = [
        f"hyphen for minus: …{m.string[max(0, m.start() - 12) : m.end() + 8]}…" for m in HYPHEN_MINUS.finditer(prose)
    ]
    if code == "fr":
        unquoted = re.sub(r"«[^»]*»", "« »", prose)  # a title quoted in its own language keeps its punctuation
        for rule, pattern, where in (
            ("plain space", FRENCH_SPACE, prose),
            ("no space", GLUED, unquoted),
            ("percent", PERCENT, prose),
        ):
            found += [
                f"{rule}: …{where[max(0, m.start() - 15) : m.end() + 10]}… in {text[:70]!r}"
                for m in pattern.finditer(where)
            ]
        found += [f"English quotes: {prose[:60]}…" for _ in re.finditer("[“”]", prose)][:1]
    return found


def percent_axes(spec: dict, code: str) -> list[str]:
    """A figure's percent axes, whose ticks Plotly writes itself: in French a tickformat ending in % ("10%") leaves
    out the space (the figure must write « 10 % » itself, e.g. with ticksuffix)."""
    if code != "fr":
        return []
    layout = spec.get("layout", {})
    axes = [(k, v) for k, v in layout.items() if re.match(r"[xy]axis\d*$", k) and isinstance(v, dict)]
    return [f"{k}: tickformat {v['tickformat']}" for k, v in axes if str(v.get("tickformat", "")).endswith("%")]
