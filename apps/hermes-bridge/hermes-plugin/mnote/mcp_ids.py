"""Hermes's own ids on every call Hermes makes to the mnote MCP server.

Hermes's MCP client sends no ``_meta`` and no id of its own: without help, an mnote
audit row of an MCP call names only the MCP session, and cannot be joined to the
Hermes transcript. Hermes does hand its session id, turn id, task id and tool-call id
to plugin middleware (``hermes_cli/middleware.py``; ``model_tools.handle_function_call``
runs ``tool_execution`` middleware around every tool's handler). This module wraps the
handler of the mnote MCP tools (``mcp__<server>__mnote_*``) and adds those ids under the
bridge's reserved argument ``_caller``; the bridge puts them in the envelope's
``sessionId``, ``runId`` and ``toolCallId`` and keys writes by them, so a retry of one
Hermes tool call replays and a new call writes.

``tool_execution`` rather than ``tool_request`` middleware: only the MCP handler sees
``_caller``. Hermes's guardrails, hooks and transcript keep the model's own arguments,
so its repeated-call detection still compares what the model asked for.
"""

from __future__ import annotations

import re
from typing import Any, Callable

CALLER_ARGUMENT = "_caller"
# Hermes v0.18 names MCP tools mcp__<server>__<tool> (tools/mcp_tool.py mcp_prefixed_tool_name),
# earlier releases mcp_<server>_<tool>; the bridge's tools are mnote_<noun>_<verb>.
MNOTE_MCP_TOOL = re.compile(r"^mcp_[A-Za-z0-9_]+?_mnote_[a-z_]+$")
# The bridge's limits for an envelope id: 1 to 256 characters, no control characters.
_MAX_ID_LENGTH = 256
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def _usable(value: Any) -> str | None:
    if isinstance(value, str) and 0 < len(value) <= _MAX_ID_LENGTH and not _CONTROL.search(value):
        return value
    return None


def caller_ids(session_id: Any = "", turn_id: Any = "", task_id: Any = "", tool_call_id: Any = "") -> dict:
    """The ``_caller`` value: ids the bridge accepts, the turn as the run (else the task)."""
    ids = {
        "sessionId": _usable(session_id),
        "runId": _usable(turn_id) or _usable(task_id),
        "toolCallId": _usable(tool_call_id),
    }
    return {key: value for key, value in ids.items() if value}


def add_caller_ids(tool_name: str = "", args: Any = None, next_call: Callable | None = None, **context: Any):
    """Hermes ``tool_execution`` middleware: call the tool with ``_caller`` added for mnote MCP tools."""
    if next_call is None:
        return None
    if not isinstance(args, dict) or not MNOTE_MCP_TOOL.match(tool_name or ""):
        return next_call(args)
    ids = caller_ids(
        context.get("session_id"), context.get("turn_id"), context.get("task_id"), context.get("tool_call_id")
    )
    # No model schema has ``_caller``: one already in the arguments is the model's own, and a model
    # must not name the session it acts in (a conversation asked from the panel binds its calls to
    # the person and page it was asked by; decision 0021). Hermes's ids replace it; none, it goes.
    model_args = {key: value for key, value in args.items() if key != CALLER_ARGUMENT}
    return next_call({**model_args, CALLER_ARGUMENT: ids} if ids else model_args)


def register(ctx) -> None:
    """Register the middleware, on a Hermes that has plugin middleware (v0.18 and later)."""
    register_middleware = getattr(ctx, "register_middleware", None)
    if callable(register_middleware):
        register_middleware("tool_execution", add_caller_ids)
