"""The architecture: the import graph of hookgraph/ and its one error root (tests/architecture/)."""
