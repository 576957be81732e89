"""A real bridge for the plugin tests: seeded SQLite database, `mnote-bridge serve` on a
free loopback port, and the plugin installed by `mnote-bridge hermes install`."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

BRIDGE_ROOT = Path(__file__).resolve().parents[2]
BIN = BRIDGE_ROOT / "bin" / "mnote-bridge.mjs"
NODE = os.environ.get("NODE") or shutil.which("node") or "node"


def run_cli(args: list[str], env: dict) -> str:
    done = subprocess.run([NODE, str(BIN), *args], env=env, cwd=BRIDGE_ROOT, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"mnote-bridge {' '.join(args)} failed: {done.stderr}")
    return done.stdout


class FakeContext:
    """Mirrors Hermes's PluginContext.register_tool signature (hermes_cli/plugins.py)."""

    def __init__(self):
        self.tools: dict[str, dict] = {}

    def register_tool(self, name: str, toolset: str, schema: dict, handler, check_fn=None,
                      requires_env: list | None = None, is_async: bool = False,
                      description: str = "", emoji: str = "", override: bool = False):
        # What Hermes's registry enforces at registration.
        if not isinstance(schema, dict) or not isinstance(schema.get("parameters", {}), dict):
            raise ValueError("schema must be a dict with a JSON Schema dict as parameters")
        if name in self.tools and self.tools[name]["toolset"] != toolset and not override:
            raise ValueError(f"{name} would shadow a tool of another toolset")
        self.tools[name] = dict(name=name, toolset=toolset, schema=schema, handler=handler, check_fn=check_fn,
                                requires_env=requires_env, is_async=is_async, description=description,
                                emoji=emoji, override=override)
        return None


def load_plugin(directory: Path, key: str = "mnote"):
    """Import the plugin the way Hermes does: as the package hermes_plugins.<key>."""
    if "hermes_plugins" not in sys.modules:
        parent = types.ModuleType("hermes_plugins")
        parent.__path__ = []  # a namespace-like parent package
        sys.modules["hermes_plugins"] = parent
    name = f"hermes_plugins.{key}"
    for loaded in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[loaded]
    spec = importlib.util.spec_from_file_location(name, directory / "__init__.py",
                                                  submodule_search_locations=[str(directory)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Bridge:
    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="mnote-hermes-test-")
        root = Path(self.tmp.name)
        self.db_path = root / "mnote.db"
        self.log_path = root / "bridge.log"
        self.plugin_dir = root / "hermes" / "plugins" / "mnote"
        self.env = {**os.environ, "MNOTE_DATABASE_URL": f"file:{self.db_path}", "MNOTE_BRIDGE_RATE_LIMIT_RPS": "1000",
                    "MNOTE_BRIDGE_RATE_LIMIT_BURST": "1000"}
        self.env.pop("MNOTE_TOKEN", None)
        self.process: subprocess.Popen | None = None
        self.url = ""
        self.world: dict = {}

    def start(self) -> "Bridge":
        self.install_output = run_cli(["hermes", "install", "--dir", str(self.plugin_dir)], self.env)
        self.world = json.loads(run_cli(["test-fixture", "--database-url", self.env["MNOTE_DATABASE_URL"]], self.env))
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen([NODE, str(BIN), "serve", "--port", "0", "--host", "127.0.0.1"],
                                        env=self.env, cwd=BRIDGE_ROOT, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            match = re.search(r"listening on (http://\S+)", self.log_path.read_text())
            if match:
                self.url = match.group(1)
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"bridge did not start: {self.log_path.read_text()}")

    def log_text(self) -> str:
        return self.log_path.read_text()

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if getattr(self, "_log", None):
            self._log.close()
        self.tmp.cleanup()
