"""The test suite. tests/<package>/ holds the tests of hookgraph/<package>/ (tests/search/test_ranking.py for
hookgraph/search/ranking.py), tests/ itself those of hookgraph's top-level modules (test_git.py) and of the
whole checkout (test_lint.py), tests/scenarios/ the end-to-end stories that cross packages, tests/helpers/
what they share, tests/fixtures/ the files they read.

Every folder is a package, so pytest imports a test file by its dotted path (tests.search.test_graph): two
folders may hold files of one base name, and tests.conftest is one module whether pytest or a test imports it.
"""
