"""mnote tools for Hermes Agent.

Each tool is a thin handler: it turns the model's flat arguments into mnote's input
envelope and POSTs it to the mnote bridge (``MNOTE_BRIDGE_URL``) with the bearer
token ``MNOTE_TOKEN``, read for the profile the call runs for (settings.py). The bridge runs mnote's tools router; the handler returns the
router's output envelope as a JSON string and never raises.

The tool schemas in ``tool_schemas.json`` are generated from mnote's contract
(``mnote-bridge hermes schemas``) and committed, so ``hermes plugins install`` can take
the plugin straight from the repository; a test keeps them equal to the contract.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

from . import client, mcp_ids, settings

logger = logging.getLogger(__name__)

TOOLSET = "mnote"
SCHEMA_FILE = Path(__file__).with_name("tool_schemas.json")
REQUIRED_ENV = ["MNOTE_BRIDGE_URL", "MNOTE_TOKEN"]


def load_schemas() -> dict:
    try:
        with SCHEMA_FILE.open(encoding="utf-8") as handle:
            return json.load(handle)
    except FileNotFoundError as error:
        raise RuntimeError(
            f"{SCHEMA_FILE} is missing: regenerate it with `mnote-bridge hermes schemas` "
            "or install the plugin with `mnote-bridge hermes install`"
        ) from error


def register(ctx) -> None:
    """Hermes entry point: register the mnote tools (seven) in the toolset ``mnote``."""
    settings.use_context(ctx)  # Hermes 0.21: plugin settings from the profile's config.yaml (settings.py)
    mcp_ids.register(ctx)  # Hermes's ids on calls to the mnote MCP server (see mcp_ids.py)
    document = load_schemas()
    for tool in document["tools"]:
        ctx.register_tool(
            name=tool["name"],
            toolset=TOOLSET,
            schema={
                "name": tool["name"],
                "description": tool["description"],
                "parameters": tool["parameters"],
            },
            handler=client.make_handler(tool, document),
            check_fn=client.is_configured,
            requires_env=list(REQUIRED_ENV),
            description=tool["description"],
            emoji="📝",
        )
    # Hermes gives the tool-call id to middleware, not to handlers (client.py explains).
    # A Hermes without middleware still gets working tools: each call then writes with a
    # fresh key and a plugin-made toolCallId.
    if hasattr(ctx, "register_middleware"):
        ctx.register_middleware("tool_execution", client.make_tool_execution_middleware(
            {tool["name"] for tool in document["tools"]}))
    else:
        logger.warning("mnote: this Hermes has no tool middleware; audit rows will not carry its tool-call ids")
    logger.debug("mnote: registered %d tools", len(document["tools"]))
