"""``python -m hookgraph``: the same as the ``hookgraph`` command."""

from hookgraph.cli import main

main()
