"""Frames view the C++ event graph: no copy, read-only, kept alive by the
arrays themselves."""
import gc

import numpy as np
import pytest

import tracehound
from tracehound import _tracehound


def owner_of(array: np.ndarray):
    """The object at the end of the array's base chain."""
    base = array
    while isinstance(base, np.ndarray):
        base = base.base
    return base


def address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


@pytest.fixture
def trace(generated):
    return tracehound.load(generated)[0]


def test_numeric_columns_are_views_of_the_graph(trace):
    ev = trace.events
    for column in ["ts", "dur", "track", "parent", "depth", "args_row", "flags"]:
        values = ev[column].to_numpy()
        assert isinstance(owner_of(values), _tracehound._TraceSet), column
        assert not values.flags.writeable, column
    # Each table read is a new frame over the same memory, never a copy.
    again = trace.table("events")
    assert address(again["ts"].to_numpy()) == address(ev["ts"].to_numpy())
    assert np.shares_memory(again["dur"].to_numpy(), ev["dur"].to_numpy())
    assert ev["ts"].dtype == np.int64 and ev["dur"].dtype == np.int64


def test_names_are_categoricals_over_the_string_pool(trace):
    ev = trace.events
    name = ev["name"]
    assert name.dtype == trace.strings
    codes = name.cat.codes.to_numpy()
    assert codes.dtype == np.int32
    assert isinstance(owner_of(codes), _tracehound._TraceSet)
    assert np.shares_memory(codes, trace.table("events")["name"].cat.codes.to_numpy())
    pool = trace.strings.categories
    assert pool[0] == ""
    assert name.astype(str).tolist() == [pool[c] for c in codes]
    # The kind column views the graph's byte codes the same way.
    kinds = ev["kind"].cat.codes.to_numpy()
    assert kinds.dtype == np.int8 and isinstance(owner_of(kinds), _tracehound._TraceSet)


def test_the_graph_lives_as_long_as_a_view(generated):
    traces = tracehound.load(generated)
    ts = traces[0].events["ts"].to_numpy()
    expected = ts.copy()
    owner = owner_of(ts)
    del traces
    gc.collect()
    junk = [np.ones(len(expected), dtype=np.int64) for _ in range(8)]  # reuse freed memory, if any
    assert (ts == expected).all()
    assert owner_of(ts) is owner
    del junk


def test_pandas_operations_work_on_the_views(trace):
    k = trace.kernels
    per_name = k.groupby("name", observed=True)["dur"].sum()
    assert int(per_name.sum()) == int(k["dur"].sum())
    ev = trace.events
    assert len(ev[ev["name"] == ev["name"].iloc[0]]) >= 1
    assert ev.sort_values("ts")["ts"].is_monotonic_increasing
