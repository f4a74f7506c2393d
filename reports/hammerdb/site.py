"""HammerDB's page of the static site: TPROC-C NOPM/TPM, TPROC-H geometric mean."""

from __future__ import annotations

from dbbench.reports.family import Checked, Row, SiteView
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.site.rows import columns, framed, row_date


def hammerdb_row(result: HammerDBResult, checked: Checked) -> Row:
    cells: Row = {"benchmark": result.benchmark, "database": result.database}
    cells |= {"nopm": result.nopm, "tpm": result.tpm, "geomean": result.geomean_seconds}
    cells["vus"] = result.active_virtual_users
    return framed(result, cells | {"date": row_date(result.created) or result.timestamp})


#: the page's note and its columns (``rows.columns``)
NOTE = "TPROC-C NOPM/TPM, TPROC-H geometric mean."
COLUMNS = columns(
    "id=result|system|benchmark|database|version|nopm=NOPM#|tpm=TPM#|"
    "geomean=TPROC-H geomean s#|vus=VUs#|status|host=host noise|date|kit"
)
SITE = SiteView("hammerdb", "HammerDB", "HammerDB", NOTE, hammerdb_row, COLUMNS, order=20)
