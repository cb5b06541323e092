"""Tests of hookgraph/parse/."""
