"""Endpoints under guests (SPEC.md section 4)."""
