"""hookgraph: an always-fresh, local, semantic map of a git repository's code."""

__version__ = "0.1.0"
