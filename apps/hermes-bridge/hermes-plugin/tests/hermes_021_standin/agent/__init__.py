"""Stand-in for Hermes's ``agent`` package: only what the mnote plugin imports from it (secret_scope)."""
