"""Tests of training/ (the training sources of the static embedding)."""
