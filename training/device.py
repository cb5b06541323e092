"""Fine-tune MiniLM on a lent GPU machine: pack what it needs here, bring the model back.

    python -m training.device pack              # after `collect pairs`: writes .device/ (ignored by git)
    # the device tool: run(command="bash training/device.sh", carry=[".device"], timeout_s=600)
    python -m training.device unpack FILES_AT   # the parts it sent back -> DATA/all-MiniLM-L6-v2-code.q8_0.gguf

Why a packer: such a machine reaches no network and takes the working tree plus at most 64 MiB in all,
of which the repository is already about 47 MiB; the pairs file is about 300 MB. What it needs of a pair
is what the fine-tune reads: the description up to ``QUERY_TOKENS`` word pieces and the code up to
``CODE_TOKENS``, so each text is cut where its last read piece ends (nothing the model would have seen
is lost), and the cut pairs are xz-compressed. If that is still over the room, training pairs are left
out evenly (the log says how many); every source keeps at least one pair and every held-out pair is
kept, so the held-out packages and their recall@1 are the CPU run's.

Why an unpacker: the machine has no llama.cpp, so it sends the trained weights (float16, in parts of at
most 15 MiB, the tool's per-file limit) and the q8_0 GGUF is made here by hookgraph's own converter.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import lzma
import random
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from training.collect import DEFAULT_DATA
from training.finetune import CODE_TOKENS, NAME, QUERY_TOKENS, SOURCE, wordpiece_tokenizer
from training.train import HELD_OUT_SHARE, SEED, load_pairs, log

REPO = Path(__file__).resolve().parent.parent
PACK = REPO / ".device"
#: The tool's limit on what travels (working tree + carried paths), less a margin for files added later.
TRAVEL_LIMIT = 64 * 1024 * 1024 - 2 * 1024 * 1024
#: The weights come back as a tar in parts of this size (the tool returns files of at most 16 MiB).
PART_BYTES = 15 * 1024 * 1024
WEIGHTS_TAR = "weights.tar"


def cut_after(text: str, ends: list[int], limit: int) -> str:
    """``text`` up to where its ``limit``-th word piece ends (``ends``: each piece's end offset, in order).

    WordPiece matches greedily from the left, so the pieces before a cut made at a piece's end are the
    same pieces: the model reads exactly what it read from the whole text.
    """
    return text if len(ends) <= limit else text[:ends[limit - 1]]


def tracked_bytes(repo: Path = REPO) -> int:
    """What the working tree that travels weighs (tracked files and untracked ones git does not ignore):
    the part of the device tool's room already taken."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo,
                            capture_output=True, check=True).stdout
    return sum((repo / name).stat().st_size for name in listed.decode().split("\0") if name and (repo / name).is_file())


def xz_lines(pairs: list[dict[str, str]]) -> bytes:
    text = "".join(json.dumps({"q": p["q"], "d": p["d"], "src": p["src"]}, ensure_ascii=False) + "\n" for p in pairs)
    return lzma.compress(text.encode("utf-8"), preset=9 | lzma.PRESET_EXTREME)


def keep_within(pairs: list[dict[str, str]], room: int) -> tuple[list[dict[str, str]], bytes]:
    """The pairs, compressed, within ``room`` bytes: training pairs left out evenly if they do not fit.

    Every held-out pair stays and every source keeps one pair, so the fine-tune picks the same held-out
    packages (``HELD_OUT_SHARE`` of the sorted sources, seeded) as it does on the whole file.
    """
    packed = xz_lines(pairs)
    if len(packed) <= room:
        return pairs, packed
    sources = sorted({p["src"] for p in pairs})
    held = set(random.Random(SEED).sample(sources, max(1, int(len(sources) * HELD_OUT_SHARE))))
    share = room / len(packed) * 0.97
    while True:
        rng = random.Random(SEED)
        seen: set[str] = set()
        kept = []
        for pair in pairs:
            first = pair["src"] not in seen
            seen.add(pair["src"])
            if pair["src"] in held or first or rng.random() < share:
                kept.append(pair)
        packed = xz_lines(kept)
        if len(packed) <= room:
            return kept, packed
        share *= 0.95 * room / len(packed)


