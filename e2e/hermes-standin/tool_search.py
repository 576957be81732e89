"""What the model sees of mnote's tools in the stand-in's 0.21 mode, and how the tool-search bridge answers.

Hermes 0.21 turns on "tool search" (`tools.tool_search.enabled`, default `auto`) as soon as one deferrable tool
exists, and every plugin tool is deferrable: the model then sees three bridge tools instead of mnote's seven
(`tool_search`, `tool_describe`, `tool_call`), with a listing of the deferred tools in `tool_search`'s description.
This module answers as these files do at 0.21.3 (the rebrand xiaoxuanoos/tino-agent @
0f1ec5ea80861f394d6c849eac5b8a0cc174bbe5, which the stored index holds for 0.21.3; read, not copied):

  tools/tool_search.py           `ToolSearchConfig.from_raw` (enabled auto|on|off, listing budget 4000 tokens),
                                 `is_deferrable_tool_name` (a plugin toolset defers), `should_activate` (off never;
                                 auto/on whenever a deferrable tool exists), `assemble_tool_defs` (visible tools +
                                 the three bridge tools), `dispatch_tool_describe` ({tools: {name: {description,
                                 parameters}}, not_found?}), `resolve_underlying_call` (tool_call {calls: [{name,
                                 arguments}]}; one local entry per call)
  tools/tool_search_catalog.py   `build_catalog_listing_with_form`: a header, then per toolset
                                 "<toolset> tools (<n>):" and "- <name>: <first sentence, at most 60 characters>"
                                 (read at NousResearch/hermes-agent @ 13a4e4975ce3923d4505b3df6f31255c0b3d1e09, the
                                 stored version: the rebrand's copy is not in the index)
  tools/tool_search_validation.py `validate_deferred_call_args`: a tool_call missing a required argument is
                                 refused ("... The tool was NOT invoked.") before the tool runs
  model_tools.py                 `handle_function_call` / `_dispatch_bridge_tool`: a tool_call is unwrapped and
                                 dispatched as the real tool with the SAME ids (tool_call_id, session, turn), so
                                 plugin middleware and hooks see `mnote_page_edit`, never `tool_call`

The bridge tools' descriptions here are the stand-in's own words for what Hermes's say (their length is close to
Hermes's: about 1.3 KB for the three without the listing); the listing's lines are built from mnote's own tool
descriptions exactly as Hermes builds them, so what mnote controls (its names and first sentences) is measured
as a model would see it.
"""

from __future__ import annotations

import json
import math
import re

TOOL_SEARCH = "tool_search"
TOOL_DESCRIBE = "tool_describe"
TOOL_CALL = "tool_call"
BRIDGE_TOOLS = (TOOL_SEARCH, TOOL_DESCRIBE, TOOL_CALL)
CHARS_PER_TOKEN = 4.0
LISTING_MAX_TOKENS = 4000  # ToolSearchConfig.listing_max_tokens default; the context leg is larger
SHORT_DESCRIPTION_CHARS = 60

# A sentence ends at . ! ? before whitespace or the end, not in e.g. / i.e. / etc. (as Hermes's listing reads it).
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\betc)[.!?](?=\s|$)")


def function_def(schema: dict) -> dict:
    """A registered tool as a provider sees it (an OpenAI-style function definition)."""
    return {"type": "function", "function": {"name": schema["name"], "description": schema.get("description", ""),
                                             "parameters": schema.get("parameters", {})}}


def short_description(description: str) -> str:
    """The first sentence, clipped on a word boundary to 60 characters with an ellipsis."""
    text = " ".join((description or "").split())
    end = _SENTENCE_END.search(text)
    text = text[: end.end()] if end else text
    if len(text) <= SHORT_DESCRIPTION_CHARS:
        return text
    clipped = text[:SHORT_DESCRIPTION_CHARS]
    clipped = clipped.rsplit(" ", 1)[0] if " " in clipped else clipped
    return clipped.rstrip(",;: ") + "…"


def catalog_listing(deferred: list[dict], toolset: str) -> str | None:
    """The listing embedded in tool_search's description (full form; mnote's seven tools fit its budget)."""
    if not deferred:
        return None
    tools = sorted((d["function"]["name"], short_description(d["function"]["description"])) for d in deferred)
    lines = [f"Deferred tool catalog (call schemas via `{TOOL_DESCRIBE}`, invoke via `{TOOL_CALL}`):",
             f"{toolset} tools ({len(tools)}):"]
    lines += [f"- {name}: {desc}" if desc else f"- {name}" for name, desc in tools]
    text = "\n".join(lines)
    return text if math.ceil(len(text) / CHARS_PER_TOKEN) <= LISTING_MAX_TOKENS else None


