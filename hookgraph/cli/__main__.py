"""``python -m hookgraph.cli``: the command line (git hooks and merge drivers call it this way)."""

from hookgraph.cli import main

main()
