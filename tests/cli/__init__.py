"""Tests of hookgraph/cli/."""
