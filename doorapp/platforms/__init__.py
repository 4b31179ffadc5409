"""The external platform behind one small interface (PLATFORM.md); the adapter is chosen by PLATFORM."""


def load(config):
    """The adapter named by config.platform (None until the platform adapters exist)."""
    return None
