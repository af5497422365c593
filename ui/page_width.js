// The page column's width, reported to the server where a phone's differs from the width it has laid the page out
// for (ui/widgets.py, page_px): on a phone, and on a screen that was one (a phone turned, a window widened).
export default function ({ data, setStateValue }) {
  const column = () => document.querySelector('[data-testid="stMain"] [data-testid="stVerticalBlock"]');
  let timer = null;
  const report = () => {
    const found = column();
    const width = found ? Math.round(found.getBoundingClientRect().width) : 0;
    const narrow = width < data.narrow || data.width < data.narrow;
    if (width > 0 && narrow && Math.abs(width - data.width) > data.tolerance) setStateValue("width", width);
  };
  const later = () => {
    clearTimeout(timer);
    timer = setTimeout(report, 200);
  };
  later();
  window.addEventListener("resize", later);
  return () => {
    clearTimeout(timer);
    window.removeEventListener("resize", later);
  };
}
