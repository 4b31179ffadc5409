"""Endpoints under organizations (SPEC.md section 4)."""
