"""Check vectors that come from elsewhere (a committed snapshot, a vector cache) against the local model.

A vector is found by the hash of its composed text, so a source can only
lie about the vector itself: a forged one under an honest key puts a unit in
front of questions it does not answer (or hides it). Nothing but the model
can tell a forged vector from a true one, and embedding every text again is
the cost sharing exists to avoid. So a source is judged by a random sample of
the vectors it would give this sync: each sampled text is embedded here and
compared; one difference rejects every vector of that source (its texts are
embedded locally instead).

Why :data:`SAMPLE_SIZE` texts: with ``t`` forged vectors among ``n`` offered,
a sample of ``k`` misses all of them with probability ``(1 - t/n)^k``. At
k = 24 that is 0 when every vector is forged (a poisoned cache), under 0.1%
when a quarter is, 8% when a tenth is; a set of ``n <= k`` vectors is checked
in full. The sample is drawn with the OS's randomness, so whoever forges a
snapshot cannot know which texts a teammate's machine will check, and each
teammate (each pull) draws again. A single forged vector among thousands is
not caught by a sample of any affordable size: the sample is the first
filter, and every adopted vector is then re-embedded in the background
(:mod:`hookgraph.embed.recheck`) with :func:`agrees`. 24 texts cost ~0.2-0.5 s of model time on a laptop core,
paid only by a sync that adopts vectors (a clone, a pull, a rebuild), never by
a commit of new code.

Why :data:`MIN_COSINE`: the same model on the same text gives vectors that
agree to cosine 0.9999998 across thread counts and batches here (int8 as
stored); another CPU's floating point rounds a little differently, never by a
whole int8 step on many components. A forged vector (another text's, or a
steered one) is far below: different texts' vectors rarely pass 0.95.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from hookgraph.embed import Embedder
    from hookgraph.store.vector_cache import CachedVector

__all__ = ["MIN_COSINE", "SAMPLE_SIZE", "Verdict", "agrees", "check_sample", "sample_keys"]

#: Texts embedded locally to judge one source (see the module docstring for the arithmetic).
SAMPLE_SIZE = 24
#: Least cosine between a source's vector and the local model's for the same text (window by window).
MIN_COSINE = 0.999


@dataclass(frozen=True)
class Verdict:
    """How a source's sample compared with the local model."""

    ok: bool
    sampled: int
    differing: int
    #: Why nothing could be checked (the model failed); the source is then not used.
    error: str | None = None

    def reason(self) -> str:
        if self.error:
            return f"its vectors could not be checked ({self.error})"
        return (f"{self.differing} of {self.sampled} sampled vectors differ from what the local model "
                f"computes for their text")


def sample_keys(keys: list[bytes], size: int = SAMPLE_SIZE) -> list[bytes]:
    """``size`` of ``keys`` drawn with the OS's randomness (all of them when there are no more)."""
    if len(keys) <= size:
        return list(keys)
    return random.SystemRandom().sample(keys, size)


def check_sample(embedder: Embedder, offered: Mapping[bytes, tuple[str, CachedVector]],
                 size: int = SAMPLE_SIZE) -> Verdict:
    """Embed a sample of ``offered`` (key -> (composed text, the source's vector)) and compare.

    A vector passes when it has as many windows as the local model makes of
    the text and every window is within :data:`MIN_COSINE` of the local one.
    """
    keys = sample_keys(sorted(offered), size)
    if not keys:
        return Verdict(True, 0, 0)
    try:
        computed = embedder.embed_windows([offered[k][0] for k in keys])
    except Exception as exc:  # noqa: BLE001 - an unusable model: nothing is adopted unchecked
        return Verdict(False, len(keys), 0, error=" ".join(str(exc).split()) or type(exc).__name__)
    differing = sum(not agrees(windows, offered[key][1].arrays()) for key, (windows, _cut) in zip(keys, computed))
    return Verdict(differing == 0, len(keys), differing)


def agrees(computed: Any, theirs: Any) -> bool:
    """Whether another's int8 windows (``(n, dims)``) are what the local model computed (float windows).

    Same number of windows, each within :data:`MIN_COSINE` of the local one
    as stored (int8).
    """
    import numpy as np

    from hookgraph.store import quantize

    theirs = np.asarray(theirs).astype(np.float32)
    if theirs.ndim != 2 or theirs.shape[0] != len(computed):
        return False
    ours = np.stack([np.frombuffer(quantize(w), dtype=np.int8) for w in computed]).astype(np.float32)
    return ours.shape == theirs.shape and _all_close(ours, theirs)


def _all_close(ours: Any, theirs: Any) -> bool:
    import numpy as np

    norms = np.linalg.norm(ours, axis=1) * np.linalg.norm(theirs, axis=1)
    if np.any(norms == 0):
        return bool(np.array_equal(ours, theirs))
    cosines = np.sum(ours * theirs, axis=1) / norms
    return bool(np.all(cosines >= MIN_COSINE))
