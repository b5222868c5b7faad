"""Validation and dispatch, one module per instruction family (DESIGN 3)."""
