"""Tests of hookgraph/sync/."""
