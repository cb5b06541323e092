"""Tests of hookgraph/eval/."""
