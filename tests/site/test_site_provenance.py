"""Each result on the site carries its provenance (the suite file that ran it, the engine URL's
options, the kit version, the host noise, "busy" where the one judge says so, for every
family), and the o2c page says what a run is: a search's users confirmed at the RT limit, or
a fixed-user run's given count."""

from __future__ import annotations

import json
import re
from pathlib import Path

from reports_fixtures import FAMILY_GOLDEN as GOLDEN

from dbbench.reports.model import EMBEDDED, NOISE_KEY
from dbbench.reports.model.hostnoise import HostNoise, NoisePhase
from dbbench.reports.site.build import build_site
from dbbench.reports.studies.suite import EntryRecord, SuiteIndex


def _data(page: Path) -> dict[str, object]:
    pattern = r'<script type="application/json" id="site-data">(.*?)</script>'
    m = re.search(pattern, page.read_text())
    assert m is not None
    return json.loads(m.group(1))  # type: ignore[no-any-return]


def _busy(path: Path, golden: str, users: int | None = None) -> None:
    data = json.loads((GOLDEN / golden).read_text(encoding="utf-8"))
    phase = NoisePhase("20 users", 1.0, 61.0, 9.0, 95.0, 20.0, 0.0, 0.0)
    data.setdefault("config", {})[NOISE_KEY] = HostNoise(2, EMBEDDED, [phase]).plain()
    if users is not None:
        data["created"] = data.get("created", 0) + users  # another result, another hash
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")


def test_provenance_and_what_an_o2c_run_is(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    tpch = json.loads((GOLDEN / "tpch-v4.json").read_text(encoding="utf-8"))
    tpch["engine"]["url"] = "duckdb:///x.duckdb?threads=1"
    (suite / "duck-sf0.01").mkdir(parents=True)
    (suite / "duck-sf0.01" / "result.json").write_text(json.dumps(tpch), encoding="utf-8")
    index = SuiteIndex("examples/suites/duckdb-threads.toml", "duck")
    index.entries = [EntryRecord("duck", "duckdb", 0.01, 1, "duck-sf0.01", "ok")]
    index.write(suite)
    _busy(tmp_path / "o2c" / "result.json", "o2c-v2.json")
    _busy(tmp_path / "mixed" / "result.json", "mixed-v1.json")
    _busy(tmp_path / "hammerdb" / "result.json", "hammerdb-v1.json")
    search = json.loads((GOLDEN / "o2c-v2.json").read_text(encoding="utf-8"))
    search["kind"] = "search"  # its one probe the confirmation of the count it found
    search["probes"][0]["role"] = "confirmation"
    (tmp_path / "search.json").write_text(json.dumps(search), encoding="utf-8")
    out = tmp_path / "site"
    inputs = [suite, tmp_path / "o2c", tmp_path / "mixed", tmp_path / "hammerdb"]
    inputs.append(tmp_path / "search.json")
    build_site([*inputs, GOLDEN / "o2c-v1.json"], out, full_reports=False)
    (row,) = _data(out / "index.html")["rows"]  # type: ignore[misc]
    assert row["suite"] == "duckdb-threads.toml" and row["options"] == "threads=1"
    assert row["kit"] and row["host"] in ("quiet", "busy", "not recorded")
    page = _data(out / "r" / f"{row['id']}.html")["row"]
    assert page["suite"] == "duckdb-threads.toml" and "host" in page  # type: ignore[index]
    for view in ("o2c", "mixed", "hammerdb"):
        rows = _data(out / f"{view}.html")["rows"]
        busy = [r for r in rows if r["host"] == "busy"]  # type: ignore[index]
        assert len(busy) == 1, (view, rows)
        assert busy[0]["host_noise"].startswith(  # type: ignore[index]
            "host busy during 20 users: load average 9.0 above its 2 CPUs"
        )
        assert busy[0]["suite"] == ""  # type: ignore[index]
    o2c = _data(out / "o2c.html")["rows"]
    runs = [r for r in o2c if r["kind"] == "run"]  # type: ignore[index]
    (found,) = [r for r in o2c if r["kind"] == "search"]  # type: ignore[index]
    assert len(runs) == 2
    for r in runs:  # a fixed-user count is never shown as users at the RT limit
        assert r["confirmed"] is None and r["fixed"] == r["users"]
        assert r["what"].startswith("fixed-user run: ")
    if found["users"] is not None:  # the confirmation passed: its count is confirmed
        assert found["confirmed"] == found["users"] and found["fixed"] is None
        assert found["what"] == "search: confirmed at the RT limit"
    else:
        assert found["what"] == "search: no confirmed count"
    columns = [c[1] for c in _data(out / "o2c.html")["columns"]]  # type: ignore[index]
    assert "users at RT limit (confirmed search)" in columns
    assert "users (fixed-user run)" in columns and "host noise" in columns
