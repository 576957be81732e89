"""A stand-in for Hermes Agent's API server (v0.18.2, gateway/platforms/api_server.py), for the
panel's "Ask Hermes" flows. Standard library only: this project's CI has no Python registry.

It speaks Hermes's run API as Hermes's code does (status codes, JSON shapes, SSE framing):
  POST /v1/runs                 {input, instructions?, session_id?, conversation_history?} -> 202 {run_id, status: "started"}
  GET  /v1/runs/{id}            the run's status object (object: "hermes.run")
  GET  /v1/runs/{id}/events     `data: {json}\\n\\n` per event (the name is the payload's "event"), `: keepalive`
                                after 30 s of silence, `: stream closed` at the end; one reader per run
  POST /v1/runs/{id}/approval   {choice: once|session|always|deny} -> 200, 400 bad choice, 409 nothing pending
  POST /v1/runs/{id}/stop       -> 200 {run_id, status: "stopping"}, 404 unknown run
  GET  /api/sessions/{id}/messages   the conversation Hermes keeps (mnote keeps none)
  GET  /v1/toolsets             the toolsets a run of the API server gets, as gateway/platforms/api_server.py
                                `_handle_toolsets` reports them: {object: "list", platform: "api_server",
                                data: [{name, label, description, enabled, configured, tools}]}; which are
                                enabled is read from --toolsets-file on every request (Hermes reads its
                                config.yaml `platform_toolsets.api_server` on every request too)
  GET  /health
Every route but /health wants `Authorization: Bearer <key>` (401 {"error": {..., "code": "invalid_api_key"}}).

It is not a puppet: its scripted "model" decides which tools to call, and each call goes through the
project's REAL Hermes plugin (apps/hermes-bridge/hermes-plugin/mnote), registered with a context shaped
like Hermes's, and run the way Hermes runs it: the plugin's tool_execution middleware around
`handler(args, task_id=, session_id=, user_task=)`, with task_id = session_id or run_id. So every call
reaches the real bridge, router and database, and lands in the audit trail under the run's session.

Scripts, chosen by the question:
  "add a line ..."            read the page, then insert a line at its end (held for approval when the
                              workspace asks for it), and say so
  "stress the deadline ..."   as models that write Markdown do: read the page with format: "markdown", then
                              replace the block naming a weekday with the same Markdown line, the weekday
                              made **bold** (an mnote_page_edit replace with `markdown`), and say so
  "... wait ..." / "slow"     say it is thinking, then wait (up to 60 s) until stopped
  "... dangerous ..."         run the terminal tool (not mnote's), which asks for Hermes's own approval
                              (approval.request, as tools/approval.py does for a dangerous command)
  "... doc_xyz ..."           read that page (another page than the one asked about), and tell what it says
  "... fail ..."              the model answers 401 -> run.failed
  "what did I ask ..."        repeat the person's earlier questions from conversation_history
  "I rejected your proposed edit. My reason: ..."   (the panel's "Tell Hermes") acknowledge the reason, naming
                              the line it proposed earlier in the conversation (from conversation_history)
  anything else               read the page and say its title and revision

With `--hermes 0.21` it answers as Hermes 0.21.3's API server does (upstream NousResearch/hermes-agent @
00067189dfecf833d4d009c2dd977ae85cf800e0; read in the stored index at its rebrand xiaoxuanoos/tino-agent @
0f1ec5ea80861f394d6c849eac5b8a0cc174bbe5: gateway/platforms/api_server.py, api_server_runs.py; issue 35), where
0.18.2 differs:
  GET  /v1/capabilities         {object: "hermes.api_server.capabilities", features: {..., runs_idempotency:
                                {supported: true, durable: true, retention_seconds}}} (0.18: 404)
  POST /v1/runs                 `Idempotency-Key` (blank: none; over 255 characters or not visible ASCII: 400
                                invalid_idempotency_key): the same key and body replays 202 {run_id, status: <its
                                status now>, replayed: true} with `Idempotency-Replayed: true`; another body under the
                                key is 409 `idempotency_key_conflict`. A new run answers {run_id, status: "started",
                                replayed: false}. Without conversation_history the conversation is loaded from
                                session_id (0.18 starts from nothing)
  approval.request              carries `request_id`; an answer naming another request resolves nothing: 409
                                approval_not_pending; approval.responded and the answer repeat the request_id
  tool.completed                carries `preview`: the result, at most 500 characters
  POST /v1/runs/{id}/stop       a run over answers 200 with its status object; a run not over that this process
                                does not run answers 409 `run_not_active`
  POST /v1/runs/{id}/steer      {input|message|text} -> 200 {object: "hermes.run.steer", run_id, accepted: true},
                                then `run.steered` {accepted: true} (the words are not in it); 409
                                `run_not_accepting_steer` unless the run is running; 400 `invalid_steer_input`
  tool search                   the model sees tool_search / tool_describe / tool_call and a listing instead of
                                mnote's tools (tools.tool_search.enabled auto, Hermes's default; `--tool-search off`
                                is the profile setting mnote documents): tool_search.py beside this file
  /p/<profile>/...              with `--profile NAME`, every route is served under that prefix only, as a
                                multiplexed gateway serves a secondary profile
  POST /standin/restart         (the stand-in's own, for tests) what a restart of Hermes leaves: every live run
                                `interrupted` (event `run.interrupted`, status `interrupted`), none live any more
  GET  /standin/runs/{id}/metrics, /standin/stats   (the stand-in's own) model requests, tool calls and tool bytes
                                of a run; runs started and replayed

Run: python3 server.py --port N --key KEY --plugin DIR [--hermes 0.18|0.21] [--tool-search auto|off] [--profile NAME]  (MNOTE_BRIDGE_URL, MNOTE_TOKEN in the env)
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import importlib
import json
import queue
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import tool_search  # beside this file: the 0.21 tool-search bridge as the model sees it


class PluginContext:
    """The part of Hermes's PluginContext (hermes_cli/plugins.py) the mnote plugin uses."""

    def __init__(self):
        self.tools = {}
        self.middleware = {}

    def register_tool(self, name, toolset, schema, handler, check_fn=None, requires_env=None, description="", emoji="", **_):
        self.tools[name] = {"handler": handler, "check_fn": check_fn, "schema": schema}

    def register_middleware(self, kind, callback):
        self.middleware.setdefault(kind, []).append(callback)

    # Hermes's context has these too; the plugin's MCP id hook may ask for them.
    def register_hook(self, *_args, **_kwargs):
        pass


