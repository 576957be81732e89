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
# The vitest wrapper (src/hermes/python-versions.test.ts) hands these a copy of the same entry compiled once
# (@mnote/process/testing's compiledEntry: the same sources, without tsx's start-up cost); run directly, they are
# the files themselves.
TEST_BIN = Path(os.environ.get("MNOTE_TEST_BRIDGE_BIN") or BIN)
SEED_TEST_WORLD = Path(os.environ.get("MNOTE_TEST_SEED_SCRIPT") or BRIDGE_ROOT / "scripts" / "seed-test-world.mjs")
REJECT_TEST_PROPOSAL = Path(os.environ.get("MNOTE_TEST_REJECT_SCRIPT")
                            or BRIDGE_ROOT / "scripts" / "reject-test-proposal.mjs")
NODE = os.environ.get("NODE") or shutil.which("node") or "node"


def run_cli(args: list[str], env: dict, script: Path = TEST_BIN) -> str:
    done = subprocess.run([NODE, str(script), *args], env=env, cwd=BRIDGE_ROOT, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"{script.name} {' '.join(args)} failed: {done.stderr}")
    return done.stdout


class FakeContext:
    """What Hermes's PluginContext offers a plugin (hermes_cli/plugins.py): ``register_tool``
    with its signature and the checks its registry makes, and ``register_middleware``."""

    # hermes_cli/middleware.py VALID_MIDDLEWARE
    MIDDLEWARE_KINDS = {"tool_request", "tool_execution", "llm_request", "llm_execution"}

    def __init__(self):
        self.tools: dict[str, dict] = {}
        self.middleware: dict[str, list] = {}

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

    def register_middleware(self, kind: str, callback) -> None:
        if kind not in self.MIDDLEWARE_KINDS:
            raise ValueError(f"unknown middleware kind {kind}")
        self.middleware.setdefault(kind, []).append(callback)


def _run_execution_chain(callbacks: list, terminal, payload: dict, context: dict):
    """hermes_cli/middleware.py _run_execution_chain: each callback is called with keyword
    arguments only (the context, ``args`` and a single-use ``next_call(next_payload=None)``)."""

    def call_at(index: int, current: dict):
        if index >= len(callbacks):
            return terminal(current)
        used = []

        def next_call(next_payload=None):
            if used:
                raise RuntimeError("next_call() called twice")
            used.append(True)
            return call_at(index + 1, current if next_payload is None else next_payload)

        return callbacks[index](**context, args=current, next_call=next_call)

    return call_at(0, payload)


class HermesDispatch:
    """Hermes's wire contract for one model tool call (Hermes Agent v0.18.2), in the order
    Hermes runs it for a plugin tool. Only what reaches a plugin is kept:

    1. agent/tool_executor.py: the tool_request middleware (args may be replaced) and the
       ``pre_tool_call`` hooks run with ``tool_call_id``; mnote registers neither.
    2. agent/agent_runtime_helpers.py ``invoke_tool``: the tool_execution middleware chain
       runs with (tool_name, args, original_args, task_id, session_id, tool_call_id, turn_id,
       api_request_id), around
    3. model_tools.py ``handle_function_call``, which runs the same chain again around
    4. tools/registry.py ``dispatch``: ``handler(args, task_id=, session_id=, user_task=)``,
       with no tool-call id; an exception becomes ``{"error": ...}``.

    The CLI passes ``task_id = session_id`` (cli.py), the gateway ``"task_id": session_id``.
    ``turn_id`` is ``<session>:<task>:<random>`` per turn (agent/turn_context.py) and
    ``api_request_id`` is ``<turn_id>:api:<n>`` per model response (agent/conversation_loop.py).
    """

    def __init__(self, ctx: FakeContext):
        self.ctx = ctx

    def call(self, name: str, args: dict, *, session_id: str, tool_call_id: str,
             task_id: str | None = None, turn: str = "t1", response: int = 0) -> str:
        task_id = session_id if task_id is None else task_id
        turn_id = f"{session_id}:{task_id}:{turn}"
        context = dict(tool_name=name, original_args=args, task_id=task_id, session_id=session_id,
                       tool_call_id=tool_call_id, turn_id=turn_id, api_request_id=f"{turn_id}:api:{response}",
                       telemetry_schema_version="hermes.observer.v1", middleware_schema_version="hermes.middleware.v1")
        chain = self.ctx.middleware.get("tool_execution", [])
        handler = self.ctx.tools[name]["handler"]

        def registry_dispatch(next_args: dict) -> str:
            try:
                return handler(next_args, task_id=task_id, session_id=session_id, user_task="edit the page")
            except Exception as error:  # what tools/registry.py dispatch makes of a raise
                return json.dumps({"error": f"Tool execution failed: {type(error).__name__}: {error}"})

        def handle_function_call(next_args: dict) -> str:
            return _run_execution_chain(chain, registry_dispatch, next_args, context)

        return _run_execution_chain(chain, handle_function_call, args, context)


def hermes_detects_failure(result: str) -> bool:
    """agent/display.py ``_detect_tool_failure`` for a plugin tool (not terminal, memory or a
    file tool), and agent/tool_guardrails.py ``classify_tool_failure``: a JSON object with a
    truthy ``error`` (or ``message``) and an ``error`` key or ``success: false``; else
    ``"error"`` or ``"failed"`` in the lower-cased first 500 characters, or a leading
    ``Error``. Three such results of one tool in one turn append Hermes's loop warning."""
    try:
        data = json.loads(result)
    except ValueError:
        data = None
    if isinstance(data, dict):
        err = data.get("error") or data.get("message")
        if err and (data.get("success") is False or "error" in data):
            return True
    lower = result[:500].lower()
    return '"error"' in lower or '"failed"' in lower or result.startswith("Error")


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
        self.world = json.loads(run_cli(["--database-url", self.env["MNOTE_DATABASE_URL"]], self.env, SEED_TEST_WORLD))
        self._log = self.log_path.open("w")
        self.process = subprocess.Popen([NODE, str(TEST_BIN), "serve", "--port", "0", "--host", "127.0.0.1"],
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

    def reject(self, person_token: str, workspace_id: str, document_id: str, reason: str) -> dict:
        """A person rejects the newest pending proposal on the page, in the panel (its own procedures)."""
        return json.loads(run_cli(["--database-url", self.env["MNOTE_DATABASE_URL"], "--token", person_token,
                                   "--workspace", workspace_id, "--document", document_id, "--reason", reason],
                                  self.env, REJECT_TEST_PROPOSAL))

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
