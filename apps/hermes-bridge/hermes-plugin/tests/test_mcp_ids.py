"""mcp_ids: Hermes's ids added to mnote MCP calls (python3 -m unittest)."""

from __future__ import annotations

import unittest

from mnote import mcp_ids


def run_execution_middleware(tool_name: str, args: dict, **context):
    """How Hermes calls a ``tool_execution`` middleware (hermes_cli/middleware.py
    ``_run_execution_chain``, from model_tools.handle_function_call): keyword arguments
    tool_name, args, next_call and the call's ids; the handler receives what next_call gets."""
    received = []

    def next_call(next_args=None):
        received.append(args if next_args is None else next_args)
        return "handler result"

    ids = dict(task_id="", session_id="", tool_call_id="", turn_id="", api_request_id="")
    ids.update(context)
    result = mcp_ids.add_caller_ids(tool_name=tool_name, args=args, next_call=next_call, original_args=args,
                                    telemetry_schema_version="hermes.observer.v1",
                                    middleware_schema_version="hermes.middleware.v1", **ids)
    return result, received


HERMES_IDS = dict(session_id="20261130_190000_ab12cd", turn_id="20261130_190000_ab12cd:task:1a2b3c4d",
                  task_id="20261130_190000_ab12cd", tool_call_id="call_Xy12")


class AddCallerIds(unittest.TestCase):
    def test_an_mnote_mcp_tool_gets_hermes_ids(self):
        args = {"workspaceId": "w", "documentId": "d", "title": "T"}
        result, received = run_execution_middleware("mcp__mnote__mnote_page_update_title", args, **HERMES_IDS)
        self.assertEqual(result, "handler result")
        self.assertEqual(received, [{**args, "_caller": {
            "sessionId": HERMES_IDS["session_id"], "runId": HERMES_IDS["turn_id"], "toolCallId": "call_Xy12"}}])
        self.assertNotIn("_caller", args, "the model's own arguments stay as they were")

    def test_any_server_name(self):
        for name in ("mcp__my_notes__mnote_page_get", "mcp__mnote__mnote_page_get"):  # v0.18 and older names
            _, received = run_execution_middleware(name, {}, **HERMES_IDS)
            self.assertIn("_caller", received[0], name)

    def test_other_tools_are_untouched(self):
        for name in ("mnote_page_get", "mcp__github__create_issue", "terminal", "mcp__mnote__other_tool"):
            _, received = run_execution_middleware(name, {"x": 1}, **HERMES_IDS)
            self.assertEqual(received, [{"x": 1}], name)

    def test_a_caller_value_the_model_wrote_is_replaced_by_hermes_ids(self):
        # A model naming another session (e.g. to leave the conversation the panel bound it to) gets Hermes's.
        forged = {"_caller": {"sessionId": "mnote_doc_private_" + "0" * 32}, "documentId": "d"}
        _, received = run_execution_middleware("mcp__mnote__mnote_page_get", forged, **HERMES_IDS)
        self.assertEqual(received, [{"documentId": "d", "_caller": {
            "sessionId": HERMES_IDS["session_id"], "runId": HERMES_IDS["turn_id"], "toolCallId": "call_Xy12"}}])
        _, received = run_execution_middleware("mcp__mnote__mnote_page_get", forged)
        self.assertEqual(received, [{"documentId": "d"}], "without Hermes ids the model's value goes too")

    def test_ids_the_bridge_would_refuse_are_left_out(self):
        _, received = run_execution_middleware("mcp__mnote__mnote_page_get", {}, session_id="s" * 257,
                                               turn_id="", task_id="task-1", tool_call_id="call\n1")
        self.assertEqual(received, [{"_caller": {"runId": "task-1"}}])
        _, received = run_execution_middleware("mcp__mnote__mnote_page_get", {"a": 1})
        self.assertEqual(received, [{"a": 1}])

    def test_register_uses_hermes_middleware_when_there_is_any(self):
        class Context:
            def __init__(self):
                self.middleware = []

            def register_middleware(self, kind, callback):
                self.middleware.append((kind, callback))

        context = Context()
        mcp_ids.register(context)
        self.assertEqual(context.middleware, [("tool_execution", mcp_ids.add_caller_ids)])
        mcp_ids.register(object())  # an older Hermes without middleware: nothing to do, no error


if __name__ == "__main__":
    unittest.main()
