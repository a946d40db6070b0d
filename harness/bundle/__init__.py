"""Reproducer bundles: writing one (write.py), running one elsewhere (run.py, results.py),
and the steps an ISSUE.md pastes (paste.py)."""
