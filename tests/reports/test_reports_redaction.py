"""No password from an engine URL (or anywhere else in a result) reaches any report."""

from __future__ import annotations

from pathlib import Path

from dbbench.reports.tpch.formats import REPORT_FORMATS, render
from dbbench.reports.tpch.model import BenchmarkResult
from dbbench.reports.tpch.redact import redact_text
from dbbench.reports.tpch.render import write_reports

SECRET = "Sup3r-S3cret-pw"


def _leaky(result: BenchmarkResult) -> BenchmarkResult:
    url = f"postgresql://bench:{SECRET}@db.example:5432/tpch"
    result.engine.url = url
    result.engine.settings["conninfo"] = f"host=db.example user=bench password={SECRET}"
    result.config = {"url": url, "db_password": SECRET, "streams": 2}
    result.errors = [f"connection to {url} lost", f"FATAL: login with {SECRET} refused"]
    result.runs[0].intervals[3].error = f"could not reconnect to {url}"
    return result


def test_no_format_contains_the_password(result: BenchmarkResult, tmp_path: Path) -> None:
    leaky = _leaky(result)
    for fmt in REPORT_FORMATS:
        text = render(leaky, fmt)
        assert SECRET not in text, f"{fmt} report leaks the password"
    for path in write_reports(leaky, tmp_path):
        assert SECRET not in path.read_text(encoding="utf-8"), path.name
    md = render(leaky, "md")
    # the rest of the URL stays (the mask's stars escaped: Markdown shows them as they are)
    assert "postgresql://bench:\\*\\*\\*@db.example:5432/tpch" in md


def test_the_original_result_is_not_modified(result: BenchmarkResult) -> None:
    leaky = _leaky(result)
    render(leaky, "json")
    assert SECRET in leaky.engine.url


def test_redact_text_forms() -> None:
    assert redact_text("mysql+pymysql://root:pw123@h/db") == "mysql+pymysql://root:***@h/db"
    assert redact_text("host=h password=abc123 user=u") == "host=h password=*** user=u"
    assert redact_text("duckdb:///x.db") == "duckdb:///x.db"
    assert redact_text("said hunter22 twice", {"hunter22"}) == "said *** twice"


def test_redaction_is_linear_in_the_length_of_a_string() -> None:
    """It cost 3.4 ms per KB (a run of letters was rescanned from every position): a 50 MB
    result took minutes in ``dbbench report``."""
    import time

    text = "a" * 2_000_000 + " postgresql://u:pw1234@h/db " + "x1" * 1_000_000 + "://"
    started = time.process_time()  # CPU seconds: other processes on a busy machine add none
    out = redact_text(text, {"hunter22"})
    assert time.process_time() - started < 2.0
    assert "pw1234" not in out and "postgresql://u:***@h/db" in out
