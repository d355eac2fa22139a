"""Catalog tables as pandas DataFrames that view the C++ event graph.

Numbers stay numpy views of the graph's columns (no copy: each array's base
chain ends at the ``_TraceSet`` that owns the graph). String-id columns become
``pandas.Categorical`` whose codes view the ids and whose categories are the
trace's string pool.
"""
from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np
import pandas as pd


def categorical(codes: np.ndarray, dtype: pd.CategoricalDtype) -> pd.Categorical:
    """A Categorical whose codes are ``codes`` (uint32 or uint8 ids), not a copy.

    pandas narrows codes to the smallest integer type that holds its
    categories' count (a copy); the backing array is set directly instead, as
    the same-width signed view of ``codes``.
    """
    signed = codes.view(np.int32 if codes.dtype.itemsize == 4 else np.int8)
    empty = pd.Categorical.from_codes(np.empty(0, dtype=np.int8), dtype=dtype)
    try:
        return empty._from_backing_data(signed)
    except AttributeError:  # a pandas without the backing-array hook: codes are copied
        return pd.Categorical.from_codes(signed, dtype=dtype)


def frame(columns: Dict[str, object], schema: List[Tuple[str, str, str, str]],
          strings: pd.CategoricalDtype | None,
          replace: Dict[str, object] | None = None) -> pd.DataFrame:
    """A DataFrame of ``columns`` (name -> array or list) typed by ``schema``;
    ``replace`` gives other values for some columns or adds columns (set in
    the constructor: a column assigned later would be copied)."""
    data = {}
    for name, type_name, _unit, _doc in schema:
        values = columns[name]
        if type_name == "string_id" and strings is not None:
            values = pd.Series(categorical(values, strings), copy=False)
        data[name] = values
    data.update(replace or {})
    return pd.DataFrame(data, copy=False)


def units(schema: List[Tuple[str, str, str, str]]) -> Dict[str, str]:
    """{column: unit} of the columns that have one (``ns``, ``bytes``, ...)."""
    return {name: unit for name, _type, unit, _doc in schema if unit}


def concat_ranks(frames: List[pd.DataFrame], ranks: List[int]) -> pd.DataFrame:
    """One frame of several traces' frames, a ``rank`` column first (a copy).

    Categorical columns get the union of the traces' categories.
    """
    if len(frames) == 1:
        out = frames[0].copy()
        out.insert(0, "rank", np.full(len(out), ranks[0], dtype=np.int64))
        return out
    parts = []
    for f, r in zip(frames, ranks):
        part = f.copy(deep=False)
        part.insert(0, "rank", np.full(len(f), r, dtype=np.int64))
        parts.append(part)
    out = pd.concat(parts, ignore_index=True, copy=False)
    for name in frames[0].columns:
        if isinstance(frames[0][name].dtype, pd.CategoricalDtype):
            out[name] = pd.api.types.union_categoricals([f[name] for f in frames],
                                                        ignore_order=True)
    return out
