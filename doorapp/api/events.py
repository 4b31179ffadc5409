"""Endpoints under events (SPEC.md section 4)."""