def load_plugin(plugin_dir: str) -> PluginContext:
    sys.path.insert(0, plugin_dir)
    plugin = importlib.import_module("mnote")
    ctx = PluginContext()
    plugin.register(ctx)
    return ctx


# Part of Hermes's CONFIGURABLE_TOOLSETS (toolsets.py / hermes_cli/tools_config.py), with their tools as
# GET /v1/toolsets lists them; the mnote plugin's toolset is appended, as plugin toolsets are.
BUILTIN_TOOLSETS = [
    ("web", "Web Search & Scraping", "web_search, web_extract", ["web_extract", "web_search"]),
    ("browser", "Browser Automation", "navigate, click, type, scroll", ["browser_click", "browser_navigate"]),
    ("terminal", "Terminal & Processes", "terminal, process", ["process", "terminal"]),
    ("file", "File Operations", "read, write, patch, search", ["patch", "read_file", "search_files", "write_file"]),
    ("code_execution", "Code Execution", "execute_code", ["execute_code"]),
]


def enabled_toolsets(path: str | None) -> set[str]:
    """The names in the toolsets file (comma- or line-separated), read now; without a file: mnote only."""
    if not path:
        return {"mnote"}
    try:
        with open(path, encoding="utf-8") as handle:
            return {name.strip() for name in re.split(r"[,\s]+", handle.read()) if name.strip()}
    except OSError:
        return {"mnote"}


class Run:
    def __init__(self, run_id: str, session_id: str, user_message: str, instructions: str, history: list):
        self.history = history
        self.run_id = run_id
        self.session_id = session_id
        self.user_message = user_message
        self.instructions = instructions
        self.events: "queue.Queue[dict | None]" = queue.Queue()
        self.stream_open = True  # Hermes drops the transport once its one reader is done
        self.stopping = threading.Event()
        self.approval_pending: threading.Event | None = None
        self.approval_choice: str | None = None
        self.status = {"object": "hermes.run", "run_id": run_id, "status": "queued", "created_at": time.time(),
                       "updated_at": time.time(), "session_id": session_id, "model": "hermes-agent"}
        # As Hermes names a turn (seen in the audit trail against v0.18.2): <session>:<task>:<8 hex>.
        self.turn_id = f"{session_id}:{session_id}:{uuid.uuid4().hex[:8]}"
        self.api_calls = 0
        self.tool_calls = 0
        self.steers: list[str] = []
        self.steered = threading.Event()  # 0.21: words added while it runs wake the waiting model
        self.approval_request_id: str | None = None
        self.planned: list[str] = []
        self.described: set[str] = set()
        self.metrics = RunMetrics()
        # False once a restart of Hermes orphaned it (0.21: a durable record, no live task in this process).
        self.active = True


class RunMetrics:
    """What one run cost in model requests and tool bytes (the stand-in's own: GET /standin/runs/{id}/metrics)."""

    def __init__(self):
        self.requests = 0
        self.tool_calls = 0
        self.definitions_bytes: list[int] = []
        self.result_bytes: list[int] = []
        # The tool bytes each request carries: its tool definitions, and every tool result so far (they stay in
        # the conversation the next request sends).
        self.tool_input_bytes = 0

    def request(self, definitions_bytes: int):
        self.requests += 1
        self.definitions_bytes.append(definitions_bytes)
        self.tool_input_bytes += definitions_bytes + sum(self.result_bytes)

    def result(self, size: int):
        self.tool_calls += 1
        self.result_bytes.append(size)

    def as_json(self) -> dict:
        return {"model_requests": self.requests, "tool_calls": self.tool_calls,
                "tool_definitions_bytes_per_request": self.definitions_bytes[0] if self.definitions_bytes else 0,
                "tool_result_bytes": sum(self.result_bytes), "tool_input_bytes": self.tool_input_bytes}


