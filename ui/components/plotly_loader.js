// Plotly is Streamlit's own: the chart code it ships defines window.Plotly (the largest file a page loads, and a
// cold page's longest wait). Loaded once per page, as early as the page can ask for it (ui/components/plot.py).
function plotly(url) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__plotlyLoading) {
    const app = document.querySelector('script[type="module"][src*="static/js/"]'); // Streamlit's own script
    const href = app ? new URL(url, app.src).href : url;
    window.__plotlyLoading = import(href).then(() => window.Plotly);
  }
  return window.__plotlyLoading;
}
