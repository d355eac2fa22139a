"""Shared fixtures of the Python package's tests: the command built beside
the package, the real traces of ../shared/data, a generated trace."""
import os
import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def cli_path() -> str:
    path = os.environ.get("TRACEHOUND_BINARY", str(REPO / "build" / "cli" / "tracehound"))
    if not os.access(path, os.X_OK):
        pytest.skip(f"the tracehound command is not built ({path})")
    return path


def shared_data() -> pathlib.Path | None:
    path = pathlib.Path(os.environ.get("TRACEHOUND_SHARED_DATA", REPO.parent / "shared" / "data"))
    return path if path.is_dir() else None


def shared_inputs() -> list:
    """Every file of ../shared/data but the expected values and notes."""
    data = shared_data()
    if data is None:
        return []
    out = []
    for path in sorted(data.rglob("*")):
        rel = path.relative_to(data)
        if path.is_file() and rel.parts[0] != "expected" and path.suffix != ".md":
            out.append(str(rel))
    return out


def need_shared_data() -> pathlib.Path:
    data = shared_data()
    if data is None:
        pytest.skip("../shared/data is absent: no real trace to read")
    return data


def run_cli(*args, check=True) -> subprocess.CompletedProcess:
    return subprocess.run([cli_path(), *map(str, args)], capture_output=True, check=check)


_SECONDS = re.compile(rb'(seconds"\s*:\s*)-?[0-9][0-9.eE+-]*')
_TEXT_SECONDS = re.compile(rb"\b[0-9]+\.[0-9]{3} s\b")


def without_seconds(data: bytes) -> bytes:
    """`data` with every measured *seconds value (JSON) and "0.123 s" (text)
    replaced: they differ from run to run."""
    return _TEXT_SECONDS.sub(b"# s", _SECONDS.sub(rb"\1#", data))


@pytest.fixture
def cli() -> str:
    return cli_path()


@pytest.fixture(scope="session")
def generated(tmp_path_factory) -> pathlib.Path:
    """Two generated ranks with steps, kernels, collectives and memory events."""
    out = tmp_path_factory.mktemp("generated")
    run_cli("generate", "--out", out, "--ranks", 2, "--steps", 4, "--seed", 7)
    return out
