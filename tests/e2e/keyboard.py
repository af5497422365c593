"""The page as a keyboard meets it: where the focus is (inside the components' shadow roots too), what a screen
reader names it (Chromium's own accessibility tree), whether a ring shows it, and Tab pressed until a control."""

from __future__ import annotations

from dataclasses import dataclass

DEEP_FOCUS = """() => { let e = document.activeElement;
  while (e && e.shadowRoot && e.shadowRoot.activeElement) e = e.shadowRoot.activeElement;
  return e; }"""

# The focused element: its tag, test id (Streamlit's element around it), whether it or one of its four nearest
# ancestors draws a ring (an outline of 1 px or more in a colour that shows, or a box shadow: Streamlit's buttons),
# and whether what draws it is in the window (in the main column, below the bar at the top of the page).
FOCUSED = (
    """() => {
  const e = ("""
    + DEEP_FOCUS
    + """)();
  if (!e || e === document.body || e === document.documentElement) return null;
  const rings = (el) => { const s = getComputedStyle(el);
    const clear = s.outlineColor === 'transparent' || /, 0\\)$/.test(s.outlineColor);
    return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 1 && !clear) || s.boxShadow !== 'none'; };
  let ring = null, el = e;
  for (let i = 0; el && el.nodeType === 1 && i < 5; i++) {
    if (rings(el)) { ring = el; break; }
    el = el.parentElement || (el.getRootNode() && el.getRootNode().host);
  }
  const box = (ring || e).getBoundingClientRect();
  const host = e.getRootNode().host;
  const header = document.querySelector('[data-testid="stHeader"]');  // over the main column only
  const top = header && (host || e).closest('[data-testid="stMain"]') ? header.getBoundingClientRect().bottom : 0;
  return {
    tag: e.tagName.toLowerCase(),
    testid: (e.closest('[data-testid]') || (host && host.closest('[data-testid]')))?.dataset.testid || '',
    ring: !!ring,
    inView: box.width > 0 && box.height > 0 && box.bottom > top && box.top < innerHeight && box.right > 0
      && box.left < innerWidth,
    toolbar: e.closest('[role="toolbar"]')?.getAttribute('aria-label') || '',
  };
}"""
)


@dataclass(frozen=True)
class Focus:
    role: str
    name: str
    tag: str
    testid: str
    ring: bool  # a focus ring shows
    in_view: bool
    toolbar: str  # the name of the toolbar it is in ("Head", a chart's tools), or ""

    def __str__(self) -> str:
        return f"{self.role} “{self.name}” ({self.tag}, {self.testid or 'no test id'})"


def accessible(page, cdp) -> tuple[str, str]:
    """The focused element's role and name as Chromium's accessibility tree has them (what a screen reader says)."""
    handle = cdp.send("Runtime.evaluate", {"expression": f"({DEEP_FOCUS})()"})["result"]
    if "objectId" not in handle:
        return "", ""
    node = cdp.send("Accessibility.getPartialAXTree", {"objectId": handle["objectId"], "fetchRelatives": False})
    first = node["nodes"][0]
    return first.get("role", {}).get("value", ""), str(first.get("name", {}).get("value", "")).strip()


def focused(page, cdp) -> Focus | None:
    seen = page.evaluate(FOCUSED)
    if seen is None:
        return None
    role, name = accessible(page, cdp)
    return Focus(role, name, seen["tag"], seen["testid"], seen["ring"], seen["inView"], seen["toolbar"])


class Keyboard:
    """Tab, Shift+Tab and the other keys, with every control the focus stops on kept and checked: named, its ring
    showing, in the window."""

    LANDMARKS = ("main", "RootWebArea")  # Streamlit's main column takes focus to scroll: a region, not a control
    # Streamlit's table (st.dataframe) is drawn on a canvas that takes the focus and holds, for screen readers, the
    # table itself as a grid (read cell by cell): the canvas has no name of its own
    UNNAMED = ("data-grid-canvas",)

    def __init__(self, page):
        self.page = page
        self.cdp = page.context.new_cdp_session(page)
        self.stops: list[Focus] = []
        self.problems: list[str] = []

    def press(self, key: str) -> Focus | None:
        self.page.keyboard.press(key)
        return self.check()

    def check(self) -> Focus | None:
        now = focused(self.page, self.cdp)
        if now is None:
            return None
        self.stops.append(now)
        if now.role not in self.LANDMARKS:
            if not now.name and now.testid not in self.UNNAMED:
                self.problems.append(f"no name: {now}")
            if not now.ring:
                self.problems.append(f"no focus ring: {now}")
            if not now.in_view:
                self.problems.append(f"out of the window: {now}")
        return now

    def tab_to(
        self, name: str, role: str | None = None, back: bool = False, most: int = 60, starts: bool = False
    ) -> Focus:
        """Tab (or Shift+Tab) until the focus is on the control of that name (or whose name `starts` so) and role;
        fails after `most` stops."""
        for _ in range(most):
            now = self.press("Shift+Tab" if back else "Tab")
            named = now is not None and (now.name.startswith(name) if starts else now.name == name)
            if named and (role is None or now.role == role):
                return now
        raise AssertionError(f"{name!r} not reached in {most} stops: {[str(s) for s in self.stops[-most:]]}")
