"""Endpoints under meetups (SPEC.md section 4)."""