def bridge_definitions(deferred_count: int, listing: str | None) -> list[dict]:
    """The three bridge tools that replace the deferred ones, the listing in tool_search's description."""
    search = (f"Search {deferred_count} more tools that load on demand. Takes a list of queries, searched in "
              "parallel; returns matching tool names per query and a description of each. Then load full "
              f"parameter schemas with `{TOOL_DESCRIBE}` and invoke with `{TOOL_CALL}`. Tools listed directly "
              "need no search.")
    if listing:
        search += (f"\n\nEvery deferred tool is listed below. A name listed here is available: load it with "
                   f"`{TOOL_DESCRIBE}` (no `{TOOL_SEARCH}` needed when you see the exact name).\n\n{listing}")
    return [
        {"type": "function", "function": {"name": TOOL_SEARCH, "description": search, "parameters": {
            "type": "object", "properties": {
                "queries": {"type": "array", "items": {"type": "string"},
                            "description": "Queries, a few keywords each, one per capability you need."},
                "limit": {"type": "integer", "description": "Matches per query (default 5)."}},
            "required": ["queries"]}}},
        {"type": "function", "function": {"name": TOOL_DESCRIBE, "description": (
            f"Load the full JSON schemas of tools named by `{TOOL_SEARCH}` or the listing. Needed before "
            f"`{TOOL_CALL}` when a tool's parameters are unknown. Ask for every schema you need in one call."),
            "parameters": {"type": "object", "properties": {
                "names": {"type": "array", "items": {"type": "string"}, "description": "Exact tool names."}},
                "required": ["names"]}}},
        {"type": "function", "function": {"name": TOOL_CALL, "description": (
            "Invoke a deferred tool: `calls` is an array of {name, arguments}, one entry for a local tool "
            f"(one tool per tool_call). Arguments match the tool's schema (see `{TOOL_DESCRIBE}`). Policy, "
            "hooks and approvals run as for directly listed tools."),
            "parameters": {"type": "object", "properties": {
                "calls": {"type": "array", "items": {"type": "object", "properties": {
                    "name": {"type": "string", "description": "Exact tool name."},
                    "arguments": {"type": "object", "description": "Arguments matching the tool's schema."}},
                    "required": ["name", "arguments"]}, "description": "One local invocation."}},
                "required": ["calls"]}}},
    ]


class ToolSurface:
    """The tool definitions one request to the model carries, for a Hermes with tool search `auto` or `off`."""

    def __init__(self, plugin_tools: dict, toolset: str, mode: str):
        self.mode = mode
        self.toolset = toolset
        self.plugin_definitions = [function_def(tool["schema"]) for _, tool in sorted(plugin_tools.items())]
        self.by_name = {d["function"]["name"]: d["function"] for d in self.plugin_definitions}

    @property
    def active(self) -> bool:
        """`off` never activates; `auto` activates whenever a deferrable tool exists (mnote's always are)."""
        return self.mode != "off" and bool(self.plugin_definitions)

    def definitions(self) -> list[dict]:
        if not self.active:
            return self.plugin_definitions
        return bridge_definitions(len(self.plugin_definitions),
                                  catalog_listing(self.plugin_definitions, self.toolset))

    def definitions_bytes(self) -> int:
        return len(json.dumps(self.definitions(), ensure_ascii=False, separators=(",", ":")).encode())

    def describe(self, names: list[str]) -> str:
        """tool_describe's answer: the named deferred tools' schemas; unknown names listed as not found."""
        found = {n: {"description": self.by_name[n]["description"], "parameters": self.by_name[n]["parameters"]}
                 for n in dict.fromkeys(names) if n in self.by_name}
        answer: dict = {"tools": found}
        missing = [n for n in dict.fromkeys(names) if n not in self.by_name]
        if missing:
            answer["not_found"] = missing
            answer["hint"] = "Names in not_found are not currently available. Re-run tool_search to refresh."
        return json.dumps(answer, ensure_ascii=False)

    def unwrap(self, arguments: dict) -> tuple[str | None, dict, str | None]:
        """tool_call's arguments -> (the real tool, its arguments, or why it was NOT invoked)."""
        calls = arguments.get("calls")
        if calls is None and arguments.get("name"):
            calls = [{"name": arguments.get("name"), "arguments": arguments.get("arguments")}]
        if not isinstance(calls, list) or not calls:
            return None, {}, "tool_call 'calls' must be a non-empty array of {name, arguments}"
        if len(calls) > 1:
            return None, {}, f"tool_call takes exactly one entry for local tools; you sent {len(calls)}."
        entry = calls[0] if isinstance(calls[0], dict) else {}
        name = str(entry.get("name") or "").strip()
        args = entry.get("arguments") or {}
        if isinstance(args, str):
            try:
                args = json.loads(args)
            except ValueError as error:
                return None, {}, f"tool_call calls[0].arguments is not valid JSON: {error}"
        if name not in self.by_name:
            return None, {}, (f"'{name}' is not a known tool name. Deferred tools must be invoked through "
                              "tool_call by the exact name tool_search returns. Use tool_search to find the exact name.")
        required = self.by_name[name].get("parameters", {}).get("required", [])
        missing = [r for r in required if r not in args]
        if missing:
            return None, {}, (f"tool_call to '{name}' is missing required argument(s): {', '.join(missing)}. "
                              "The tool was NOT invoked.")
        return name, args, None
