// The page column's width, reported to the server where a phone's differs from the width it has laid the page out
// for (ui/kit/widgets.py, page_px): on a phone, and on a screen that was one (a phone turned, a window widened).
// Until the width is measured, and from a report until the run it asks for draws this element again, the page
// says it is not settled yet (data-pending-width on <html>: what the browser tests wait for).
export default function ({ data, setStateValue }) {
  const root = document.documentElement.dataset;
  const column = () => document.querySelector('[data-testid="stMain"] [data-testid="stVerticalBlock"]');
  let timer = null;
  let asked = null;
  const report = () => {
    const found = column();
    const width = found ? Math.round(found.getBoundingClientRect().width) : 0;
    const narrow = width < data.narrow || data.width < data.narrow;
    if (width > 0 && narrow && Math.abs(width - data.width) > data.tolerance) {
      setStateValue("width", width);
      asked = setTimeout(() => delete root.pendingWidth, 5000); // a run that never came: settled all the same
    } else delete root.pendingWidth;
  };
  const later = () => {
    clearTimeout(timer);
    root.pendingWidth = "1";
    timer = setTimeout(report, 200);
  };
  later();
  window.addEventListener("resize", later);
  return () => {
    clearTimeout(timer);
    clearTimeout(asked);
    delete root.pendingWidth;
    window.removeEventListener("resize", later);
  };
}
