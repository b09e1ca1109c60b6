# SPDX-License-Identifier: MIT
# The plugin as a user's conftest.py enables it.
pytest_plugins = ["mockshim.pytest_plugin", "pytester"]
