"""How much English is left on each page in another language: `python benchmarks/english_left.py [--model M]`.

Every message of the template (locales/messages.pot) is "translated" into a pseudo-language that wraps it in
⟦ ⟧, a complete catalogue in a temporary folder; every page is then run headless (AppTest) in it, and each
visible text (markdown, captions, labels, notices, figure titles and notes) is read. What stands outside ⟦ ⟧
and is not a token, a number, an equation or a name did not pass through the catalogues: the words still to
mark with _(). Prints, per page, the share of letters left and the first few texts that hold them.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PSEUDO = "fr"  # the pseudo-translation takes a real language's place, so that its numbers are French too
# placeholders, markup, equations, link targets
KEPT = re.compile(r"\{\{?\w+\}?\}|%\(\w+\)s|\*\*|`[^`]*`|\$[^$]*\$|<[^>]+>|\]\([^)]*\)")


def pseudo(message: str) -> str:
    """⟦message⟧, its placeholders and markup kept as they are so that the page fills them."""
    if not message.strip():
        return message
    return "⟦" + message + "⟧"


def pseudo_catalogue(folder: Path) -> None:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po, write_po

    from app_driver.catalogue import extract

    extract(folder / "messages.pot")
    with (folder / "messages.pot").open("rb") as f:
        catalogue = read_po(f, locale=PSEUDO)
    for message in catalogue:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            message.string = tuple(pseudo(m) for m in message.id)
        else:
            message.string = pseudo(message.id)
    target = folder / PSEUDO / "LC_MESSAGES"
    target.mkdir(parents=True)
    with (target / "messages.po").open("wb") as f:
        write_po(f, catalogue)
    with (target / "messages.mo").open("wb") as f:
        write_mo(f, catalogue)


def english_left(texts: list[str]) -> tuple[int, int, list[str]]:
    """(letters outside ⟦ ⟧, letters in all, the texts with the most left)."""
    left, total, worst = 0, 0, []
    for text in texts:
        if "⟦" not in text and re.search(r"\\[a-zA-Z]+", text):
            continue  # an equation (st.latex): its words are LaTeX's, not the page's
        outside, before = text, None
        while outside != before:  # innermost first: a translated phrase can stand inside a translated paragraph
            before, outside = outside, re.sub(r"⟦[^⟦⟧]*⟧", "", outside)
        outside = KEPT.sub("", outside)
        words = re.findall(r"[A-Za-z]{3,}", outside)
        n_left = sum(len(w) for w in words)
        left += n_left
        total += len(re.findall(r"[A-Za-z]", text))
        if n_left:
            worst.append((n_left, outside.strip()[:110]))
    worst.sort(reverse=True)
    return left, total, [w for _, w in worst[: int(os.environ.get("ENGLISH_LEFT_SHOW", 3))]]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="gemma3")
    parser.add_argument("pages", nargs="*", help="the pages to read (app.py, pages/NN_name.py); all by default")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        pseudo_catalogue(Path(tmp))
        code = f"""
import json, sys
sys.path.insert(0, {str(ROOT)!r})
from app_driver.apptest import run_page
from app_driver.words import PAGES, page_text
out = {{}}
for page in {args.pages!r} or PAGES:
    at = run_page(page, model={args.model!r}, lang={PSEUDO!r})
    out[page] = page_text(at) + [e.value for e in at.get("success")] + [e.value for e in at.get("error")]
print(json.dumps(out))
"""
        env = os.environ | {"ATTENTION_LOCALES": tmp}
        done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(done.stderr[-3000:])
    import json

    pages = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{'page':34} {'English left':>13} {'of letters':>11}")
    all_left = all_total = 0
    for page, texts in pages.items():
        left, total, worst = english_left(texts)
        all_left, all_total = all_left + left, all_total + total
        print(f"{page:34} {left:13,} {total:11,}  {left / max(total, 1):6.1%}")
        for w in worst:
            print(f"{'':36}… {w}")
    print(f"{'all pages':34} {all_left:13,} {all_total:11,}  {all_left / max(all_total, 1):6.1%}")


if __name__ == "__main__":
    main()
