"""The capture tests run as ctest's python_capture (run_pytest.py, which sets
TRACEHOUND_CAPTURE_TESTS=1 and puts the source tree's python/ first on the
path); the package's own suite (python_pytest) walks tests/python and leaves
this folder to it."""

import os


def pytest_ignore_collect(collection_path, config):
    return os.environ.get("TRACEHOUND_CAPTURE_TESTS") != "1"