class StandIn:
    def __init__(self, key: str, plugin: PluginContext, toolsets_file: str | None = None, version: str = "0.18",
                 tool_search_mode: str = "auto", profile: str | None = None):
        self.version = version
        self.toolsets_file = toolsets_file
        # 0.18-0.19 have no tool search: the model sees the plugin's tools as they are.
        self.surface = tool_search.ToolSurface(plugin.tools, "mnote", tool_search_mode if version == "0.21" else "off")
        # 0.21 under `gateway.multiplex_profiles`: this profile is served at /p/<profile>/... only.
        self.profile = profile
        self.stats = {"runs_started": 0, "runs_replayed": 0, "idempotency_keys": 0}
        # 0.21: (key) -> (fingerprint of the body, run_id), as api_server_run_idempotency.py keeps them.
        self.idempotency: dict[str, tuple[str, str]] = {}
        self.key = key
        self.plugin = plugin
        self.runs: dict[str, Run] = {}
        self.sessions: dict[str, list[dict]] = {}
        self.lock = threading.Lock()

    # --- what Hermes's agent loop does around one tool call -------------------------------
    def plan(self, run: Run, tools: list[str]):
        """The mnote tools this script will call. Behind tool search a model loads their schemas first, all in one
        tool_describe call (the bridge's description asks for one batch), unless the listing's names were enough."""
        run.planned = list(tools)

    def call_tool(self, run: Run, name: str, args: dict) -> dict:
        """The model calls mnote's tool `name`: directly, or (0.21 with tool search on) through the bridge."""
        if not self.surface.active:
            return json.loads(self.model_call(run, name, args))
        undescribed = [tool for tool in dict.fromkeys([*run.planned, name]) if tool not in run.described]
        if undescribed:
            self.model_call(run, tool_search.TOOL_DESCRIBE, {"names": undescribed})
            run.described.update(undescribed)
        text = self.model_call(run, tool_search.TOOL_CALL, {"calls": [{"name": name, "arguments": args}]})
        answer = json.loads(text)
        if "ok" not in answer:  # the bridge refused it (Hermes's tool_error: {"error": "..."}): nothing ran
            return {"ok": False, "error": {"code": "hermes_tool_call_refused", "message": str(answer.get("error"))}}
        return answer

    def model_call(self, run: Run, name: str, args: dict) -> str:
        """One model response that calls one tool (one request to the model carried the tool definitions), and
        what Hermes's loop does with it: bridge tools answered inline, a tool_call unwrapped into the real tool
        with the same ids, every real tool through the plugin's tool_execution middleware."""
        run.metrics.request(self.surface.definitions_bytes())
        run.tool_calls += 1
        run.api_calls += 1
        tool_call_id = f"call_{uuid.uuid4().hex[:24]}"
        underlying, underlying_args, refused = name, args, None
        if name == tool_search.TOOL_CALL:
            underlying, underlying_args, refused = self.surface.unwrap(args)
        shown = underlying or name  # Hermes's activity feed names the unwrapped tool
        # Hermes v0.18.2 sends no preview for plugin tools (seen against it: "preview": null).
        self.push(run, {"event": "tool.started", "tool": shown, "preview": None})
        started = time.monotonic()
        if name == tool_search.TOOL_DESCRIBE:
            text = self.surface.describe([str(n) for n in (args.get("names") or [])])
        elif refused is not None:
            text = json.dumps({"error": refused})
        else:
            text = self.run_plugin_tool(run, underlying, underlying_args, tool_call_id)
        run.metrics.result(len(text.encode()))
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = {}
        completed = {"event": "tool.completed", "tool": shown, "duration": round(time.monotonic() - started, 3),
                     "error": bool(parsed.get("error")) if "ok" not in parsed else not parsed.get("ok", False)}
        if self.version == "0.21":
            # api_server_runs.py _tool_completed_preview: the result, redacted, at most 500 characters.
            completed["preview"] = text if len(text) <= 500 else text[:497] + "..."
        self.push(run, completed)
        return text

    def run_plugin_tool(self, run: Run, name: str, args: dict, tool_call_id: str) -> str:
        tool = self.plugin.tools[name]
        task_id = run.session_id or run.run_id

        def dispatch(next_args=None):
            return tool["handler"](next_args if next_args is not None else args, task_id=task_id,
                                   session_id=run.session_id, user_task=run.user_message)

        chain = list(self.plugin.middleware.get("tool_execution", []))

        def call_at(index, payload):
            if index >= len(chain):
                return dispatch(payload)
            return chain[index](tool_name=name, args=payload, original_args=args, task_id=task_id,
                                session_id=run.session_id, tool_call_id=tool_call_id, turn_id=run.turn_id,
                                api_request_id=f"{run.turn_id}:api:{run.api_calls}",
                                next_call=lambda next_payload=None: call_at(index + 1, payload if next_payload is None else next_payload))

        return call_at(0, args)

    def push(self, run: Run, event: dict | None):
        if event is not None:
            event = {**event, "run_id": run.run_id, "timestamp": time.time()}
            run.status.update({"last_event": event["event"], "updated_at": time.time()})
        if run.stream_open:
            run.events.put(event)

    def say(self, run: Run, text: str):
        # Hermes starts the text that follows tool calls with a paragraph break (seen against v0.18.2: "\n\nI ").
        if run.tool_calls:
            text = "\n\n" + text
        for piece in re.findall(r"\s*\S+\s*", text):
            self.push(run, {"event": "message.delta", "delta": piece})
            time.sleep(0.02)

    def finish(self, run: Run, status: str, **fields):
        run.status.update({"status": status, "updated_at": time.time(), **fields})

    # --- the scripted "model" ------------------------------------------------------------
    def page_ref(self, run: Run) -> tuple[str, str]:
        workspace = re.search(r"workspaceId (\S+?)\)", run.instructions)
        document = re.search(r"documentId (\S+?)\)", run.instructions)
        return (workspace.group(1) if workspace else ""), (document.group(1) if document else "")

    def script(self, run: Run):
        question = run.user_message.lower()
        workspace_id, document_id = self.page_ref(run)
        ref = {"workspaceId": workspace_id, "documentId": document_id}
        if question.startswith("i rejected your proposed edit"):
            # The panel's "Tell Hermes": the person's reason, as the next turn of the conversation that proposed it.
            reason = run.user_message.split("My reason:", 1)[-1].strip()
            proposed = [m.group(1) for m in (re.search(r'I proposed adding "(.+?)"', h.get("content", ""))
                                             for h in run.history if h.get("role") == "assistant") if m]
            what = f'adding "{proposed[-1]}"' if proposed else "that edit"
            return f"Understood, I will not propose {what} again. You said: {reason}"
        if question.startswith("turn this comment thread into a suggested edit"):
            return self.suggest_from_thread(run, ref)
        if "what did i ask" in question:
            asked = [m["content"] for m in run.history if m.get("role") == "user"]
            return f"Earlier you asked: {' / '.join(asked)}" if asked else "This is the first thing you asked me."
        if "fail" in question:
            raise ModelRefused("Error code: 401 - {'error': {'message': 'Incorrect API key provided'}}")
        if "wait" in question or "slow" in question:
            self.say(run, "Let me think about this page for a while… ")
            # Until stopped, or (0.21) until the person adds words: the agent takes them in at its next step.
            deadline = time.monotonic() + 60
            while not run.stopping.is_set() and not run.steered.is_set() and time.monotonic() < deadline:
                run.stopping.wait(0.05)
            if run.steers and not run.stopping.is_set():
                return f"I thought about it, and about what you added: {' / '.join(run.steers)}"
            return "I thought about it."
        if "dangerous" in question:
            # The terminal tool starts, and tools/approval.py asks before a dangerous command runs.
            run.tool_calls += 1
            self.push(run, {"event": "tool.started", "tool": "terminal", "preview": "rm -rf ./drafts"})
            run.approval_pending = threading.Event()
            run.status["status"] = "waiting_for_approval"
            # tools/approval.py's approval_data, plus what api_server.py adds (event, run_id, timestamp, choices).
            request = {"event": "approval.request", "command": "rm -rf ./drafts", "pattern_key": "recursive delete",
                       "pattern_keys": ["recursive delete"], "description": "recursive delete", "allow_permanent": True,
                       "choices": ["once", "session", "always", "deny"]}
            if self.version == "0.21":
                run.approval_request_id = f"appr_{uuid.uuid4().hex[:16]}"
                request["request_id"] = run.approval_request_id
            self.push(run, request)
            run.approval_pending.wait(60)
            choice = run.approval_choice
            run.approval_pending = None
            self.push(run, {"event": "tool.completed", "tool": "terminal", "duration": 0.01,
                            "error": choice in ("deny", None)})
            if choice == "deny" or choice is None:
                return "The command was not approved, so I did not run it."
            return f"Approved ({choice}): I ran rm -rf ./drafts."
        other = re.search(r"\b(doc_[a-z0-9_]+)\b", run.user_message)
        if other and other.group(1) != document_id:
            # A model that reads a page it was not asked about (the person named it, or a page told it to).
            self.plan(run, ["mnote_page_get"])
            page = self.call_tool(run, "mnote_page_get", {**ref, "documentId": other.group(1), "includeBlocks": True})
            if not page.get("ok"):
                return f"I could not read {other.group(1)}: {page['error']['message']}"
            result = page["result"]
            texts = " ".join(block.get("text", "") for block in result.get("blocks", []))
            return f"The page is titled \"{result['title']}\" and says: {texts}"
        if "stress" in question or "deadline" in question:
            return self.stress_the_deadline(run, ref)
        self.plan(run, ["mnote_page_get", "mnote_page_edit"] if "add a line" in question else ["mnote_page_get"])
        page = self.call_tool(run, "mnote_page_get", {**ref, "includeBlocks": True})
        if not page.get("ok"):
            return f"I could not read the page: {page['error']['message']}"
        result = page["result"]
        if "add a line" in question:
            quoted = re.search(r"[\"“](.+?)[\"”]", run.user_message)
            line = quoted.group(1) if quoted else "Review the plan with Hermes"
            edit = self.call_tool(run, "mnote_page_edit", {
                **ref,
                "baseRevision": result["revision"],
                "operations": [{"op": "insert", "at": "end", "blocks": [{"type": "paragraph", "text": line}]}],
            })
            if edit.get("ok"):
                return f"I added \"{line}\" at the end of \"{result['title']}\"."
            if edit["error"]["code"] == "mnote_tool_approval_required":
                return f"I proposed adding \"{line}\" at the end of \"{result['title']}\"; it waits for your approval under Suggestions."
            return f"mnote refused the edit: {edit['error']['message']}"
        return f"\"{result['title']}\" is at revision {result['revision']} with {len(result.get('blocks', []))} blocks."

    THREAD = re.compile(r"comment thread (\S+) on block (\S+?)[: ]")
    QUOTED_COMMENT = re.compile(r'(?m)^- (person|agent) ("(?:[^"\\]|\\.)*"): ("(?:[^"\\]|\\.)*")$')

    def suggest_from_thread(self, run: Run, ref: dict) -> str:
        """Asked from a comment thread: the thread arrives in the instructions as quoted data (JSON strings). The
        scripted model takes the newest person's words in double quotes as the new wording of the thread's quoted
        span, proposes it with mnote_page_edit, and says so in the thread with mnote_comment_create."""
        thread = self.THREAD.search(run.instructions)
        about = re.search(r"The thread is about this text of the block: (\".*\")\.$", run.instructions, re.M)
        comments = [(kind, json.loads(name), json.loads(text))
                    for kind, name, text in self.QUOTED_COMMENT.findall(run.instructions)]
        asked = [m.group(1) for kind, _, text in comments if kind == "person"
                 for m in [re.search(r'"(.+?)"', text)] if m]
        if not thread or not about or not asked:
            return "I could not tell from the thread what to change."
        thread_id, block_id = thread.group(1), thread.group(2)
        span, wording = json.loads(about.group(1)), asked[-1]
        self.plan(run, ["mnote_page_get", "mnote_page_edit", "mnote_comment_create"])
        page = self.call_tool(run, "mnote_page_get", {**ref, "includeBlocks": True})
        if not page.get("ok"):
            return f"I could not read the page: {page['error']['message']}"
        result = page["result"]
        block = next((b for b in result.get("blocks", []) if b.get("id") == block_id), None)
        if block is None or span not in block.get("text", ""):
            return "The thread's text is no longer on the page."
        text = block["text"].replace(span, wording, 1)
        edit = self.call_tool(run, "mnote_page_edit", {
            **ref,
            "baseRevision": result["revision"],
            "operations": [{"op": "replace", "blockId": block_id, "text": text}],
        })
        if not edit.get("ok") and edit["error"]["code"] != "mnote_tool_approval_required":
            return f"mnote refused the edit: {edit['error']['message']}"
        self.call_tool(run, "mnote_comment_create", {
            **ref, "threadId": thread_id, "markdown": f"I suggested the edit: *{text}*",
        })
        return f"I proposed \"{text}\" from the comment thread; it waits for your approval under Suggestions."

    WEEKDAY = re.compile(r"\b(Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b")

    def stress_the_deadline(self, run: Run, ref: dict) -> str:
        """Read the page as Markdown, and write the deadline's block back as Markdown with the weekday in bold."""
        self.plan(run, ["mnote_page_get", "mnote_page_edit"])
        page = self.call_tool(run, "mnote_page_get", {**ref, "format": "markdown"})
        if not page.get("ok"):
            return f"I could not read the page: {page['error']['message']}"
        result = page["result"]
        # Each block's Markdown is followed by its id comment (code and dividers are preceded by it: not these).
        lines = re.findall(r"(?m)^(.+?) <!-- mnote:id=(\S+) -->$", result["markdown"])
        found = next(((line, block_id, m.group(1)) for line, block_id in lines
                      for m in [self.WEEKDAY.search(line)] if m and f"**{m.group(1)}**" not in line), None)
        if not found:
            return f"\"{result['title']}\" names no weekday I could stress."
        line, block_id, day = found
        edit = self.call_tool(run, "mnote_page_edit", {
            **ref,
            "baseRevision": result["revision"],
            "operations": [{"op": "replace", "blockId": block_id, "markdown": line.replace(day, f"**{day}**", 1)}],
        })
        if edit.get("ok"):
            return f"I made \"{day}\" bold in \"{result['title']}\"."
        if edit["error"]["code"] == "mnote_tool_approval_required":
            return f"I proposed making \"{day}\" bold in \"{result['title']}\"; it waits for your approval under Suggestions."
        return f"mnote refused the edit: {edit['error']['message']}"

    def execute(self, run: Run):
        run.status["status"] = "running"
        try:
            output = self.script(run)
            if not run.active:
                return  # a restart orphaned it: its end was told as run.interrupted
            if run.stopping.is_set():
                self.push(run, {"event": "run.cancelled"})
                self.finish(run, "cancelled", last_event="run.cancelled")
            else:
                run.metrics.request(self.surface.definitions_bytes())  # the request that answered in words
                self.say(run, output)
                # Hermes v0.18.2 also hands the final text over as reasoning.available before run.completed.
                self.push(run, {"event": "reasoning.available", "text": output})
                self.sessions.setdefault(run.session_id, []).append({"role": "assistant", "content": output})
                usage = {"input_tokens": 10, "output_tokens": len(output.split()), "total_tokens": 10 + len(output.split())}
                self.push(run, {"event": "run.completed", "output": output, "usage": usage})
                self.finish(run, "completed", output=output, usage=usage, last_event="run.completed")
        except ModelRefused as refused:
            self.push(run, {"event": "run.failed", "error": str(refused)})
            self.finish(run, "failed", error=str(refused), last_event="run.failed")
        except Exception as error:  # Hermes reports any crash of the run as run.failed
            self.push(run, {"event": "run.failed", "error": f"{type(error).__name__}: {error}"})
            self.finish(run, "failed", error=str(error), last_event="run.failed")
        finally:
            if run.active:
                self.push(run, None)

    def restart(self):
        """What a restart of Hermes 0.21 leaves of its live runs: recorded `interrupted`, no longer live."""
        for run in list(self.runs.values()):
            if run.status["status"] in TERMINAL or not run.active:
                continue
            run.active = False
            # api_server_runs.py _execute_run _finish for a run _mark_shutdown_interrupted_runs marked.
            self.push(run, {"event": "run.interrupted", "error": "Gateway shutdown interrupted the run."})
            self.finish(run, "interrupted", error="Gateway shutdown interrupted the run.", last_event="run.interrupted")
            self.push(run, None)
            run.stopping.set()
            if run.approval_pending is not None:
                run.approval_pending.set()


