"""Envelope building and the HTTP call to the mnote bridge. Standard library only.

A handler never raises: any network failure, timeout or answer that is not an mnote
envelope becomes the contract's ``mnote_tool_unavailable`` envelope.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
import logging
import re
import threading
import urllib.error
import urllib.request
import uuid
from typing import Any, Callable, Optional

from . import settings

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = settings.DEFAULT_TIMEOUT_SECONDS
USER_AGENT = "mnote-hermes-plugin/0.1.0"
# Asks the bridge for the envelope as Hermes-safe JSON: the same JSON value, but a success
# never spells `"error"` where Hermes's failure test (agent/display.py _detect_tool_failure,
# agent/tool_guardrails.py) looks for it.
RESULT_FORM_HEADER = ("X-Mnote-Result-Form", "hermes")
# Used when Hermes gives no session id: one per Hermes process.
PROCESS_SESSION_ID = "hermes_" + uuid.uuid4().hex
# A W3C trace id: only such ids are also sent as a traceparent header.
_TRACE_ID = re.compile(r"^[0-9a-f]{32}$")


class Unavailable(Exception):
    """The bridge could not be reached or did not answer with an envelope."""


class Refused(Exception):
    """The bridge refused the identity lookup with a contract error (e.g. rate limited)."""

    def __init__(self, code: str, message: str):
        super().__init__(code)
        self.code = code
        self.message = message


def _settings() -> tuple[str, str, float]:
    """The bridge URL, token and timeout of the profile the calling turn runs for (settings.py explains where)."""
    return settings.bridge()


def is_configured() -> bool:
    """check_fn: the tools show when the bridge URL and a token are set (no network probe,
    so a bridge that is down still answers the model with ``mnote_tool_unavailable``)."""
    url, token, _ = _settings()
    return bool(url) and bool(token)


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _http(method: str, url: str, token: str, timeout: float, body: Optional[bytes] = None,
          headers: Optional[dict] = None) -> tuple[int, str]:
    """One request; (status, text) for any HTTP answer, Unavailable for anything else."""
    request = urllib.request.Request(url, data=body, method=method)
    request.add_header("Accept", "application/json")
    request.add_header("User-Agent", USER_AGENT)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    for key, value in (headers or {}).items():
        request.add_header(key, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        try:
            return error.code, error.read().decode("utf-8")
        except Exception as inner:  # a broken error body is still "unavailable"
            raise Unavailable(f"unreadable HTTP {error.code} answer") from inner
        finally:
            error.close()
    except Exception as error:  # URLError, timeouts, resets, bad URLs, decoding errors
        raise Unavailable(type(error).__name__) from error


_identity_cache: dict[tuple[str, str], dict] = {}
_identity_lock = threading.Lock()


def _cache_key(url: str, token: str) -> tuple[str, str]:
    return url, hashlib.sha256(token.encode("utf-8")).hexdigest()


def whoami(url: str, token: str, timeout: float) -> Optional[dict]:
    """actorId and capabilityScope of the token (GET /v1/whoami, cached); None when the
    bridge does not know the token (the tool call then gets the router's answer)."""
    key = _cache_key(url, token)
    with _identity_lock:
        if key in _identity_cache:
            return _identity_cache[key]
    status, text = _http("GET", f"{url}/v1/whoami", token, timeout)
    if status == 401:
        return None
    try:
        identity = json.loads(text)
    except ValueError as error:
        raise Unavailable("whoami answer is not JSON") from error
    error = identity.get("error") if isinstance(identity, dict) else None
    if status != 200 and isinstance(error, dict) and isinstance(error.get("code"), str) \
            and error["code"].startswith("mnote_tool_"):
        raise Refused(error["code"], str(error.get("message", "")))
    if (status != 200 or not isinstance(identity, dict) or not isinstance(identity.get("actorId"), str)
            or not isinstance(identity.get("capabilityScope"), list)):
        raise Unavailable(f"whoami answered HTTP {status}")
    with _identity_lock:
        _identity_cache[key] = identity
    return identity


def forget_identity(url: str, token: str) -> None:
    with _identity_lock:
        _identity_cache.pop(_cache_key(url, token), None)


def _text(value: Any) -> Optional[str]:
    return value if isinstance(value, str) and value else None


# The contract's limits for an envelope id field: 1 to 256 characters, no control characters.
_ENVELOPE_ID = re.compile(r"^[^\x00-\x1f\x7f]{1,256}$")


def _envelope_id(value: Any) -> Optional[str]:
    """A Hermes id the envelope can carry as it is (else the plugin makes its own)."""
    return value if isinstance(value, str) and _ENVELOPE_ID.match(value) else None


def _model_arguments(args: Any) -> dict:
    if isinstance(args, dict):
        return dict(args)
    if isinstance(args, str):
        try:
            parsed = json.loads(args)
        except ValueError:
            return {}
        return parsed if isinstance(parsed, dict) else {}
    return {}


class HermesCall:
    """The ids Hermes gives one tool call: its session, its tool-call id (``call_…``) and the
    model response it came from (``api_request_id``, ``<turn id>:api:<n>``)."""

    __slots__ = ("tool_name", "session_id", "tool_call_id", "task_id", "turn_id", "api_request_id")

    def __init__(self, tool_name: str, session_id: str, tool_call_id: str, task_id: str, turn_id: str,
                 api_request_id: str):
        self.tool_name = tool_name
        self.session_id = session_id
        self.tool_call_id = tool_call_id
        self.task_id = task_id
        self.turn_id = turn_id
        self.api_request_id = api_request_id


# Hermes hands a tool handler only (args, task_id, session_id, user_task): the tool-call id
# reaches `handle_function_call`, the hooks and the middleware, never the handler
# (model_tools.py, tools/registry.py dispatch). The plugin's tool_execution middleware gets
# it with the call it wraps and binds it here for exactly the duration of that call. A
# ContextVar is local to its thread (and asyncio task): Hermes runs parallel tool calls in
# worker threads, each in its own copied context (agent/tool_executor.py,
# propagate_context_to_thread), so one call can never see another call's id.
_current_call: contextvars.ContextVar[Optional[HermesCall]] = contextvars.ContextVar(
    "mnote_hermes_call", default=None)


def make_tool_execution_middleware(tool_names: set[str]) -> Callable[..., Any]:
    """Hermes ``tool_execution`` middleware (hermes_cli/middleware.py run_tool_execution_middleware):
    called as ``callback(tool_name=, args=, next_call=, task_id=, session_id=, tool_call_id=, …)``
    around the real dispatch. For an mnote tool it binds Hermes's ids around ``next_call``;
    it never changes the arguments or the result, and passes every other tool straight on."""

    def mnote_tool_call_ids(*, tool_name: str = "", next_call: Callable[..., Any], session_id: str = "",
                            tool_call_id: str = "", task_id: str = "", turn_id: str = "", api_request_id: str = "",
                            **_context: Any) -> Any:
        if tool_name not in tool_names:
            return next_call()
        token = _current_call.set(HermesCall(tool_name, _text(session_id) or "", _text(tool_call_id) or "",
                                             _text(task_id) or "", _text(turn_id) or "", _text(api_request_id) or ""))
        try:
            return next_call()
        finally:
            _current_call.reset(token)

    return mnote_tool_call_ids


def hermes_call_for(tool_name: str) -> Optional[HermesCall]:
    """The ids the middleware bound for this tool's call, if it is the call being run."""
    call = _current_call.get()
    return call if call is not None and call.tool_name == tool_name else None


def idempotency_key(session_id: str, tool_call_id: str, api_request_id: str = "") -> str:
    """One key per Hermes tool call: a retry of that call (same session, same tool-call id)
    replays its first answer; any other call writes, whatever its arguments.

    The model response's id is part of the key when Hermes gives it, because a tool-call id
    alone does not always name one call: when a provider sends none, Hermes makes one from
    (tool, arguments, index) (agent/codex_responses_adapter.py _deterministic_call_id) or
    numbers them per response (agent/copilot_acp_client.py ``acp_call_1``), so the same
    request in a later turn would get the same id. ``api_request_id`` is
    ``<turn id>:api:<n>`` with a random part per turn (agent/turn_context.py,
    agent/conversation_loop.py), the same for every dispatch of one tool call."""
    digest = hashlib.sha256(canonical_json(["hermes-tool-call", session_id, api_request_id, tool_call_id])
                            .encode("utf-8"))
    return "hermes_" + digest.hexdigest()


def build_envelope(tool: dict, document: dict, arguments: dict, kwargs: dict,
                   identity: Optional[dict]) -> dict:
    """The full input envelope: the model's page and write fields, its tool args, and the
    fields the runtime owns (identity from the token, ids from Hermes or generated)."""
    envelope_fields = set(document.get("modelEnvelopeFields", []))
    call = hermes_call_for(tool["name"])
    session_id = _envelope_id(kwargs.get("session_id")) or (call and _envelope_id(call.session_id)) \
        or PROCESS_SESSION_ID
    # The turn is the run (as on the MCP door); Hermes's task_id is the session id in its CLI.
    run_id = (call and _envelope_id(call.turn_id)) or _envelope_id(kwargs.get("task_id")) \
        or (call and _envelope_id(call.task_id)) or session_id
    hermes_tool_call_id = _text(kwargs.get("tool_call_id")) or (call and _text(call.tool_call_id))
    tool_call_id = _envelope_id(hermes_tool_call_id) or "hermes_" + uuid.uuid4().hex
    trace_id = _text(kwargs.get("trace_id")) or uuid.uuid4().hex
    fields = {k: v for k, v in arguments.items() if k in envelope_fields}
    args = {k: v for k, v in arguments.items() if k not in envelope_fields}
    envelope = {
        "toolName": tool["canonicalName"],
        "workspaceId": fields.get("workspaceId"),
        "actorId": (identity or {}).get("actorId", "unauthenticated"),
        "sessionId": session_id,
        "runId": run_id,
        "toolCallId": tool_call_id,
        "traceId": trace_id,
        "capabilityScope": (identity or {}).get("capabilityScope", ["page.read"]),
        "args": args,
    }
    # A page only when the model named one: a workspace tool's envelope has none (the router refuses one sent to it,
    # and says a page tool's missing page in words).
    if "documentId" in fields:
        envelope["documentId"] = fields["documentId"]
    if tool.get("kind") == "write":
        envelope["dryRun"] = fields.get("dryRun", False)
        # Never derived from the arguments: the same arguments in a later turn are a new
        # call and must write. Without a Hermes tool-call id there is nothing that names
        # the call across a retry, so each call gets its own key.
        envelope["idempotencyKey"] = fields.get("idempotencyKey") or (
            idempotency_key(session_id, hermes_tool_call_id, (call and call.api_request_id) or "")
            if hermes_tool_call_id
            else "hermes_" + uuid.uuid4().hex)
    else:
        for key in ("dryRun", "idempotencyKey"):
            if key in fields:
                envelope[key] = fields[key]
    return envelope


def failure_envelope(tool: dict, envelope: dict, code: str, message: str) -> dict:
    """The contract's failure envelope, for answers the plugin must make itself."""
    # The error right after ok: Hermes's fallback failure rule reads only a result's first 500 characters
    # (agent/tool_guardrails.py classify_tool_failure), and long ids would push a trailing error past them.
    return {
        "ok": False,
        "error": {"code": code, "message": message},
        "toolName": tool["canonicalName"],
        "toolCallId": _text(envelope.get("toolCallId")),
        "traceId": _text(envelope.get("traceId")),
        "result": None,
        "audit": {
            "effect": "none",
            "commandId": None,
            "workspaceId": _text(envelope.get("workspaceId")),
            "documentId": _text(envelope.get("documentId")),
        },
    }


def unavailable_envelope(tool: dict, document: dict, envelope: dict) -> dict:
    """The contract's failure envelope for a bridge that cannot be reached."""
    message = document.get("unavailableMessage", "mnote is unavailable; retry later")
    return failure_envelope(tool, envelope, "mnote_tool_unavailable", message)


def _is_envelope(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("ok"), bool) and "error" in value and "toolName" in value


def call_tool(tool: dict, document: dict, args: Any, kwargs: dict) -> str:
    """POST the envelope to the bridge; the answer as a JSON string, whatever happens."""
    arguments = _model_arguments(args)
    call = hermes_call_for(tool["name"])
    tool_call_id = _envelope_id(kwargs.get("tool_call_id")) or (call and _envelope_id(call.tool_call_id))
    envelope: dict = {"toolCallId": tool_call_id,
                      "traceId": None,
                      "workspaceId": arguments.get("workspaceId"), "documentId": arguments.get("documentId")}
    try:
        url, token, timeout = _settings()
        if not url:
            raise Unavailable("MNOTE_BRIDGE_URL is not set")
        identity = whoami(url, token, timeout) if token else None
        envelope = build_envelope(tool, document, arguments, kwargs, identity)
        trace_id = envelope["traceId"]
        headers = {"Content-Type": "application/json", RESULT_FORM_HEADER[0]: RESULT_FORM_HEADER[1]}
        if _TRACE_ID.match(trace_id):
            headers["traceparent"] = f"00-{trace_id}-{uuid.uuid4().hex[:16]}-01"
        body = json.dumps(envelope, ensure_ascii=False).encode("utf-8")
        status, text = _http("POST", f"{url}/v1/tools/{tool['name']}", token, timeout, body, headers)
        try:
            answer = json.loads(text)
        except ValueError as error:
            raise Unavailable(f"HTTP {status} answer is not JSON") from error
        if not _is_envelope(answer):
            raise Unavailable(f"HTTP {status} answer is not an mnote envelope")
        if (answer.get("error") or {}).get("code") == "mnote_tool_unauthenticated":
            forget_identity(url, token)  # a revoked or rotated token: ask again next time
        return text
    except Refused as refused:
        return json.dumps(failure_envelope(tool, envelope, refused.code, refused.message), ensure_ascii=False)
    except Unavailable as error:
        logger.warning("mnote: %s unavailable (%s)", tool["name"], error)
    except Exception:  # never raise into Hermes
        logger.exception("mnote: %s failed in the plugin", tool["name"])
    return json.dumps(unavailable_envelope(tool, document, envelope), ensure_ascii=False)


def make_handler(tool: dict, document: dict) -> Callable[..., str]:
    def handler(args: Any, **kwargs: Any) -> str:
        return call_tool(tool, document, args, kwargs)

    handler.__name__ = tool["name"]
    handler.__doc__ = tool["description"]
    return handler
