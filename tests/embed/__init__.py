"""Tests of hookgraph/embed/."""
