"""The example notebook (docs/notebooks/tracehound-tour.ipynb) executed as a
user would run it, on a generated run: every cell runs without an error, its
counts and kernel time equal `tracehound info --json`, and it draws a plot."""
import json
import os
import pathlib
import re

import pytest

from conftest import REPO, run_cli

NOTEBOOK = REPO / "docs" / "notebooks" / "tracehound-tour.ipynb"


def execute(trace: pathlib.Path):
    nbformat = pytest.importorskip("nbformat", reason="python3-nbformat is not installed")
    preprocessors = pytest.importorskip(
        "nbconvert.preprocessors", reason="python3-nbconvert is not installed")
    pytest.importorskip("ipykernel", reason="python3-ipykernel is not installed")
    import tracehound
    package_root = str(pathlib.Path(tracehound.__file__).resolve().parents[1])
    notebook = nbformat.read(str(NOTEBOOK), as_version=4)
    saved = {k: os.environ.get(k) for k in ("TRACE", "PYTHONPATH")}
    os.environ["TRACE"] = str(trace)
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (package_root, saved["PYTHONPATH"]) if p)
    try:
        preprocessors.ExecutePreprocessor(timeout=300, kernel_name="python3").preprocess(
            notebook, {"metadata": {"path": str(NOTEBOOK.parent)}})
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return notebook


def test_notebook_runs_and_agrees_with_info(generated):
    notebook = execute(generated)
    text, images = "", 0
    for cell in notebook.cells:
        for out in cell.get("outputs", []):
            assert out.output_type != "error", "".join(out.get("traceback", []))
            if out.output_type == "stream" and out.name == "stdout":
                text += out.text
            images += "image/png" in out.get("data", {})
    info = json.loads(run_cli("info", "--json", generated).stdout)
    assert re.search(rf"^ranks: {info['ranks']}$", text, re.M), text
    assert re.search(rf"^events: {info['events']}$", text, re.M), text
    assert re.search(rf"^kernels: {info['kernels']['count']}$", text, re.M), text
    assert re.search(rf"^kernel time \(ns\): {info['kernels']['total_ns']}$", text, re.M), text
    assert re.search(r"^verdict: [A-Z_]+$", text, re.M), text
    assert images == 1, "the notebook draws one plot"
