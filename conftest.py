# Registers the iree-regress plugin so `pytest cases/` collects case.toml files.
pytest_plugins = ["harness.plugin"]
