"""Tests of hookgraph/scenarios/."""
