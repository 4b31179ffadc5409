"""Endpoints under bans (SPEC.md section 4)."""
