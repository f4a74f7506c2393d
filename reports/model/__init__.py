"""The result contract's shared core: the codec (:mod:`.codec`: JSON read once, dataclasses
rebuilt with every value checked) and the envelope every family shares (:mod:`.envelope`).

No family's dataclasses live here: each family keeps its model in its own package
(``reports.tpch.model``, ``reports.o2c.model``, ``reports.hammerdb.model``,
``reports.mixed.model``). Standard library only, so a report can be rebuilt on a machine with
no engine installed; the drivers write results through it.
"""

from __future__ import annotations

from dbbench.reports.model.codec import MAX_DEPTH as MAX_DEPTH
from dbbench.reports.model.codec import MAX_MAGNITUDE as MAX_MAGNITUDE
from dbbench.reports.model.codec import _build as _build
from dbbench.reports.model.codec import built as built
from dbbench.reports.model.codec import check_depth as check_depth
from dbbench.reports.model.codec import check_plausible as check_plausible
from dbbench.reports.model.codec import parse_json as parse_json
from dbbench.reports.model.codec import plain as plain
from dbbench.reports.model.codec import read_json as read_json
from dbbench.reports.model.envelope import ENVELOPE_FIELDS as ENVELOPE_FIELDS
from dbbench.reports.model.envelope import JOURNAL_FILE as JOURNAL_FILE
from dbbench.reports.model.envelope import REPORT_HTML_FILE as REPORT_HTML_FILE
from dbbench.reports.model.envelope import REPORT_MD_FILE as REPORT_MD_FILE
from dbbench.reports.model.envelope import RESULT_FILE as RESULT_FILE
from dbbench.reports.model.envelope import SUMMARY_FILE as SUMMARY_FILE
from dbbench.reports.model.envelope import UNKNOWN_VERSION as UNKNOWN_VERSION
from dbbench.reports.model.envelope import EngineInfo as EngineInfo
from dbbench.reports.model.envelope import ResultEnvelope as ResultEnvelope
from dbbench.reports.model.envelope import ResultStatus as ResultStatus
from dbbench.reports.model.envelope import SystemInfo as SystemInfo
from dbbench.reports.model.envelope import combined_status as combined_status
from dbbench.reports.model.envelope import kit_version as kit_version
from dbbench.reports.model.hostnoise import EMBEDDED as EMBEDDED
from dbbench.reports.model.hostnoise import NOISE_KEY as NOISE_KEY
from dbbench.reports.model.hostnoise import REMOTE as REMOTE
from dbbench.reports.model.hostnoise import UNATTRIBUTED as UNATTRIBUTED
from dbbench.reports.model.hostnoise import HostNoise as HostNoise
from dbbench.reports.model.hostnoise import NoisePhase as NoisePhase
