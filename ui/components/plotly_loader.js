// Plotly, loaded once per page, as early as the page can ask for it (ui/components/preload.py): the largest file a
// page loads, and a cold page's longest wait. `sources` in order of preference, each {url, module, gzip}: the app's
// own cartesian bundle (the trace types the app draws, a third of the whole), kept gzipped and unzipped here (the
// server sends its bytes as they are: a script it compressed anew for every new visitor cost it more than the page),
// and Streamlit's chart code, an ES module that defines window.Plotly too; the next is tried where one does not load
// or does not define Plotly (a server that does not serve the app's static folder, a browser that cannot unzip). A
// url is relative to Streamlit's own script; `sources` comes as JSON text.
function plotly(json) {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__plotlyLoading) {
    const sources = JSON.parse(json);
    const app = document.querySelector('script[type="module"][src*="static/js/"]'); // Streamlit's own script
    const href = (url) => (app ? new URL(url, app.src).href : url);
    const unzipped = async (url) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${response.status} ${url}`);
      const code = await new Response(response.body.pipeThrough(new DecompressionStream("gzip"))).blob();
      return URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
    };
    const script = (src) =>
      new Promise((resolve, reject) => {
        const tag = document.createElement("script");
        tag.src = src;
        tag.async = true;
        tag.onload = resolve;
        tag.onerror = reject;
        document.head.appendChild(tag);
      });
    const load = ({ url, module, gzip }) =>
      module ? import(href(url)) : gzip ? unzipped(href(url)).then(script) : script(href(url));
    const next = (i) =>
      load(sources[i])
        .catch(() => null)
        .then(() => window.Plotly || (i + 1 < sources.length ? next(i + 1) : Promise.reject(new Error("no Plotly"))));
    window.__plotlyLoading = next(0);
  }
  return window.__plotlyLoading;
}
