"""Endpoints under staff (SPEC.md section 4)."""
