"""What a figure that holds every head carries for the head switch (ui/components/head_switch.js) in its layout.meta, and
the same switch done on the server, for a saved file.

Both rewrite the head's number in the figure's title, found by the words that name a head in the figure's
language ("head 3", "tête 3", "헤드 3"): the figure carries them, as `words._("head {n}")` wrote them when it was drawn."""

from __future__ import annotations

import base64
import re
from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from ui.words.locales import Words


def typed(a: np.ndarray) -> dict:
    """A float32 array as plotly's typed-array spec (base64), the form plotly.py sends data arrays in."""
    a = np.ascontiguousarray(a, dtype="<f4")
    return {"dtype": "f4", "bdata": base64.b64encode(a.tobytes()).decode(), "shape": ", ".join(map(str, a.shape))}


def nested(props: dict) -> dict:
    """Trace properties with restyle's dotted names ("textfont.size") as nested settings."""
    out: dict = {}
    for name, value in props.items():
        *path, last = name.split(".")
        node = out
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def layout_meta(
    shown: int,
    heads: Sequence[int],
    per_head: dict[int, list[dict]] | None = None,
    traces: Sequence[int] = (),
    patches: dict[int, dict] | None = None,
    first: bool = False,
    *,
    words: Words,
) -> dict:
    """What the head switch in the browser reads (ui/components/head_switch.js):

    shown: the head the figure is drawn with (0-based); heads: the heads it can show (0-based); restyle: per head, the values of the figure's traces `traces` (plotly
    restyle's form: each property, one value per trace; arrays as typed-array specs); patches: per head, layout
    changes; first: switched first; head_name: how the title names a head, "head {n}" in the page's language."""
    restyle = {}
    for h, props in (per_head or {}).items():
        names = {name for p in props for name in p}
        restyle[str(h + 1)] = {
            name: [typed(p[name]) if isinstance(p.get(name), np.ndarray) else p.get(name) for p in props]
            for name in sorted(names)
        }
    return {
        "shown": shown + 1,
        "heads": [h + 1 for h in heads],
        "restyle": restyle,
        "traces": list(traces),
        "patches": {str(h + 1): p for h, p in (patches or {}).items()},
        "first": first,
        "head_name": words._("head {n}"),
    }


def showing(fig: go.Figure | dict, head: int) -> dict:
    """A figure that holds every head (its layout.meta, as layout_meta writes it) as a plotly dict showing
    `head` (0-based): what the head switch in the browser does to it, for a file saved on the server and for the
    figure's words. What the switch changes is copied, as the browser's restyle and relayout do; the rest is the
    figure's own (the other traces' arrays, the axes), read, never changed, here or by the caller."""
    if isinstance(fig, go.Figure):
        out = fig.to_plotly_json()
    else:
        out = {"data": list(fig["data"]), "layout": dict(fig["layout"])}
    meta = out["layout"].get("meta") or {}
    if head + 1 not in meta.get("heads", ()) or head + 1 == meta.get("shown"):
        return out
    key = str(head + 1)
    for prop, values in (meta.get("restyle") or {}).get(key, {}).items():
        for trace, value in zip(meta["traces"], values, strict=True):
            out["data"][trace] = {**out["data"][trace], prop: value}
    for path, value in (meta.get("patches") or {}).get(key, {}).items():
        _put(out["layout"], path, value)
    title = out["layout"].get("title") or {}
    if isinstance(title.get("text"), str):
        out["layout"]["title"] = {**title, "text": renamed(title["text"], meta["head_name"], head + 1)}
    out["layout"]["meta"] = meta | {"shown": head + 1}
    return out


def renamed(title: str, head_name: str, head: int) -> str:
    """The title with the first head it names (head_name: "head {n}", "tête {n}"…) now naming `head` (1-based);
    not inside a word ("forehead 2")."""
    before, after = (re.escape(part) for part in head_name.split("{n}"))
    return re.sub(rf"(?<!\w){before}\d+{after}", lambda _match: head_name.format(n=head), title, count=1)


def _put(layout: dict, path: str, value) -> None:
    """Set a value in a plotly layout dict at a relayout path such as "shapes[0].x0", copying each list and dict
    on the way to it (the layout given is the caller's own copy; what it holds may be another figure's)."""
    parts = [int(p) if p.isdigit() else p for p in re.split(r"\.|\[(\d+)\]\.?", path) if p]
    at = layout
    for part in parts[:-1]:
        child = at[part]
        at[part] = child = list(child) if isinstance(child, list) else dict(child)
        at = child
    at[parts[-1]] = value
