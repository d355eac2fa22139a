"""ctest's entry to the capture tests: skips (exit 77, with the reason) where
Debian's python3-torch or python3-pytest is not installed."""

import os
import sys

try:
    import pytest
    import torch  # noqa: F401
except ImportError as e:
    print("SKIPPED: the capture tests need python3-torch and python3-pytest: %s" % e)
    sys.exit(77)

os.environ["TRACEHOUND_CAPTURE_TESTS"] = "1"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # capture_support
sys.exit(pytest.main(["-q", "-rs", "-p", "no:cacheprovider", *sys.argv[1:]]))
