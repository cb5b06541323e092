"""The fine-tuning starts from the shipped GGUF's own vocabulary, read back exactly as it was converted."""

from __future__ import annotations

from hookgraph.models.convert import phantom_vocab
from training.finetune import wordpiece_vocab


def test_the_vocabulary_read_from_a_gguf_is_the_one_converted_into_it() -> None:
    vocab = ["[PAD]", "[CLS]", "[SEP]", "retry", "##ing", "#", "##", "back", "##off", "[UNK]"]
    specials = {"[PAD]", "[CLS]", "[SEP]", "[UNK]"}
    pieces, kinds = phantom_vocab(vocab, specials)
    assert pieces[3] == "\u2581retry" and pieces[4] == "ing"  # llama.cpp's form really differs
    assert wordpiece_vocab(pieces, kinds) == vocab
