"""mnote behind Hermes 0.21's tool search, and with it off (issue 35 item 1; decision 0042).

The Hermes stand-in's scripted model (e2e/hermes-standin/server.py, tool_search.py: 0.21.3's bridge as the model
sees it) asks the same thing in both modes — add a line to a page — through this plugin and a real bridge, and each
run's cost is counted: requests to the model, tool calls, and the tool bytes the requests carry (definitions, and
the results that stay in the conversation). MNOTE_PRINT_MEASUREMENTS=1 prints them (the table in decision 0042).
"""

from __future__ import annotations

import json
import os
import sys
import unittest
import uuid
from pathlib import Path
from unittest import mock

from .support import Bridge, load_plugin

STANDIN_DIR = Path(__file__).resolve().parents[4] / "e2e" / "hermes-standin"
LINE = "Risk: the vendor may deliver late"


def import_standin():
    """The stand-in's modules (server.py and tool_search.py, a script and its neighbour, not a package)."""
    if str(STANDIN_DIR) not in sys.path:
        sys.path.insert(0, str(STANDIN_DIR))
    import server  # noqa: E402  (the stand-in's server.py)
    import tool_search  # noqa: E402

    return server, tool_search


class ToolSearchAgainstBridge(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bridge = Bridge().start()
        cls.world = cls.bridge.world
        cls.server, cls.tool_search = import_standin()
        cls.plugin = load_plugin(cls.bridge.plugin_dir)

    @classmethod
    def tearDownClass(cls):
        cls.bridge.stop()

    def ask(self, mode: str, document_id: str, workspace_id: str):
        """One run of the stand-in in 0.21 mode with tool search `mode`: (the run, the stand-in)."""
        ctx = self.server.PluginContext()
        self.plugin.register(ctx)
        standin = self.server.StandIn("key", ctx, version="0.21", tool_search_mode=mode)
        session = f"mnote_{document_id}_{uuid.uuid4().hex}"
        run = self.server.Run(f"run_{uuid.uuid4().hex}", session, f'Please add a line "{LINE}"',
                              f"(workspaceId {workspace_id}) (documentId {document_id})", [])
        env = {"MNOTE_BRIDGE_URL": self.bridge.url, "MNOTE_TOKEN": self.world["tokens"]["owner"]}
        with mock.patch.dict(os.environ, env):
            standin.execute(run)
        events = []
        while not run.events.empty():
            event = run.events.get()
            if event is not None:
                events.append(event)
        return run, standin, events

    def page_text(self, workspace_id: str, document_id: str) -> str:
        handler = self.server.PluginContext()
        self.plugin.register(handler)
        with mock.patch.dict(os.environ, {"MNOTE_BRIDGE_URL": self.bridge.url,
                                          "MNOTE_TOKEN": self.world["tokens"]["owner"]}):
            page = json.loads(handler.tools["mnote_page_get"]["handler"](
                {"workspaceId": workspace_id, "documentId": document_id, "format": "markdown"},
                task_id="t", session_id="s", user_task="read"))
        return page["result"]["markdown"]

    def test_both_modes_make_the_same_edit_and_tool_search_costs_one_request_and_one_call_more(self):
        ids = self.world["ids"]
        measured = {}
        for mode, page in (("off", ids["page"]), ("auto", ids["page2"])):
            run, standin, events = self.ask(mode, page, ids["ws"])
            self.assertEqual(run.status["status"], "completed", run.status)
            self.assertIn(f'I added "{LINE}"', run.status["output"])
            self.assertIn(LINE, self.page_text(ids["ws"], page))
            measured[mode] = run.metrics.as_json()
            shown = [e["tool"] for e in events if e["event"] == "tool.started"]
            if mode == "off":
                self.assertEqual(shown, ["mnote_page_get", "mnote_page_edit"])
            else:
                # The activity feed names the unwrapped tool, as Hermes's does; the schemas come first, in one call.
                self.assertEqual(shown, ["tool_describe", "mnote_page_get", "mnote_page_edit"])
                names = [d["function"]["name"] for d in standin.surface.definitions()]
                self.assertEqual(names, ["tool_search", "tool_describe", "tool_call"])
        self.assertEqual((measured["off"]["model_requests"], measured["off"]["tool_calls"]), (3, 2))
        self.assertEqual((measured["auto"]["model_requests"], measured["auto"]["tool_calls"]), (4, 3))
        # What each request carries: the three bridge tools and a listing, against mnote's full schemas.
        self.assertLess(measured["auto"]["tool_definitions_bytes_per_request"],
                        measured["off"]["tool_definitions_bytes_per_request"] / 4)
        if os.environ.get("MNOTE_PRINT_MEASUREMENTS") == "1":
            print(json.dumps(measured, indent=2), file=sys.stderr)

    def test_the_listing_names_every_mnote_tool_with_its_first_sentence(self):
        ctx = self.server.PluginContext()
        self.plugin.register(ctx)
        surface = self.tool_search.ToolSurface(ctx.tools, "mnote", "auto")
        search = surface.definitions()[0]["function"]["description"]
        self.assertIn(f"mnote tools ({len(ctx.tools)}):", search)
        self.assertGreaterEqual(len(ctx.tools), 7)
        for name in ctx.tools:
            self.assertRegex(search, rf"(?m)^- {name}: \S")
        self.assertIn("- mnote_page_update_title: Rename a page.", search)
        # Hermes's first-sentence rule keeps each line short: 60 characters and an ellipsis at most.
        for line in search.splitlines():
            if line.startswith("- mnote_"):
                self.assertLessEqual(len(line.split(": ", 1)[1]), 61, line)
        self.assertEqual(self.tool_search.ToolSurface(ctx.tools, "mnote", "off").definitions()[0]["function"]["name"],
                         "mnote_artifact_create_ai_note")

    def test_a_tool_call_missing_a_required_argument_is_refused_before_mnote_is_called(self):
        ctx = self.server.PluginContext()
        self.plugin.register(ctx)
        surface = self.tool_search.ToolSurface(ctx.tools, "mnote", "auto")
        name, _, refused = surface.unwrap({"calls": [{"name": "mnote_page_edit", "arguments": {"workspaceId": "w"}}]})
        self.assertIsNone(name)
        self.assertIn("The tool was NOT invoked", refused)
        self.assertIn("documentId", refused)
        _, _, two = surface.unwrap({"calls": [{"name": "mnote_page_get", "arguments": {}}] * 2})
        self.assertIn("exactly one entry", two)


if __name__ == "__main__":
    unittest.main()
