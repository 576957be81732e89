"""The mnote Hermes plugin against a real bridge (python3 -m unittest)."""

from __future__ import annotations

import http.server
import json
import os
import re
import socket
import sqlite3
import contextlib
import contextvars
import threading
import time
import unittest
from unittest import mock

from .support import Bridge, FakeContext, HermesDispatch, free_port, hermes_detects_failure, load_plugin

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
        cls.hermes = HermesDispatch(cls.ctx)
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

    def page_of(self, canonical: str) -> dict:
        """The page a page tool acts on; a workspace tool (its schema has no documentId) names none."""
        tool = next(t for t in self.schemas["tools"] if t["canonicalName"] == canonical)
        return {"documentId": self.world["ids"]["page"]} if "documentId" in tool["parameters"]["properties"] else {}

    def call(self, canonical: str, extra: dict | None = None, token: str = "owner", session: str = "sess-1",
             task: str | None = "task-1", **kwargs) -> dict:
        ids = self.world["ids"]
        args = {"workspaceId": ids["ws"], **self.page_of(canonical), **self.world["sampleArgs"][canonical], **(extra or {})}
        handler = self.ctx.tools[self.by_canonical[canonical]]["handler"]
        with self.env(token):
            text = handler(args, task_id=task, session_id=session, user_task="do something", **kwargs)
        self.assertIsInstance(text, str)
        return json.loads(text)

    def hermes_call(self, canonical: str, extra: dict | None = None, *, session: str, tool_call_id: str,
                    token: str | None = "owner", turn: str = "t1") -> dict:
        """One model tool call as Hermes runs it (support.HermesDispatch), with its result
        checked the way Hermes classifies it. `token=None`: the caller has set the environment
        (threads must not each patch os.environ: one restoring it pulls the token from under another)."""
        ids = self.world["ids"]
        args = {"workspaceId": ids["ws"], **self.page_of(canonical), **self.world["sampleArgs"][canonical], **(extra or {})}
        with self.env(token) if token is not None else contextlib.nullcontext():
            text = self.hermes.call(self.by_canonical[canonical], args, session_id=session, tool_call_id=tool_call_id,
                                    turn=turn)
        self.assertIsInstance(text, str)
        out = json.loads(text)
        self.assertEqual(hermes_detects_failure(text), not out["ok"], text[:500])
        return out

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
        self.assertEqual(len(self.ctx.tools), len(self.schemas["tools"]))
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
        # The plugin's tool-call id middleware (mcp_ids.py registers another one for MCP tools).
        [middleware] = [cb for cb in self.ctx.middleware["tool_execution"] if cb.__name__ == "mnote_tool_call_ids"]
        # Any other tool passes through untouched: same arguments, same result.
        seen = []
        result = middleware(tool_name="terminal", args={"command": "ls"},
                            next_call=lambda payload=None: seen.append(payload) or "out",
                            task_id="t", session_id="s", tool_call_id="call_other")
        self.assertEqual((result, seen), ("out", [None]))

    def test_plugin_yaml_lists_the_generated_tools(self):
        manifest = (self.bridge.plugin_dir / "plugin.yaml").read_text(encoding="utf-8")
        self.assertRegex(manifest, r"(?m)^name: mnote$")
        listed = re.findall(r"(?m)^  - (mnote_\w+)$", manifest)
        self.assertEqual(listed, [tool["name"] for tool in self.schemas["tools"]])
        # Hermes's rich requires_env form (hermes_cli/plugins_cmd.py _prompt_plugin_env_vars).
        self.assertRegex(manifest, r"(?m)^  - name: MNOTE_BRIDGE_URL\n    description: .+\n  - name: MNOTE_TOKEN\n"
                                   r"    description: .+\n    secret: true$")
        self.assertIn("hermes plugins enable mnote", self.bridge.install_output)

    # every tool ------------------------------------------------------------
    def test_every_tool_succeeds_through_the_bridge(self):
        kinds = {tool["canonicalName"]: tool["kind"] for tool in self.schemas["tools"]}
        for canonical in self.world["sampleArgs"]:
            with self.subTest(tool=canonical):
                out = self.call(canonical, session=f"sess-all-{canonical}")
                self.assertTrue(out["ok"], out)
                self.assertEqual(out["toolName"], canonical)
                self.assertIsNone(out["error"])
                expected = kinds[canonical]
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

    # idempotency: one key per Hermes tool call ------------------------------
    def test_a_retry_of_one_tool_call_writes_once(self):
        extra = {"content": [{"type": "paragraph", "text": "retry me"}], "mode": "append"}
        first = self.hermes_call("mnote.page.save", extra, session="sess-retry", tool_call_id="call_retry_1")
        again = self.hermes_call("mnote.page.save", extra, session="sess-retry", tool_call_id="call_retry_1")
        self.assertTrue(first["ok"] and again["ok"], (first, again))
        self.assertEqual(again["audit"]["commandId"], first["audit"]["commandId"])
        self.assertEqual(again["result"], first["result"])
        rows = self.audit_rows(session_id="sess-retry")
        self.assertEqual([(row["outcome"], row["tool_call_id"]) for row in rows],
                         [("ok", "call_retry_1"), ("replayed", "call_retry_1")])

    def test_a_new_tool_call_with_the_same_arguments_writes(self):
        # Hermes's CLI uses the session id as task_id in every turn: nothing but the
        # tool-call id tells turn 1's note from turn 2's.
        note = {"content": "Remember to ship the release notes"}
        turn1 = self.hermes_call("mnote.artifact.create_ai_note", note, session="sess-notes", tool_call_id="call_note_t1",
                                 turn="t1")
        turn2 = self.hermes_call("mnote.artifact.create_ai_note", note, session="sess-notes", tool_call_id="call_note_t2",
                                 turn="t2")
        self.assertTrue(turn1["ok"] and turn2["ok"], (turn1, turn2))
        self.assertNotEqual(turn1["audit"]["commandId"], turn2["audit"]["commandId"])
        self.assertNotEqual(turn1["result"], turn2["result"])
        self.assertEqual([row["outcome"] for row in self.audit_rows(session_id="sess-notes")], ["ok", "ok"])

    def test_a_tool_call_id_hermes_reuses_in_a_later_turn_still_writes(self):
        # Without a provider id Hermes makes one per response (agent/copilot_acp_client.py
        # `acp_call_1`) or from (tool, arguments, index) (agent/codex_responses_adapter.py),
        # so a later turn can bring the same id back; its model response is another one.
        note = {"content": "A note asked for twice"}
        turn1 = self.hermes_call("mnote.artifact.create_ai_note", note, session="sess-acp", tool_call_id="acp_call_1",
                                 turn="t1")
        retry = self.hermes_call("mnote.artifact.create_ai_note", note, session="sess-acp", tool_call_id="acp_call_1",
                                 turn="t1")
        turn2 = self.hermes_call("mnote.artifact.create_ai_note", note, session="sess-acp", tool_call_id="acp_call_1",
                                 turn="t2")
        self.assertEqual(retry["audit"]["commandId"], turn1["audit"]["commandId"])
        self.assertNotEqual(turn2["audit"]["commandId"], turn1["audit"]["commandId"])
        self.assertEqual([row["outcome"] for row in self.audit_rows(session_id="sess-acp")], ["ok", "replayed", "ok"])

    def test_toggling_an_option_true_false_true_ends_true(self):
        session = "sess-toggle"
        for turn, value in enumerate([True, False, True]):
            out = self.hermes_call("mnote.page.update_options", {"options": {"wideLayout": value}}, session=session,
                                   tool_call_id=f"call_toggle_{turn}", turn=f"t{turn}")
            self.assertTrue(out["ok"], out)
            self.assertEqual(out["audit"]["effect"], "write")
        page = self.hermes_call("mnote.page.get", {"includeBlocks": False}, session=session, tool_call_id="call_toggle_read")
        self.assertIs(page["result"]["pageOptions"]["wideLayout"], True)
        self.assertEqual(len({row["command_id"] for row in self.audit_rows(session_id=session, effect="write")}), 3)

    def test_without_a_tool_call_id_every_call_writes(self):
        # A handler called without Hermes's middleware (no tool-call id anywhere): the
        # arguments never stand in for the call, so two calls are two writes.
        note = {"content": "A note with no tool-call id"}
        first = self.call("mnote.artifact.create_ai_note", note, session="sess-noid", task="sess-noid")
        second = self.call("mnote.artifact.create_ai_note", note, session="sess-noid", task="sess-noid")
        self.assertTrue(first["ok"] and second["ok"], (first, second))
        self.assertNotEqual(first["audit"]["commandId"], second["audit"]["commandId"])
        self.assertTrue(first["toolCallId"].startswith("hermes_"))
        self.assertNotEqual(first["toolCallId"], second["toolCallId"])
        # Without any Hermes ids the plugin still sends a complete envelope.
        out = self.call("mnote.page.get", session=None, task=None)
        self.assertTrue(out["ok"], out)

    def test_a_key_the_model_passes_is_used(self):
        extra = {"content": "A note with a model key", "idempotencyKey": "model-key-1"}
        first = self.hermes_call("mnote.artifact.create_ai_note", extra, session="sess-a", tool_call_id="call_mk_1")
        second = self.hermes_call("mnote.artifact.create_ai_note", extra, session="sess-b", tool_call_id="call_mk_2")
        self.assertEqual(second["audit"]["commandId"], first["audit"]["commandId"])
        rows = self.audit_rows(idempotency_key="model-key-1")
        self.assertEqual([row["outcome"] for row in rows], ["ok", "replayed"])

    # a person's decision reaches the agent (issue 22) ---------------------------
    def test_a_retry_of_a_held_call_answers_the_rejection_and_its_reason(self):
        ids = self.world["ids"]
        held = {"workspaceId": ids["heldWs"], "documentId": ids["heldPage"], "title": "Agent title"}
        call = dict(session="sess-held", tool_call_id="call_held_1")
        first = self.hermes_call("mnote.page.update_title", held, **call)
        self.assertEqual(first["error"]["code"], "mnote_tool_approval_required")
        # Still pending: the same answer, and no second proposal.
        self.assertEqual(self.hermes_call("mnote.page.update_title", held, **call)["error"]["code"],
                         "mnote_tool_approval_required")
        self.bridge.reject(self.world["tokens"]["ownerPerson"], ids["heldWs"], ids["heldPage"],
                           "Too loud; keep the old title")
        retry = self.hermes_call("mnote.page.update_title", held, **call)
        self.assertFalse(retry["ok"])
        self.assertEqual(retry["error"]["code"], "mnote_tool_rejected")
        self.assertIn('by "owner", who wrote: "Too loud; keep the old title"', retry["error"]["message"])
        self.assertEqual([row["outcome"] for row in self.audit_rows(session_id="sess-held")],
                         ["held_for_approval", "failed", "failed"])
        self.assertEqual([row["error_code"] for row in self.audit_rows(session_id="sess-held")],
                         ["mnote_tool_approval_required", "mnote_tool_approval_required", "mnote_tool_rejected"])

    # Hermes's ids and its classifier ------------------------------------------
    def test_every_audit_row_carries_the_hermes_session_and_tool_call_id(self):
        session = "20261130_185000_a1b2c3"  # the shape of a Hermes session id
        calls = [("mnote.page.get", {}), ("mnote.page.update_title", {"title": "From Hermes"}),
                 ("mnote.page.update_title", {"title": "From Hermes again", "dryRun": True}),
                 ("mnote.artifact.create_summary", {}), ("mnote.page.save", {"content": "x", "unknownField": 1})]
        for index, (canonical, extra) in enumerate(calls):
            out = self.hermes_call(canonical, extra, session=session, tool_call_id=f"call_ids_{index}")
            self.assertEqual(out["toolCallId"], f"call_ids_{index}")
            self.assertRegex(out["traceId"], r"^[0-9a-f]{32}$")
        rows = self.audit_rows(session_id=session)
        self.assertEqual([row["tool_call_id"] for row in rows], [f"call_ids_{i}" for i in range(len(calls))])
        for row in rows:
            # Hermes's turn is the run: f"{session}:{task}:{random}" (agent/turn_context.py).
            self.assertEqual((row["session_id"], row["run_id"]), (session, f"{session}:{session}:t1"))
            self.assertEqual(row["actor_id"], self.world["ids"]["owner"])

    def test_a_tool_call_id_the_envelope_cannot_carry_still_names_the_call(self):
        long_id = "call_" + "x" * 300  # over the envelope's 256 characters
        first = self.hermes_call("mnote.page.update_title", {"title": "Long id"}, session="sess-long", tool_call_id=long_id)
        again = self.hermes_call("mnote.page.update_title", {"title": "Long id"}, session="sess-long", tool_call_id=long_id)
        self.assertTrue(first["ok"], first)
        self.assertTrue(first["toolCallId"].startswith("hermes_"))
        self.assertEqual(again["audit"]["commandId"], first["audit"]["commandId"])

    def test_three_successful_writes_in_a_turn_read_as_successes(self):
        # hermes_call asserts Hermes's classifier agrees with `ok` for every answer; three
        # failures of one tool in one turn would append the guardrail's loop warning.
        for index in range(3):
            out = self.hermes_call("mnote.page.update_title", {"title": f"Title {index}"}, session="sess-three",
                                   tool_call_id=f"call_three_{index}")
            self.assertTrue(out["ok"], out)
        refused = self.hermes_call("mnote.page.update_title", {"title": "No"}, token="viewer", session="sess-three",
                                   tool_call_id="call_three_refused")
        self.assertEqual(refused["error"]["code"], "mnote_tool_permission_denied")

    def test_parallel_tool_calls_keep_their_own_ids(self):
        # agent/tool_executor.py runs a turn's tool calls in worker threads, each in a copy of
        # the parent's context (tools/thread_context.py propagate_context_to_thread).
        session = "sess-parallel"
        results: dict[str, dict] = {}
        start = threading.Barrier(6)

        def worker(index: int):
            start.wait()
            results[f"call_par_{index}"] = self.hermes_call(
                "mnote.artifact.create_ai_note", {"content": "Parallel note"}, session=session,
                tool_call_id=f"call_par_{index}", token=None)

        threads = [threading.Thread(target=contextvars.copy_context().run, args=(worker, i)) for i in range(6)]
        # One environment for the six workers, set before they start and restored after they end: each patching
        # os.environ itself raced (a worker leaving restored it while another was reading its token).
        with self.env("owner"):
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=120)
        self.assertEqual(sorted(results), [f"call_par_{i}" for i in range(6)])
        for call_id, out in results.items():
            self.assertTrue(out["ok"], out)
            self.assertEqual(out["toolCallId"], call_id)
        rows = self.audit_rows(session_id=session)
        self.assertEqual(sorted(row["tool_call_id"] for row in rows), sorted(results))
        self.assertEqual(len({row["command_id"] for row in rows}), 6)

    # envelope fields -------------------------------------------------------
    def test_a_bad_call_is_an_envelope_not_an_exception(self):
        handler = self.ctx.tools["mnote_page_save"]["handler"]
        with self.env():
            for args in (None, "not json", {"workspaceId": 5}, {"content": "x", "unknownField": 1}):
                with self.subTest(args=args):
                    out = json.loads(handler(args))
                    self.assertFalse(out["ok"])
                    self.assertEqual(out["error"]["code"], "mnote_tool_invalid_input")

    # Markdown (decision 0026) ----------------------------------------------
    def test_the_schemas_offer_markdown_reads_and_writes(self):
        params = {tool["canonicalName"]: tool["parameters"] for tool in self.schemas["tools"]}
        self.assertEqual(params["mnote.page.get"]["properties"]["format"]["enum"], ["blocks", "markdown"])
        self.assertEqual(params["mnote.page.save"]["properties"]["markdown"]["type"], "string")
        operation = params["mnote.page.edit"]["properties"]["operations"]["items"]
        self.assertEqual(operation["properties"]["markdown"]["type"], "string")
        # Registered with Hermes as generated: what the model is offered is what the file says.
        registered = self.ctx.tools["mnote_page_get"]["schema"]["parameters"]["properties"]
        self.assertIn("format", registered)

    def test_a_markdown_read_and_write_go_through_the_bridge_as_hermes_results(self):
        ids = self.world["ids"]
        page = {"workspaceId": ids["ws"], "documentId": ids["page2"]}

        def hermes(name: str, args: dict, call_id: str) -> dict:
            with self.env():
                text = self.hermes.call(name, {**page, **args}, session_id="sess-md", tool_call_id=call_id)
            self.assertIsInstance(text, str)  # Hermes hands the model the string as it is
            out = json.loads(text)
            self.assertEqual(hermes_detects_failure(text), not out["ok"], text[:500])
            return out

        saved = hermes("mnote_page_save", {"markdown": "# Launch\n\nShip on Friday\n"}, "call_md_save")
        self.assertTrue(saved["ok"], saved)
        self.assertEqual(saved["toolName"], "mnote.page.save")
        self.assertEqual(saved["audit"]["effect"], "write")

        read = hermes("mnote_page_get", {"format": "markdown"}, "call_md_read")
        self.assertTrue(read["ok"], read)
        self.assertEqual(read["audit"]["effect"], "read")
        markdown = read["result"]["markdown"]
        lines = re.findall(r"(?m)^(.*) <!-- mnote:id=(\S+) -->$", markdown)
        self.assertEqual([text for text, _ in lines], ["# Launch", "Ship on Friday"], markdown)
        block_id = lines[1][1]

        edited = hermes("mnote_page_edit", {"baseRevision": read["result"]["revision"], "operations": [
            {"op": "replace", "blockId": block_id, "markdown": "Ship on **Friday**"}]}, "call_md_edit")
        self.assertTrue(edited["ok"], edited)
        self.assertEqual(edited["toolName"], "mnote.page.edit")

        # Bold, not asterisks: the block form carries the mark, the Markdown form writes it back as Markdown.
        blocks = hermes("mnote_page_get", {"includeBlocks": True}, "call_md_blocks")["result"]["blocks"]
        [paragraph] = [block for block in blocks if block["id"] == block_id]
        self.assertEqual(paragraph["text"], "Ship on Friday")
        self.assertEqual(paragraph["marks"], [{"type": "bold", "start": 8, "end": 14}])
        again = hermes("mnote_page_get", {"format": "markdown"}, "call_md_again")["result"]["markdown"]
        self.assertIn(f"Ship on **Friday** <!-- mnote:id={block_id} -->", again)

        # A Markdown write the contract refuses is an envelope Hermes sees as a failure, and writes nothing.
        refused = hermes("mnote_page_edit", {"operations": [
            {"op": "replace", "blockId": block_id, "markdown": "[x](javascript:alert(1))"}]}, "call_md_refused")
        self.assertFalse(refused["ok"])
        self.assertEqual(refused["error"]["code"], "mnote_tool_invalid_input")

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
        # The error right after ok: Hermes's fallback rule (tool_guardrails.classify_tool_failure) reads 500 characters.
        self.assertEqual(list(out)[:2], ["ok", "error"])
        self.assertIn('"error"', text[:500].lower())

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
