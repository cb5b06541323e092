"""The fine-tuning starts from the shipped GGUF's own vocabulary, read back exactly as it was converted."""

from __future__ import annotations

from hookgraph.models.convert import phantom_vocab
from training.finetune import lay_out_steps, take_round, wordpiece_vocab


def test_the_vocabulary_read_from_a_gguf_is_the_one_converted_into_it() -> None:
    vocab = ["[PAD]", "[CLS]", "[SEP]", "retry", "##ing", "#", "##", "back", "##off", "[UNK]"]
    specials = {"[PAD]", "[CLS]", "[SEP]", "[UNK]"}
    pieces, kinds = phantom_vocab(vocab, specials)
    assert pieces[3] == "\u2581retry" and pieces[4] == "ing"  # llama.cpp's form really differs
    assert wordpiece_vocab(pieces, kinds) == vocab


def test_every_step_takes_its_share_of_file_pairs_even_where_a_list_wraps_round() -> None:
    pairs = [{"q": f"p{i}", "d": "", "src": "a"} for i in range(7)]
    files = [{"q": f"f{i}", "d": "", "src": "a"} for i in range(5)]
    steps, batch = 9, 4  # 9 x 1 file pair wraps the 5 files; 9 x 3 pairs wraps the 7 pairs three times
    laid, part = lay_out_steps(pairs, files, steps, batch, 0.25)
    assert part == 1 and len(laid) == steps * batch
    for step in range(steps):
        chunk = take_round(laid, step * batch, batch)  # what finetune() reads for that step
        assert [p["q"][0] for p in chunk] == ["f", "p", "p", "p"]
        assert chunk[0]["q"] == f"f{step % 5}"
    assert {p["q"] for p in laid} == {p["q"] for p in pairs + files}  # nothing skipped at a wrap
