"""The mnote Hermes plugin against a real bridge (python3 -m unittest)."""

from __future__ import annotations

import http.server
import json
import os
import re
import socket
import sqlite3
import threading
import time
import unittest
from unittest import mock

from .support import Bridge, FakeContext, free_port, load_plugin

PROVIDER_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")


class PluginAgainstBridge(unittest.TestCase):
    bridge: Bridge

    @classmethod
    def setUpClass(cls):
        cls.bridge = Bridge().start()
        cls.world = cls.bridge.world
        cls.plugin = load_plugin(cls.bridge.plugin_dir)
        cls.ctx = FakeContext()
        cls.plugin.register(cls.ctx)
        with open(cls.bridge.plugin_dir / "tool_schemas.json", encoding="utf-8") as handle:
            cls.schemas = json.load(handle)
        cls.by_canonical = {tool["canonicalName"]: tool["name"] for tool in cls.schemas["tools"]}

    @classmethod
    def tearDownClass(cls):
        cls.bridge.stop()

    # helpers -------------------------------------------------------------
    def env(self, token_name: str = "owner", url: str | None = None, **extra):
        values = {"MNOTE_BRIDGE_URL": url or self.bridge.url, "MNOTE_TOKEN": self.world["tokens"][token_name], **extra}
        return mock.patch.dict(os.environ, values)

    def call(self, canonical: str, extra: dict | None = None, token: str = "owner", session: str = "sess-1",
             task: str | None = "task-1", **kwargs) -> dict:
        ids = self.world["ids"]
        args = {"workspaceId": ids["ws"], "documentId": ids["page"], **self.world["sampleArgs"][canonical], **(extra or {})}
        handler = self.ctx.tools[self.by_canonical[canonical]]["handler"]
        with self.env(token):
            text = handler(args, task_id=task, session_id=session, user_task="do something", **kwargs)
        self.assertIsInstance(text, str)
        return json.loads(text)

    def audit_rows(self, **where) -> list[dict]:
        connection = sqlite3.connect(self.bridge.db_path)
        connection.row_factory = sqlite3.Row
        try:
            clause = " AND ".join(f"{key} = ?" for key in where) or "1 = 1"
            rows = connection.execute(f"SELECT * FROM audit_log WHERE {clause} ORDER BY id", list(where.values()))
            return [dict(row) for row in rows]
        finally:
            connection.close()

    # registration --------------------------------------------------------
    def test_register_mirrors_hermes_and_the_contract(self):
        self.assertEqual(len(self.ctx.tools), 7)
        self.assertEqual(set(self.ctx.tools), {tool["name"] for tool in self.schemas["tools"]})
        self.assertEqual(self.schemas["modelEnvelopeFields"], ["workspaceId", "documentId", "dryRun", "idempotencyKey"])
        for name, entry in self.ctx.tools.items():
            self.assertRegex(name, PROVIDER_NAME)
            self.assertEqual(entry["toolset"], "mnote")
            self.assertEqual(set(entry["schema"]), {"name", "description", "parameters"})
            self.assertEqual(entry["schema"]["name"], name)
            self.assertEqual(entry["schema"]["parameters"]["type"], "object")
            self.assertIn("mnote.", entry["schema"]["description"])  # names the canonical tool
            self.assertEqual(entry["requires_env"], ["MNOTE_BRIDGE_URL", "MNOTE_TOKEN"])
            self.assertFalse(entry["is_async"])
            with self.env():
                self.assertTrue(entry["check_fn"]())
            with mock.patch.dict(os.environ, {"MNOTE_BRIDGE_URL": "", "MNOTE_TOKEN": ""}):
                self.assertFalse(entry["check_fn"]())

    def test_plugin_yaml_lists_the_generated_tools(self):
        manifest = (self.bridge.plugin_dir / "plugin.yaml").read_text(encoding="utf-8")
        self.assertRegex(manifest, r"(?m)^name: mnote$")
        listed = re.findall(r"(?m)^  - (mnote_\w+)$", manifest)
        self.assertEqual(listed, [tool["name"] for tool in self.schemas["tools"]])
        self.assertIn("  - MNOTE_BRIDGE_URL", manifest)
        self.assertIn("  - MNOTE_TOKEN", manifest)
        self.assertIn("hermes plugins enable mnote", self.bridge.install_output)

    # every tool ------------------------------------------------------------
    def test_every_tool_succeeds_through_the_bridge(self):
        for canonical in self.world["sampleArgs"]:
            with self.subTest(tool=canonical):
                out = self.call(canonical, session=f"sess-all-{canonical}")
                self.assertTrue(out["ok"], out)
                self.assertEqual(out["toolName"], canonical)
                self.assertIsNone(out["error"])
                expected = "read" if canonical == "mnote.page.get" else "write"
                self.assertEqual(out["audit"]["effect"], expected)
                if expected == "write":
                    self.assertTrue(out["audit"]["commandId"])

    def test_dry_run_returns_the_plan_and_writes_nothing(self):
        before = self.call("mnote.page.get", {"includeBlocks": False})["result"]["revision"]
        out = self.call("mnote.page.update_title", {"title": "Dry title", "dryRun": True}, session="sess-dry")
        self.assertTrue(out["ok"], out)
        self.assertEqual(out["audit"]["effect"], "dry_run")
        self.assertTrue(out["result"]["dryRun"])
        self.assertEqual(out["result"]["commandName"], "page.head.updateTitle")
        after = self.call("mnote.page.get", {"includeBlocks": False})["result"]
        self.assertEqual(after["revision"], before)
        self.assertNotEqual(after["title"], "Dry title")

    def test_permission_denied_for_a_viewer(self):
        out = self.call("mnote.page.save", token="viewer", session="sess-viewer")
        self.assertFalse(out["ok"])
        self.assertEqual(out["error"]["code"], "mnote_tool_permission_denied")
        self.assertEqual(out["toolName"], "mnote.page.save")

    def test_read_only_token_gets_its_own_scope_and_is_refused_writes(self):
        self.assertEqual(self.call("mnote.page.get", token="ownerReadOnly")["ok"], True)
        out = self.call("mnote.artifact.create_ai_note", token="ownerReadOnly", session="sess-ro")
        self.assertEqual(out["error"]["code"], "mnote_tool_permission_denied")

    def test_unknown_token_is_answered_by_the_router(self):
        out = self.call("mnote.page.get", token="revoked")
        self.assertFalse(out["ok"])
        self.assertEqual(out["error"]["code"], "mnote_tool_unauthenticated")

    # idempotency -----------------------------------------------------------
    def test_a_retry_of_the_same_call_replays_it(self):
        extra = {"content": [{"type": "paragraph", "text": "retry me"}], "mode": "append"}
        first = self.call("mnote.page.save", extra, session="sess-retry", task="task-retry")
        second = self.call("mnote.page.save", extra, session="sess-retry", task="task-retry")
        self.assertTrue(first["ok"] and second["ok"], (first, second))
        self.assertEqual(second["audit"]["commandId"], first["audit"]["commandId"])
        self.assertEqual(second["result"], first["result"])
        self.assertEqual([row["outcome"] for row in self.audit_rows(run_id="task-retry")], ["ok", "replayed"])
        # Another run is another call: a new key, a new command.
        third = self.call("mnote.page.save", extra, session="sess-retry", task="task-retry-2")
        self.assertNotEqual(third["audit"]["commandId"], first["audit"]["commandId"])

    def test_a_key_the_model_passes_is_used(self):
        extra = {"content": "A note with a model key", "idempotencyKey": "model-key-1"}
        first = self.call("mnote.artifact.create_ai_note", extra, session="sess-a", task="t-a")
        second = self.call("mnote.artifact.create_ai_note", extra, session="sess-b", task="t-b")
        self.assertEqual(second["audit"]["commandId"], first["audit"]["commandId"])
        rows = self.audit_rows(idempotency_key="model-key-1")
        self.assertEqual([row["outcome"] for row in rows], ["ok", "replayed"])

    # envelope fields -------------------------------------------------------
    def test_session_run_call_and_trace_ids_reach_the_audit(self):
        out = self.call("mnote.page.get", session="sess-ids", task="task-ids")
        self.assertRegex(out["traceId"], r"^[0-9a-f]{32}$")
        self.assertTrue(out["toolCallId"].startswith("hermes_"))
        [row] = self.audit_rows(run_id="task-ids")
        self.assertEqual(row["session_id"], "sess-ids")
        self.assertEqual(row["tool_call_id"], out["toolCallId"])
        self.assertEqual(row["trace_id"], out["traceId"])
        self.assertEqual(row["actor_id"], self.world["ids"]["owner"])
        # Without Hermes ids the plugin still sends a complete envelope.
        out = self.call("mnote.page.get", session=None, task=None)
        self.assertTrue(out["ok"], out)

    def test_a_bad_call_is_an_envelope_not_an_exception(self):
        handler = self.ctx.tools["mnote_page_save"]["handler"]
        with self.env():
            for args in (None, "not json", {"workspaceId": 5}, {"content": "x", "unknownField": 1}):
                with self.subTest(args=args):
                    out = json.loads(handler(args))
                    self.assertFalse(out["ok"])
                    self.assertEqual(out["error"]["code"], "mnote_tool_invalid_input")

    # unavailable -----------------------------------------------------------
    def assert_unavailable(self, url: str, **extra_env):
        handler = self.ctx.tools["mnote_page_get"]["handler"]
        ids = self.world["ids"]
        with self.env(url=url, **extra_env), self.assertLogs("hermes_plugins.mnote.client", "WARNING") as logs:
            text = handler({"workspaceId": ids["ws"], "documentId": ids["page"]}, task_id="t", session_id="s")
        self.assertIn("unavailable", logs.output[0])
        out = json.loads(text)
        self.assertEqual(out["ok"], False)
        self.assertEqual(out["toolName"], "mnote.page.get")
        self.assertEqual(out["error"]["code"], "mnote_tool_unavailable")
        self.assertEqual(out["error"]["message"], self.schemas["unavailableMessage"])
        self.assertEqual(out["audit"], {"effect": "none", "commandId": None, "workspaceId": ids["ws"], "documentId": ids["page"]})

    def test_unavailable_when_the_port_is_closed(self):
        self.assert_unavailable(f"http://127.0.0.1:{free_port()}")

    def test_unavailable_when_the_answer_is_not_json(self):
        class Html(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(502)
                self.send_header("Content-Type", "text/html")
                self.end_headers()
                self.wfile.write(b"<html>bad gateway</html>")

            do_POST = do_GET

            def log_message(self, *args):
                pass

        with _serve(Html) as url:
            self.assert_unavailable(url)

    def test_unavailable_on_timeout(self):
        class Slow(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                time.sleep(2)

            do_POST = do_GET

            def log_message(self, *args):
                pass

        with _serve(Slow) as url:
            started = time.monotonic()
            self.assert_unavailable(url, MNOTE_BRIDGE_TIMEOUT="0.3")
            self.assertLess(time.monotonic() - started, 1.9)

    def test_a_refused_identity_lookup_keeps_its_contract_code(self):
        class Limited(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                body = json.dumps({"error": {"code": "mnote_tool_rate_limited", "message": "slow down"}}).encode()
                self.send_response(429)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        handler = self.ctx.tools["mnote_page_get"]["handler"]
        with _serve(Limited) as url, self.env(url=url):
            out = json.loads(handler({"workspaceId": "w", "documentId": "d"}, session_id="s-429"))
        self.assertEqual(out["error"], {"code": "mnote_tool_rate_limited", "message": "slow down"})
        self.assertEqual(out["toolName"], "mnote.page.get")

    # logs ------------------------------------------------------------------
    def test_bridge_logs_carry_no_token_or_page_text(self):
        self.call("mnote.page.get", session="sess-log", task="task-log")
        time.sleep(0.1)
        log = self.bridge.log_text()
        self.assertIn('"runId":"task-log"', log)
        for token in self.world["tokens"].values():
            self.assertNotIn(token, log)
        self.assertNotIn(self.world["secret"], log)


class _serve:
    """A throwaway HTTP server on a free loopback port."""

    def __init__(self, handler):
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        self.server.block_on_close = False
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> str:
        self.thread.start()
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


if __name__ == "__main__":
    unittest.main()
