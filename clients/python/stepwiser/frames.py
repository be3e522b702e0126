"""Rows for tables: flat dicts from the API's lines, and pandas DataFrames from them when pandas is installed."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence


def label_rows(lines: Iterable[Mapping[str, Any]]) -> List[Dict[str, Any]]:
    """One flat dict per chunk of an annotate run's label lines (:meth:`Client.labels`).

    Columns: ``solution`` (the external id), ``chunk`` (its index), ``q`` (its Q-value), ``rollouts``, then
    each stored label by its rule's name and that label's confidence as ``<name>_confidence``.
    """
    rows = []
    for line in lines:
        row: Dict[str, Any] = {"solution": line["external_id"], "chunk": line["chunk_index"], "q": line["q_value"], "rollouts": line.get("rollouts")}
        for label in line.get("labels", []):
            row[label["name"]] = label["label"]
            row[f"{label['name']}_confidence"] = label.get("confidence")
        rows.append(row)
    return rows


def to_pandas(rows: Iterable[Mapping[str, Any]], columns: Optional[Sequence[str]] = None):
    """A ``pandas.DataFrame`` with one row per dict (runs, label rows, predictions, …).

    Raises:
        ImportError: pandas is not installed (``pip install pandas``); the rest of the client needs nothing.
    """
    try:
        import pandas
    except ImportError as error:
        raise ImportError("stepwiser.to_pandas needs pandas, which is not installed: pip install pandas (every other part of stepwiser works without it)") from error
    return pandas.DataFrame.from_records([dict(row) for row in rows], columns=list(columns) if columns is not None else None)
