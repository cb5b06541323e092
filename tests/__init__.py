"""The test suite: tests/<package>/ mirrors hookgraph/<package>/, tests/scenarios/ holds end-to-end stories, tests/helpers/ what they share."""
