"""Where the plugin's settings come from, for one Hermes profile. Standard library only.

A Hermes 0.21 gateway with ``gateway.multiplex_profiles`` serves several profiles from one process, and a
secondary profile's ``.env`` is NOT in ``os.environ`` (that would hand profile A's keys to profile B's turns):
each turn runs inside the profile's secret scope, read with ``agent.secret_scope.get_secret`` (0.21.3:
agent/secret_scope.py ``get_secret`` — the scope installed with ``set_secret_scope``; without one under
multiplexing it raises ``UnscopedSecretError``, and Hermes's own adapters then read ``os.environ``, which is the
default profile's: gateway/platforms/_shared.py ``get_scoped_secret``). Hermes 0.18.2 and 0.19.0 ship the same
``get_secret`` and ``UnscopedSecretError``; outside Hermes (or a Hermes without the module) it is ``os.environ``.

- Secrets, and what ``hermes plugins install`` stores in the profile's ``.env`` (``requires_env`` in plugin.yaml):
  ``MNOTE_TOKEN``, ``MNOTE_BRIDGE_URL``, ``MNOTE_BRIDGE_TIMEOUT`` — through the secret scope.
- Settings that are not secret, in the profile's config.yaml under ``plugins.entries.mnote.settings``, declared in
  plugin.yaml's ``config_schema`` and read with ``ctx.get_config`` (0.21.3 hermes_cli/plugins.py
  ``PluginContext.get_config``): ``bridge_url`` and ``bridge_timeout_seconds``, which win over the variables.
  Hermes 0.18–0.19 have no ``get_config`` (and ignore ``config_schema``): the variables alone count there.

Every value is read when a tool is called, not when the plugin loads: the scope is the calling turn's.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Optional

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT_SECONDS = 30.0

# The PluginContext the plugin was registered with, when it can read plugin settings (Hermes 0.21).
_context: Any = None


def use_context(ctx: Any) -> None:
    """Keep the registering context when it offers ``get_config`` (a Hermes before 0.21 does not)."""
    global _context
    _context = ctx if callable(getattr(ctx, "get_config", None)) else None


def secret(name: str) -> str:
    """A secret (or ``.env`` value) of the profile the current turn runs for; "" when unset."""
    try:
        # Lazy: the module exists only inside Hermes; importing it at load time would tie the plugin to it.
        from agent.secret_scope import UnscopedSecretError, get_secret
    except ImportError:
        return os.environ.get(name, "")
    try:
        value = get_secret(name, None)
    except UnscopedSecretError:
        # The default profile of a multiplexed gateway runs unscoped: os.environ is its own (as Hermes's adapters
        # read it). A secondary profile always has a scope, so another profile's value is never read here.
        value = os.environ.get(name)
    return value if isinstance(value, str) else ""


def setting(key: str) -> Optional[Any]:
    """A plugin setting from the profile's config.yaml (``plugins.entries.mnote.settings.<key>``), or None."""
    if _context is None:
        return None
    try:
        return _context.get_config(key, None)
    except Exception:  # a malformed config must not break a tool call: the variable counts instead
        logger.warning("mnote: could not read the plugin setting %s", key, exc_info=True)
        return None


def bridge() -> tuple[str, str, float]:
    """(bridge URL without a trailing slash, token, timeout in seconds) for the calling turn's profile."""
    configured_url = setting("bridge_url")
    url = configured_url if isinstance(configured_url, str) and configured_url.strip() else secret("MNOTE_BRIDGE_URL")
    token = secret("MNOTE_TOKEN").strip()
    configured_timeout = setting("bridge_timeout_seconds")
    raw_timeout: Any = configured_timeout if configured_timeout is not None else secret("MNOTE_BRIDGE_TIMEOUT")
    try:
        timeout = float(raw_timeout) if raw_timeout not in (None, "") and not isinstance(raw_timeout, bool) else DEFAULT_TIMEOUT_SECONDS
    except (TypeError, ValueError):
        timeout = DEFAULT_TIMEOUT_SECONDS
    return url.strip().rstrip("/"), token, timeout if timeout > 0 else DEFAULT_TIMEOUT_SECONDS
