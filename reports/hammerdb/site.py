"""HammerDB's page of the static site: TPROC-C NOPM/TPM, TPROC-H geometric mean."""

from __future__ import annotations

from dbbench.reports.family import Checked, Row, SiteView
from dbbench.reports.hammerdb.model import HammerDBResult
from dbbench.reports.site.rows import row_date


def hammerdb_row(result: HammerDBResult, checked: Checked) -> Row:
    return {
        "system": result.system.hostname,
        "benchmark": result.benchmark,
        "database": result.database,
        "version": result.engine.version,
        "nopm": result.nopm,
        "tpm": result.tpm,
        "geomean": result.geomean_seconds,
        "vus": result.active_virtual_users,
        "status": result.status,
        "date": row_date(result.created) or result.timestamp,
        "kit": result.kit_version,
    }


SITE = SiteView(
    view="hammerdb",
    nav="HammerDB",
    title="HammerDB",
    note="TPROC-C NOPM/TPM, TPROC-H geometric mean.",
    row=hammerdb_row,
    columns=(
        ("id", "result", False),
        ("system", "system", False),
        ("benchmark", "benchmark", False),
        ("database", "database", False),
        ("version", "version", False),
        ("nopm", "NOPM", True),
        ("tpm", "TPM", True),
        ("geomean", "TPROC-H geomean s", True),
        ("vus", "VUs", True),
        ("status", "status", False),
        ("date", "date", False),
        ("kit", "kit", False),
    ),
    order=20,
)
