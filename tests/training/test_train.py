"""The table's words depend on the training pairs, not on the order they were collected in."""

from __future__ import annotations

import pytest

from training import train


def test_the_vocabulary_is_the_same_whatever_the_order_of_the_pairs(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(train, "MIN_PAIRS", 1)
    monkeypatch.setattr(train, "VOCAB", 3)
    # "retry" in three pairs; "backoff", "delay", "jitter", "sleep" in two each: a tie across the cut at 3.
    pairs = [(["retry", "backoff"], ["delay"]), (["retry", "jitter"], ["sleep"]), (["retry"], ["backoff"]),
             (["jitter"], ["delay", "sleep"])]
    forward = train.build_vocab(pairs)
    backward = train.build_vocab(list(reversed(pairs)))
    assert forward == backward == ["retry", "backoff", "delay"]
