"""Tests of eval/ (the eval runner's own arithmetic and fetching: eval/run.py)."""
