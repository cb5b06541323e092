"""Tests of hookgraph/models/."""
