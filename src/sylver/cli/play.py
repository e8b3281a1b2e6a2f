"""`sylver` commands: play (filled in by its issue)."""

from sylver.cli.common import app  # noqa: F401
