"""Endpoints under checkins (SPEC.md section 4)."""
