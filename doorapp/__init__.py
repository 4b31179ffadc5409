"""Door: door management for meetups."""

__version__ = "0.1.0"
