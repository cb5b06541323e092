"""Tests of hookgraph/store/."""
