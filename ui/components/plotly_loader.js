// Plotly, loaded once per page, as early as the page can ask for it (ui/components/preload.py): the largest file a
// page loads, and a cold page's longest wait. `sources` in order of preference, each {url, module}: the app's own
// cartesian bundle (the trace types the app draws, a third of the whole) and Streamlit's chart code, an ES module
// that defines window.Plotly too; the next is tried where one does not load or does not define Plotly (a server that
// does not serve the app's static folder). A url is relative to Streamlit's own script; `sources` comes as JSON text.
function plotly(json) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__plotlyLoading) {
    const sources = JSON.parse(json);
    const app = document.querySelector('script[type="module"][src*="static/js/"]'); // Streamlit's own script
    const href = (url) => (app ? new URL(url, app.src).href : url);
    const load = ({ url, module }) =>
      module
        ? import(href(url))
        : new Promise((resolve, reject) => {
            const script = document.createElement("script");
            script.src = href(url);
            script.async = true;
            script.onload = resolve;
            script.onerror = reject;
            document.head.appendChild(script);
          });
    const next = (i) =>
      load(sources[i])
        .catch(() => null)
        .then(() => window.Plotly || (i + 1 < sources.length ? next(i + 1) : Promise.reject(new Error("no Plotly"))));
    window.__plotlyLoading = next(0);
  }
  return window.__plotlyLoading;
}
