"""Stand-in for Hermes 0.21.3's agent/secret_scope.py (xiaoxuanoos/tino-agent @
0f1ec5ea80861f394d6c849eac5b8a0cc174bbe5, the rebrand of upstream NousResearch/hermes-agent @ 00067189), for the
plugin's tests: Hermes 0.21 needs Python 3.14, which these machines do not have. Written from its behaviour, not
copied: a context-local scope of one profile's secrets; ``get_secret`` reads the scope (a miss is the default
under multiplexing, never another profile's ``os.environ``), and with multiplexing on and no scope it raises
``UnscopedSecretError``. Process-global names (PATH, HOME, API_SERVER_PORT…) always read ``os.environ``.
"""

from __future__ import annotations

import os
from contextvars import ContextVar, Token
from typing import Mapping, Optional

_MULTIPLEX_ACTIVE = False
_SECRET_SCOPE: ContextVar[Optional[Mapping[str, str]]] = ContextVar("_SECRET_SCOPE", default=None)
_GLOBAL = frozenset({"PATH", "HOME", "USER", "LANG", "TZ", "API_SERVER_ENABLED", "API_SERVER_HOST", "API_SERVER_PORT"})


class UnscopedSecretError(RuntimeError):
    pass


def set_multiplex_active(active: bool) -> None:
    global _MULTIPLEX_ACTIVE
    _MULTIPLEX_ACTIVE = bool(active)


def set_secret_scope(secrets: Optional[Mapping[str, str]]) -> Token:
    return _SECRET_SCOPE.set(secrets)


def reset_secret_scope(token: Token) -> None:
    _SECRET_SCOPE.reset(token)


def get_secret(name: str, default: Optional[str] = None) -> Optional[str]:
    if name in _GLOBAL:
        return os.environ.get(name, default)
    scope = _SECRET_SCOPE.get()
    if scope is not None:
        if name in scope:
            return scope[name]
        return default if _MULTIPLEX_ACTIVE else os.environ.get(name, default)
    if _MULTIPLEX_ACTIVE:
        raise UnscopedSecretError(f"get_secret({name!r}) called with no profile secret scope active")
    return os.environ.get(name, default)
