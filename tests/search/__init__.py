"""Tests of hookgraph/search/."""
