"""Tests of hookgraph/training/."""
