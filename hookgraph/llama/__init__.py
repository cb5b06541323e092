"""llama.cpp through llama-cpp-python's ctypes bindings: loaded late, kept quiet, Ctrl-C held.

Below every stage that runs llama.cpp: the embedder (:mod:`hookgraph.embed`) and the model converter
(:mod:`hookgraph.models.convert`) both reach it here, so neither imports the other.

* :mod:`hookgraph.llama.lite`: the ctypes layer without the package's heavy ``__init__``, one embedding model;
* :mod:`hookgraph.llama.calls`: llama.cpp's logging silenced, Ctrl-C raised after a call, not inside it.
"""

from hookgraph.llama.calls import interrupts_deferred, quiet_llama

__all__ = ["interrupts_deferred", "quiet_llama"]
