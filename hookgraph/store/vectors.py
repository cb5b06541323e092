"""How the store encodes an embedding: int8 bytes, and the keys of a text's windows.

numpy is imported only inside the functions that need it: ``ask`` (a query
vector as a list of floats) and a hook that touches no code never pay for it.
"""

from __future__ import annotations

import math
from array import array
from typing import Any


def quantize(vector: Any) -> bytes:
    """A vector as the store keeps it: int8, scaled so its largest component is +-127.

    Cosine distance is the same for any positive scale, so KNN over these
    ranks like the float vector up to rounding (a per-vector scale keeps all
    8 bits; sqlite-vec's fixed ``unit`` scale would waste most of them on
    384-dim unit vectors, whose components are mostly below 0.2). An int8
    array (a cached or snapshot vector) is passed through. A plain sequence
    of floats (a query vector) is quantized without numpy, with numpy's
    float32 arithmetic, so it gives the same bytes as its float32 array.
    """
    if getattr(vector, "dtype", None) is None:
        return _quantize_floats(vector)
    import numpy as np

    arr = np.asarray(vector)
    if arr.dtype == np.int8:
        return arr.tobytes()
    arr = arr.astype(np.float32, copy=False)
    peak = float(np.abs(arr).max()) if arr.size else 0.0
    if peak == 0.0 or not np.isfinite(peak):
        return np.zeros(arr.shape, dtype=np.int8).tobytes()
    return np.clip(np.rint(arr * (127.0 / peak)), -127, 127).astype(np.int8).tobytes()


def _quantize_floats(values: Any) -> bytes:
    """:func:`quantize` of a sequence of floats, in pure Python (``ask`` never imports numpy).

    ``array('f')`` rounds to float32 as numpy's cast does, a float32 product
    is the float64 product rounded to float32 (exact before rounding), and
    ``round`` rounds half to even like ``np.rint``.
    """
    floats = array("f", values)
    peak = max(map(abs, floats), default=0.0)
    if peak == 0.0 or not math.isfinite(sum(floats)):  # any inf or nan: numpy's peak is not finite either
        return bytes(len(floats))
    scale = array("f", [127.0 / peak])[0]
    scaled = array("f", [x * scale for x in floats])
    return array("b", [max(-127, min(127, round(x))) for x in scaled]).tobytes()


def dequantize(blob: bytes) -> Any:
    """A stored int8 embedding as a float32 unit vector (for tests and tools; search never needs it)."""
    import numpy as np

    arr = np.frombuffer(blob, dtype=np.int8).astype(np.float32)
    norm = float(np.linalg.norm(arr))
    return arr / norm if norm > 0 else arr


def float_blob_to_int8(blob: bytes, dims: int) -> bytes:
    """A float32 embedding (an older schema's) as the int8 bytes schema 3 stores."""
    import numpy as np

    return quantize(np.frombuffer(blob, dtype=np.float32, count=dims))


def window_key(text_hash: bytes, n: int) -> bytes:
    """The vector key of window ``n`` (> 0) of the text keyed ``text_hash`` (16 bytes): ``<key>#<n>``."""
    return text_hash + b"#%d" % n
