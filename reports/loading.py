"""Reading result files for reports: a JSON file or a run directory, with one-line errors.

Every read goes through the family registry (:func:`reports.families.read_result`): a file is
read once, checked and upgraded by its family. A TPC-H result of ``dbbench run`` (what the
suites, scaling studies and gates read) is :func:`load_result` (:mod:`reports.tpch.loading`).
"""

from __future__ import annotations

from dbbench.reports.families import read_result as read_result
from dbbench.reports.tpch.loading import load_result as load_result
from dbbench.reports.tpch.loading import load_result_noted as load_result_noted
