"""The engine settings a report shows: every one the engine disclosed, those the engine URL
set marked so, and, with a cost sheet, whether the sheet covers a URL setting (a setting
the priced configuration does not name is flagged "unpriced")."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Protocol
from urllib.parse import parse_qsl, urlsplit

from dbbench.reports.document import Table
from dbbench.reports.tpch.costsheet import CostSheet
from dbbench.reports.tpch.model import BenchmarkResult

_OPTION = re.compile(r"(?:-c\s*|--)([A-Za-z_][\w.]*)=")
_INIT = re.compile(r"(?:^|,)\s*(?:SET\s+)?(?:SESSION\s+|@@(?:session\.)?)?([A-Za-z_]\w*)\s*=", re.I)


@dataclass(frozen=True)
class SettingRow:
    name: str
    value: str
    source: str  # "URL" (the engine URL set it) or "engine"
    priced: str  # "", "in the cost sheet" or "UNPRICED"


def url_settings(url: str) -> set[str]:
    """The setting names an engine URL's query gives: its keys, PostgreSQL's
    ``options=-c name=value`` (or ``--name=value``) and MariaDB's ``init_command=SET SESSION
    name=value, ...``."""
    try:
        query = urlsplit(url).query
    except ValueError:
        return set()
    names = set()
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key == "options":  # PostgreSQL's -c name=value
            names |= set(_OPTION.findall(value))
        elif key == "init_command":  # MySQL/MariaDB's SET SESSION name=value, ...
            names |= set(_INIT.findall(value))
        else:
            names.add(key)
    return names


def _covered(name: str, sheet: CostSheet) -> bool:
    text = " ".join([sheet.system, sheet.notes, *(i.description for i in sheet.items)])
    return name.lower() in text.lower()


def setting_rows(result: BenchmarkResult, sheet: CostSheet | None) -> list[SettingRow]:
    from_url = {n.lower() for n in url_settings(result.engine.url)}
    rows = []
    for name, value in result.engine.settings.items():
        source = "URL" if name.lower() in from_url else "engine"
        priced = ""
        if sheet is not None and source == "URL":
            priced = "in the cost sheet" if _covered(name, sheet) else "UNPRICED"
        rows.append(SettingRow(name, value, source, priced))
    return rows


class HasSettings(Protocol):
    """A report that holds its setting rows (:class:`reports.tpch.summary.Report`)."""

    @property
    def settings(self) -> list[SettingRow]: ...


SETTINGS_HEADER = ["Engine setting", "Value", "Set by", "Priced"]


def settings_table(report: HasSettings) -> Table | None:
    """Every engine setting the result disclosed (those of the engine URL "Set by: URL", a
    URL setting a cost sheet does not name UNPRICED); None when it disclosed none. The text
    summary and every document-rendered format show this one table."""
    if not report.settings:
        return None
    rows = [[s.name, s.value, s.source, s.priced or "-"] for s in report.settings]
    return Table(SETTINGS_HEADER, rows, frozenset())