TERMINAL = ("completed", "failed", "cancelled", "interrupted")


class ModelRefused(Exception):
    pass


def openai_error(message: str, code: str | None = None, err_type: str = "invalid_request_error") -> dict:
    error = {"message": message, "type": err_type, "param": None, "code": code}
    return {"error": error}


def make_handler(standin: StandIn):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *_args):  # quiet
            pass

        def send_json(self, status: int, body: dict, headers: dict | None = None):
            data = json.dumps(body).encode()
            self.send_response(status)
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def authorized(self) -> bool:
            header = self.headers.get("Authorization", "")
            if header.startswith("Bearer ") and hmac.compare_digest(header[7:].strip().encode(), standin.key.encode()):
                return True
            self.send_json(401, {"error": {"message": "Invalid API key", "type": "invalid_request_error", "code": "invalid_api_key"}})
            return False

        def body(self):
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            try:
                return json.loads(raw or b"null")
            except ValueError:
                return ValueError

        def route(self) -> str | None:
            """The request's path without the profile prefix; None (after a 404) when it names no served profile.
            0.21's multiplexed gateway serves a secondary profile at /p/<profile>/... (api_server.py,
            _resolve_request_profile / _prefix_names_served_profile); a stand-in given --profile is that profile."""
            path = self.path.split("?")[0]
            if standin.profile is None:
                return path
            prefix = f"/p/{standin.profile}"
            if path.startswith(prefix + "/"):
                return path[len(prefix):]
            self.send_json(404, {"error": "not found"})
            return None

        def do_GET(self):
            path = self.route()
            if path is None:
                return
            if path in ("/health", "/v1/health"):
                return self.send_json(200, {"status": "ok", "platform": "hermes-agent", "version": "stand-in"})
            if not self.authorized():
                return
            if path == "/v1/capabilities" and standin.version == "0.21":
                # api_server.py _handle_capabilities: static feature flags, and runs_idempotency as
                # api_server_runs.py _idempotency_capabilities gives it (an object, not a flag).
                return self.send_json(200, {
                    "object": "hermes.api_server.capabilities", "platform": "hermes-agent", "model": "hermes-agent",
                    "auth": {"type": "bearer", "required": True},
                    "features": {"run_submission": True, "run_status": True, "run_events_sse": True, "run_stop": True,
                                 "run_steer": True, "run_approval_response": True, "tool_progress_events": True,
                                 "approval_events": True,
                                 "runs_idempotency": {"supported": True, "durable": True, "retention_seconds": 86400}},
                    "endpoints": {"runs": {"method": "POST", "path": "/v1/runs"},
                                  "run_steer": {"method": "POST", "path": "/v1/runs/{run_id}/steer"},
                                  "run_stop": {"method": "POST", "path": "/v1/runs/{run_id}/stop"}}})
            match = re.fullmatch(r"/standin/runs/([^/]+)/metrics", path)
            if match and match.group(1) in standin.runs:
                run = standin.runs[match.group(1)]
                return self.send_json(200, {**run.metrics.as_json(), "tool_search": standin.surface.active})
            if path == "/standin/stats":
                return self.send_json(200, standin.stats)
            if path == "/v1/toolsets":
                enabled = enabled_toolsets(standin.toolsets_file)
                data = [{"name": name, "label": label, "description": description, "enabled": name in enabled,
                         "configured": True, "tools": tools} for name, label, description, tools in BUILTIN_TOOLSETS]
                data.append({"name": "mnote", "label": "mnote", "description": "mnote page tools",
                             "enabled": "mnote" in enabled, "configured": True, "tools": sorted(standin.plugin.tools)})
                return self.send_json(200, {"object": "list", "platform": "api_server", "data": data})
            match = re.fullmatch(r"/v1/runs/([^/]+)", path)
            if match:
                run = standin.runs.get(match.group(1))
                if not run:
                    return self.send_json(404, openai_error(f"Run not found: {match.group(1)}", "run_not_found"))
                return self.send_json(200, run.status)
            match = re.fullmatch(r"/v1/runs/([^/]+)/events", path)
            if match:
                return self.events(match.group(1))
            match = re.fullmatch(r"/api/sessions/([^/]+)/messages", path)
            if match:
                messages = standin.sessions.get(match.group(1))
                if messages is None:
                    return self.send_json(404, openai_error(f"Session not found: {match.group(1)}", "session_not_found"))
                return self.send_json(200, {"object": "list", "session_id": match.group(1), "data": [
                    {"id": i + 1, "session_id": match.group(1), **m} for i, m in enumerate(messages)]})
            self.send_json(404, {"error": "not found"})

        def events(self, run_id: str):
            run = None
            for _ in range(20):  # Hermes allows subscribing just before the run is registered
                run = standin.runs.get(run_id)
                if run and run.stream_open:
                    break
                time.sleep(0.05)
            if not run or not run.stream_open:
                return self.send_json(404, openai_error(f"Run not found: {run_id}", "run_not_found"))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Cache-Control", "no-cache")
            self.send_header("X-Accel-Buffering", "no")
            self.send_header("Connection", "close")  # aiohttp streams without a length; the end closes it
            self.end_headers()
            self.close_connection = True
            try:
                while True:
                    try:
                        event = run.events.get(timeout=30)
                    except queue.Empty:
                        self.wfile.write(b": keepalive\n\n")
                        self.wfile.flush()
                        continue
                    if event is None:
                        self.wfile.write(b": stream closed\n\n")
                        self.wfile.flush()
                        break
                    self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
                    self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            finally:
                run.stream_open = False

        def do_POST(self):
            path = self.route()
            if path is None or not self.authorized():
                return
            body = self.body()
            if path == "/standin/restart":
                standin.restart()
                return self.send_json(200, {"restarted": True})
            if path == "/v1/runs":
                if body is ValueError:
                    return self.send_json(400, openai_error("Invalid JSON"))
                raw = (body or {}).get("input")
                if not raw:
                    return self.send_json(400, openai_error("Missing 'input' field"))
                message = raw if isinstance(raw, str) else (raw[-1].get("content", "") if isinstance(raw, list) else "")
                if not message:
                    return self.send_json(400, openai_error("No user message found in input"))
                # api_server_runs.py _handle_runs: a blank key is no key; a key over 255 characters or with anything
                # but visible ASCII is 400. The fingerprint is of the body (and the session-key header, unused here).
                key = (self.headers.get("Idempotency-Key") or "").strip() if standin.version == "0.21" else ""
                if key:
                    if not re.fullmatch(r"[\x21-\x7e]{1,255}", key):
                        return self.send_json(400, openai_error("Idempotency-Key must be 1-255 visible ASCII characters", "invalid_idempotency_key"))
                    fingerprint = hashlib.sha256(json.dumps({"body": body, "gateway_session_key": ""}, sort_keys=True,
                                                            separators=(",", ":"), ensure_ascii=False).encode()).hexdigest()
                    with standin.lock:
                        standin.stats["idempotency_keys"] += 1
                        known = standin.idempotency.get(key)
                        if known and known[0] != fingerprint:
                            return self.send_json(409, openai_error("Idempotency-Key was already used with a different request payload", "idempotency_key_conflict"))
                        if known:
                            # A replay names the run admitted first, with its status now.
                            standin.stats["runs_replayed"] += 1
                            status = standin.runs[known[1]].status["status"]
                            return self.send_json(202, {"run_id": known[1], "status": status, "replayed": True},
                                                  {"Idempotency-Replayed": "true"})
                        run_id = f"run_{uuid.uuid4().hex}"
                        standin.idempotency[key] = (fingerprint, run_id)
                else:
                    run_id = f"run_{uuid.uuid4().hex}"
                session_id = body.get("session_id") or run_id
                history = body.get("conversation_history") or []
                if standin.version == "0.21" and "conversation_history" not in body and body.get("session_id"):
                    history = list(standin.sessions.get(session_id, []))  # 0.21 loads it from its session store
                if not isinstance(history, list) or any(not isinstance(m, dict) or "role" not in m or "content" not in m for m in history):
                    return self.send_json(400, openai_error("conversation_history[i] must have 'role' and 'content' fields"))
                run = Run(run_id, session_id, message, body.get("instructions") or "", history)
                standin.runs[run_id] = run
                standin.sessions.setdefault(session_id, []).append({"role": "user", "content": message})
                standin.stats["runs_started"] += 1
                threading.Thread(target=standin.execute, args=(run,), daemon=True).start()
                started = {"run_id": run_id, "status": "started"}
                return self.send_json(202, {**started, "replayed": False} if standin.version == "0.21" else started)
            match = re.fullmatch(r"/v1/runs/([^/]+)/approval", path)
            if match:
                run = standin.runs.get(match.group(1))
                if not run:
                    return self.send_json(404, openai_error(f"Run not found: {match.group(1)}", "run_not_found"))
                if body is ValueError:
                    return self.send_json(400, openai_error("Invalid JSON"))
                choice = str((body or {}).get("choice", "")).strip().lower()
                choice = {"approve": "once", "approved": "once", "allow": "once"}.get(choice, choice)
                request_id = (body or {}).get("request_id")
                if choice not in {"once", "session", "always", "deny"}:
                    return self.send_json(400, openai_error("Invalid approval choice; expected one of: once, session, always, deny", "invalid_approval_choice"))
                if run.status["status"] in TERMINAL:
                    return self.send_json(409, openai_error(f"Run has no active approval session: {run.run_id}", "approval_not_active"))
                pending = run.approval_pending
                # 0.21: an answer naming another request resolves nothing (tools/approval.py
                # resolve_gateway_approval by request_id), which the API server answers 409 approval_not_pending.
                named_other = standin.version == "0.21" and request_id is not None and request_id != run.approval_request_id
                if pending is None or pending.is_set() or named_other:
                    return self.send_json(409, openai_error(f"Run has no pending approval: {run.run_id}", "approval_not_pending"))
                run.approval_choice = choice
                run.status["status"] = "running"
                named = {"request_id": request_id} if standin.version == "0.21" and request_id else {}
                standin.push(run, {"event": "approval.responded", "choice": choice, **named, "resolved": 1})
                pending.set()
                return self.send_json(200, {"object": "hermes.run.approval_response", "run_id": run.run_id,
                                            "choice": choice, **named, "resolved": 1})
            match = re.fullmatch(r"/v1/runs/([^/]+)/steer", path)
            if match and standin.version == "0.21":
                # api_server_runs.py _handle_steer_run: only a running run takes words (409 run_not_accepting_steer
                # otherwise, before the body is read); input, message or text; 200 {object: hermes.run.steer, ...}
                # and a `run.steered` event that says only that it was accepted (not the words).
                run = standin.runs.get(match.group(1))
                if not run:
                    return self.send_json(404, openai_error(f"Run not found: {match.group(1)}", "run_not_found"))
                if not run.active or run.status["status"] != "running":
                    return self.send_json(409, openai_error(f"Run is not currently accepting steer input: {run.run_id}", "run_not_accepting_steer"))
                fields = body if isinstance(body, dict) else {}
                text = str(fields.get("input") or fields.get("message") or fields.get("text") or "").strip()
                if not text:
                    return self.send_json(400, openai_error("Missing non-empty steer text; expected 'input', 'message', or 'text'.", "invalid_steer_input"))
                run.steers.append(text)
                run.steered.set()
                run.status["last_event"] = "run.steered"
                standin.push(run, {"event": "run.steered", "accepted": True})
                return self.send_json(200, {"object": "hermes.run.steer", "run_id": run.run_id, "accepted": True})
            match = re.fullmatch(r"/v1/runs/([^/]+)/stop", path)
            if match:
                run = standin.runs.get(match.group(1))
                if standin.version == "0.21" and run:
                    # api_server_runs.py _handle_stop_run: a run over answers with its status object; one not
                    # over that this process does not run is 409 run_not_active.
                    if run.status["status"] in TERMINAL:
                        return self.send_json(200, run.status)
                    if not run.active:
                        return self.send_json(409, openai_error(f"Run is not active in this gateway process: {run.run_id}", "run_not_active"))
                if not run or run.status["status"] in TERMINAL:
                    return self.send_json(404, openai_error(f"Run not found: {match.group(1)}", "run_not_found"))
                run.status.update({"status": "stopping", "last_event": "run.stopping"})
                run.stopping.set()
                if run.approval_pending is not None:
                    run.approval_pending.set()
                return self.send_json(200, {"run_id": run.run_id, "status": "stopping"})
            self.send_json(404, {"error": "not found"})

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--key", required=True)
    parser.add_argument("--plugin", required=True, help="the directory holding the mnote plugin package")
    parser.add_argument("--toolsets-file", default=None,
                        help="a file naming the enabled toolsets (e.g. 'mnote' or 'mnote,terminal'), read per request")
    parser.add_argument("--hermes", choices=("0.18", "0.21"), default="0.18",
                        help="which Hermes API server to answer as (0.21: gateway/platforms/api_server*.py @ 00067189)")
    parser.add_argument("--tool-search", choices=("auto", "off"), default="auto",
                        help="0.21's tools.tool_search.enabled for this profile (default auto, as Hermes's)")
    parser.add_argument("--profile", default=None,
                        help="0.21: serve as this profile of a multiplexed gateway, at /p/<profile>/... only")
    options = parser.parse_args()
    standin = StandIn(options.key, load_plugin(options.plugin), options.toolsets_file, options.hermes,
                      options.tool_search, options.profile)
    server = ThreadingHTTPServer((options.host, options.port), make_handler(standin))
    server.daemon_threads = True
    print(f"hermes stand-in on http://{options.host}:{options.port}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
