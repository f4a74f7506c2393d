"""Reading result files for reports: a JSON file or a run directory, with one-line errors.

Every read goes through the family registry (:func:`reports.families.read_result`): a file is
read once, checked and upgraded by its family. A TPC-H result of ``dbbench run`` (what the
suites, scaling studies and gates read) is :func:`load_result` (:mod:`reports.tpch.loading`);
an ACID result to attach to one is :func:`read_acid`.
"""

from __future__ import annotations

from pathlib import Path

from dbbench.reports.acid.model import AcidResult
from dbbench.reports.errors import ReportsError
from dbbench.reports.families import read_result as read_result
from dbbench.reports.tpch.loading import load_result as load_result
from dbbench.reports.tpch.loading import load_result_noted as load_result_noted


def read_acid(path: Path) -> AcidResult:
    """The ACID result in a file or run directory; anything else: one line."""
    _family, loaded, _ = read_result(path)
    if not isinstance(loaded, AcidResult):
        raise ReportsError(f"{path} is not an ACID result (dbbench acid writes one)")
    return loaded
