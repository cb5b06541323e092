"""Tests of hookgraph/helpers/."""
