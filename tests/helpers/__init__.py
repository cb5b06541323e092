"""What the tests share: repositories driven through real hooks (hook_helpers), the store's invariants and
bounded loops of the reliability stories (reliability), parse checks and the per-language table
(parse_helpers), graph look-ups (graph_helpers), tiny real models (tiny_models), snapshots as older releases
wrote them (snapshot_helpers). pytest's fixtures are in tests/conftest.py, the files tests read in tests/fixtures/.
"""
