"""Where the plugin reads its bridge URL, token and timeout, per Hermes profile (mnote/settings.py; issue 35 item 6).

Against Hermes 0.21.3's secret scope as its stand-in plays it (tests/hermes_021_standin, naming the Hermes file and
commit), and against the real agent/secret_scope.py of Hermes 0.18.2 when a checkout of it is at hand
(MNOTE_HERMES_018_DIR, default /work/hermes-check/h018): a multiplexed gateway's secondary profile has its secrets
only in its scope, never in os.environ.
"""

from __future__ import annotations

import importlib
import os
import sys
import unittest
from pathlib import Path
from unittest import mock

from .support import load_plugin

HERE = Path(__file__).resolve().parent
PLUGIN_DIR = HERE.parent / "mnote"
STANDIN_021 = HERE / "hermes_021_standin"
HERMES_018 = Path(os.environ.get("MNOTE_HERMES_018_DIR", "/work/hermes-check/h018"))

# The process's own environment: what the default profile (or another profile) has there.
PROCESS_ENV = {"MNOTE_BRIDGE_URL": "http://127.0.0.1:1/default", "MNOTE_TOKEN": "default-profile-token",
               "MNOTE_BRIDGE_TIMEOUT": "7"}
WORK_PROFILE = {"MNOTE_BRIDGE_URL": "http://127.0.0.1:2/work/", "MNOTE_TOKEN": "work-profile-token"}


class Hermes021Context:
    """The part of 0.21.3's PluginContext the plugin uses for settings (hermes_cli/plugins.py get_config:
    config.yaml `plugins.entries.<id>.settings.<key>`, the default when unset)."""

    def __init__(self, settings: dict):
        self._settings = settings
        self.tools: dict = {}

    def get_config(self, key: str, default=None):
        return self._settings.get(key, default)

    def register_tool(self, name, **kwargs):
        self.tools[name] = kwargs

    def register_middleware(self, *_args, **_kwargs):
        pass

    def register_hook(self, *_args, **_kwargs):
        pass


class Hermes018Context(Hermes021Context):
    """0.18.2's PluginContext has no get_config (hermes_cli/plugins.py at that version)."""

    get_config = None  # type: ignore[assignment]


class WithHermesModules(unittest.TestCase):
    """Puts a Hermes `agent` package on the path for one test, and takes it away after."""

    hermes_root: Path | None = None

    def setUp(self):
        self.plugin = load_plugin(PLUGIN_DIR)  # as Hermes imports it: hermes_plugins.mnote
        self.settings = sys.modules["hermes_plugins.mnote.settings"]
        self.client = sys.modules["hermes_plugins.mnote.client"]
        self.addCleanup(self.settings.use_context, None)
        if self.hermes_root is None:
            self.scope = None
            return
        sys.path.insert(0, str(self.hermes_root))
        self.addCleanup(self._forget_hermes)
        self.scope = importlib.import_module("agent.secret_scope")
        self.addCleanup(self.scope.set_multiplex_active, False)

    def _forget_hermes(self):
        sys.path.remove(str(self.hermes_root))
        for name in [n for n in sys.modules if n == "agent" or n.startswith("agent.")]:
            del sys.modules[name]

    def in_scope(self, secrets: dict):
        token = self.scope.set_secret_scope(secrets)
        self.addCleanup(self.scope.reset_secret_scope, token)


class OutsideHermes(WithHermesModules):
    def test_without_the_secret_scope_the_environment_is_read(self):
        self.assertNotIn("agent", sys.modules)
        with mock.patch.dict(os.environ, PROCESS_ENV):
            self.assertEqual(self.settings.bridge(), ("http://127.0.0.1:1/default", "default-profile-token", 7.0))

    def test_nothing_set_is_not_configured(self):
        with mock.patch.dict(os.environ, {}, clear=True):
            self.assertEqual(self.settings.bridge(), ("", "", 30.0))
            self.assertFalse(self.client.is_configured())


class SecretScopeCases:
    """The same rules against each Hermes's secret scope."""

    def test_a_secondary_profile_reads_its_scope_never_the_process_environment(self):
        self.scope.set_multiplex_active(True)
        self.in_scope(WORK_PROFILE)
        with mock.patch.dict(os.environ, PROCESS_ENV):
            url, token, timeout = self.settings.bridge()
        self.assertEqual((url, token), ("http://127.0.0.1:2/work", "work-profile-token"))
        # Not in the profile's scope: the default, not the process's (another profile's) MNOTE_BRIDGE_TIMEOUT.
        self.assertEqual(timeout, 30.0)

    def test_a_scope_without_the_token_is_not_configured_even_when_the_process_has_one(self):
        self.scope.set_multiplex_active(True)
        self.in_scope({"MNOTE_BRIDGE_URL": "http://127.0.0.1:2"})
        with mock.patch.dict(os.environ, PROCESS_ENV):
            self.assertFalse(self.client.is_configured())

    def test_the_default_profile_of_a_multiplexed_gateway_runs_unscoped_and_reads_its_own_environment(self):
        self.scope.set_multiplex_active(True)
        with mock.patch.dict(os.environ, PROCESS_ENV):
            self.assertEqual(self.settings.bridge(), ("http://127.0.0.1:1/default", "default-profile-token", 7.0))

    def test_plugin_settings_win_over_the_variables_on_021_and_are_ignored_before(self):
        self.in_scope(WORK_PROFILE)
        self.plugin.register(Hermes021Context({"bridge_url": "http://127.0.0.1:3/set/", "bridge_timeout_seconds": 4}))
        self.assertEqual(self.settings.bridge(), ("http://127.0.0.1:3/set", "work-profile-token", 4.0))
        self.plugin.register(Hermes018Context({"bridge_url": "http://127.0.0.1:3/set/"}))
        self.assertEqual(self.settings.bridge()[0], "http://127.0.0.1:2/work")

    def test_a_setting_that_is_no_number_falls_back_to_the_default_timeout(self):
        self.in_scope(WORK_PROFILE)
        self.plugin.register(Hermes021Context({"bridge_timeout_seconds": "soon"}))
        self.assertEqual(self.settings.bridge()[2], 30.0)


class Hermes021SecretScope(SecretScopeCases, WithHermesModules):
    hermes_root = STANDIN_021


@unittest.skipUnless((HERMES_018 / "agent" / "secret_scope.py").is_file(),
                     f"no Hermes 0.18.2 checkout at {HERMES_018} (MNOTE_HERMES_018_DIR)")
class Hermes018SecretScope(SecretScopeCases, WithHermesModules):
    """Hermes 0.18.2's own agent/secret_scope.py (standard library only, so it imports without the rest)."""

    hermes_root = HERMES_018


if __name__ == "__main__":
    unittest.main()
