"""Counts in messages: ``1 path``, ``2 paths`` (a message that says "1 paths" reads as a bug, and is one)."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1 (``plural`` for irregular nouns)."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def verb(n: int, singular: str, plural: str) -> str:
    """The verb form agreeing with ``n`` things (``differs`` / ``differ``)."""
    return singular if n == 1 else plural