def pack(data: Path, out: Path, limit: int = TRAVEL_LIMIT) -> None:
    """Write ``out``: the cut pairs and file pairs (xz) and the gguf wheel the machine lacks."""
    from importlib.metadata import version

    tokenizer = wordpiece_tokenizer(SOURCE)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    out.mkdir(parents=True, exist_ok=True)
    for stale in out.iterdir():
        stale.unlink()
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary=:all:",
                    f"gguf=={version('gguf')}", "-d", str(out)], check=True)
    room = limit - tracked_bytes() - sum(f.stat().st_size for f in out.iterdir())
    for name in ("file-pairs.jsonl", "pairs.jsonl"):  # the small file first: the big one takes what is left
        pairs = load_pairs(data / name)
        cut = []
        for start in range(0, len(pairs), 20_000):
            chunk = pairs[start:start + 20_000]
            queries = tokenizer.encode_batch([p["q"] for p in chunk], add_special_tokens=False)
            codes = tokenizer.encode_batch([p["d"] for p in chunk], add_special_tokens=False)
            for pair, q, d in zip(chunk, queries, codes):
                # [CLS] and [SEP] take two of each side's tokens
                cut.append({"q": cut_after(pair["q"], [e for _, e in q.offsets], QUERY_TOKENS - 2),
                            "d": cut_after(pair["d"], [e for _, e in d.offsets], CODE_TOKENS - 2),
                            "src": pair["src"]})
        kept, packed = keep_within(cut, room)
        (out / (name + ".xz")).write_bytes(packed)
        room -= len(packed)
        log(f"{name}: {len(kept)} of {len(pairs)} pairs, {len(packed) / 2**20:.1f} MiB packed")
    if room < 0:
        raise SystemExit(f"{out}: {-room} bytes over the device tool's {limit} bytes; pack fewer pairs")


def unpack(parts_dir: Path, out: Path) -> Path:
    """Join the weights' parts, check them against the sha256 sent beside them, and convert to q8_0 GGUF."""
    from hookgraph.models.convert import convert

    parts = sorted(parts_dir.glob(WEIGHTS_TAR + ".part-*"))
    if not parts:
        raise SystemExit(f"{parts_dir}: no {WEIGHTS_TAR}.part-* files; did the device run finish? (its finetune.log says)")
    blob = b"".join(p.read_bytes() for p in parts)
    expected = (parts_dir / (WEIGHTS_TAR + ".sha256")).read_text().split()[0]
    if hashlib.sha256(blob).hexdigest() != expected:
        raise SystemExit(f"{parts_dir}: the joined parts do not match {WEIGHTS_TAR}.sha256; run the device step again")
    with tempfile.TemporaryDirectory() as tmp, tarfile.open(fileobj=io.BytesIO(blob)) as archive:
        archive.extractall(tmp, filter="data")
        convert(Path(tmp) / NAME, out, "q8_0", name=NAME)
    log(f"wrote {out}")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("pack", help="write .device/ for the GPU machine")
    p.add_argument("--data", type=Path, default=DEFAULT_DATA)
    p.add_argument("--out", type=Path, default=PACK)
    u = sub.add_parser("unpack", help="the weights the GPU machine sent back -> a q8_0 GGUF")
    u.add_argument("parts", type=Path, help="the folder the device tool put the returned files in (files_at)")
    u.add_argument("--out", type=Path, default=DEFAULT_DATA / f"{NAME}.q8_0.gguf")
    args = ap.parse_args(argv)
    if args.command == "pack":
        pack(args.data, args.out)
    else:
        unpack(args.parts, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
