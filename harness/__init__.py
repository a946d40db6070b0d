"""iree-regress: the harness around the cases (see README.md, docs/case-format.md)."""
