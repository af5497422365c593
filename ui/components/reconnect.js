// A page that lost its server and reconnected asks for a run (ui/components/reconnect.py). Streamlit's page reconnects by
// itself, but asks for no run when it was idle, taking the server to have kept its session: behind a load balancer
// the server may be another one, with a new session that has drawn nothing and knows nothing of this page until a
// run, which reads the view from the link. Installed once per page; each render hands it the trigger to pull.
const LOST = '[data-testid="stConnectionStatus"]'; // shown from the connection's loss until it is back

let pull = null;
if (!window.__attentionReconnect) {
  window.__attentionReconnect = true;
  let lost = false;
  const look = () => {
    const now = document.querySelector(LOST) !== null;
    // with the page's size as the head switch last measured it, so the new session draws the figures to it at once
    if (lost && !now && pull) pull("reconnected", { at: Date.now(), canvas: window.__attentionCanvas || null });
    lost = now;
  };
  new MutationObserver(look).observe(document.body, { childList: true, subtree: true });
}

export default function ({ setTriggerValue }) {
  pull = setTriggerValue;
}
