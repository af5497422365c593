"""deploy/: every HAProxy configuration shipped is one HAProxy accepts, and the launcher says what it lacks.

The launcher serving a class, a server killed under it and its stop are in tests/e2e/test_deploy_browser.py."""

from __future__ import annotations

import re
import shutil
import subprocess

from app_driver.server import ROOT

SERVE = ROOT / "deploy" / "serve"


def haproxy_accepts(config: str, tmp_path) -> subprocess.CompletedProcess:
    path = tmp_path / "haproxy.cfg"
    path.write_text(config)
    return subprocess.run(["haproxy", "-c", "-f", str(path)], capture_output=True, text=True)


def test_the_launchers_configuration_as_filled_in_is_valid(tmp_path):
    template = (ROOT / "deploy" / "haproxy.cfg.template").read_text()
    servers = "".join(f"    server s{i} 127.0.0.1:{8600 + i} cookie s{i}\n" for i in (1, 2, 3))
    config = (
        template.replace("@RUN@", str(tmp_path))
        .replace("@ADDRESS@", "127.0.0.1")
        .replace("@PORT@", "8599")
        .replace("@SERVERS@\n", servers)
    )
    assert "@" not in config.replace("%[srv_name]", "")
    checked = haproxy_accepts(config, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    for needed in (
        "cookie SRV insert indirect nocache",
        "option httpchk GET /_stcore/health",
        "option redispatch",
        "timeout tunnel 1h",
        "tune.bufsize 65536",
        "level admin",
    ):
        assert needed in config


def test_the_compose_configuration_is_valid(tmp_path):
    config = (ROOT / "deploy" / "haproxy-compose.cfg").read_text()
    checked = haproxy_accepts(config, tmp_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert config.count("cookie SRV insert indirect nocache") == 1
    assert len(re.findall(r"^    server s(\d) app\1:8501 cookie s\1 ", config, re.M)) == 3


def test_the_launcher_refuses_what_it_cannot_serve(tmp_path):
    for args, said in (
        (["--replicas", "0"], "--replicas takes a whole number"),
        (["--port", "http"], "--port takes a port number"),
        (["--colour"], "unknown argument"),
    ):
        run = subprocess.run(["bash", str(SERVE), *args], capture_output=True, text=True, timeout=30)
        assert run.returncode == 2 and said in run.stderr, run.stderr
    # a copy of the project without its .venv: the launcher names what is missing and starts nothing
    (tmp_path / "deploy").mkdir()
    shutil.copy(SERVE, tmp_path / "deploy" / "serve")
    run = subprocess.run(["bash", str(tmp_path / "deploy" / "serve")], capture_output=True, text=True, timeout=30)
    assert run.returncode == 1 and "no .venv with Streamlit" in run.stderr and "README" in run.stderr
