"""The envelope the plugin builds names a page only when the model named one (issue 34): a workspace tool
(mnote.workspace.search) takes no documentId, and the router refuses one sent to it, so `None` must not be sent."""

from __future__ import annotations

import unittest
from pathlib import Path

from .support import load_plugin

PLUGIN_DIR = Path(__file__).resolve().parent.parent / "mnote"
DOCUMENT = {"modelEnvelopeFields": ["workspaceId", "documentId", "dryRun", "idempotencyKey"]}
IDENTITY = {"actorId": "user_ada", "capabilityScope": ["page.read"]}


class EnvelopeScopeTest(unittest.TestCase):
    def setUp(self) -> None:
        self.client = load_plugin(PLUGIN_DIR).client

    def build(self, tool: dict, arguments: dict) -> dict:
        return self.client.build_envelope(tool, DOCUMENT, arguments, {"session_id": "s"}, IDENTITY)

    def test_a_workspace_tools_envelope_has_no_document_id(self) -> None:
        tool = {"name": "mnote_workspace_search", "canonicalName": "mnote.workspace.search", "kind": "read"}
        envelope = self.build(tool, {"workspaceId": "ws", "query": "plan"})
        self.assertNotIn("documentId", envelope)
        self.assertEqual(envelope["workspaceId"], "ws")
        self.assertEqual(envelope["args"], {"query": "plan"})

    def test_a_page_tools_envelope_carries_the_page_the_model_named(self) -> None:
        tool = {"name": "mnote_page_get", "canonicalName": "mnote.page.get", "kind": "read"}
        self.assertEqual(self.build(tool, {"workspaceId": "ws", "documentId": "doc"})["documentId"], "doc")
        # Left out by the model: left out of the envelope, and the router says a page tool needs one.
        self.assertNotIn("documentId", self.build(tool, {"workspaceId": "ws"}))


if __name__ == "__main__":
    unittest.main()
