"""Answer sets beyond SF 1 (issue 35): ``dbbench answers make -s SF --engines A,B -o DIR``.

Each engine, one after the other, gets the kit's own generated data (``load_database``, the
generator's batches straight in) in a scratch folder, and runs the 22 queries with the
validation (default) substitution parameters (:func:`defaults.run_defaults`). The second
engine's rows must agree with the first's by value (``queries.validate.compare_results``,
the spec's column classes, the comparison ``dbbench validate`` makes); then the set is
written in the official SF1 layout (``q1.out`` .. ``q22.out``, ``colprecision.txt``) with a
``manifest.json`` (engines, their versions, the date, the seconds taken), read back, and
both engines' rows checked against it, so that ``queries.validate.load_answers`` reads it
as it reads the shipped SF1 set.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from dbbench.drivers.engine import QueryOutput
from dbbench.drivers.errors import DriversError
from dbbench.drivers.lifecycle import local_url, open_run
from dbbench.drivers.sequencer.defaults import prepare_for_validation, run_defaults, verdicts
from dbbench.drivers.url import parse_url, redact
from dbbench.queries.order import QUERY_NUMBERS
from dbbench.queries.validate import (
    MANIFEST,
    column_classes,
    compare_answer,
    format_answer,
    load_answers,
)
from dbbench.reports import safeio
from dbbench.reports.model import kit_version

MANIFEST_FORMAT = "dbbench-answer-set-v1"
COLPRECISION = "colprecision.txt"
ROLE = "an answer engine"


@dataclass(frozen=True)
class EngineRun:
    """What one engine did for the set: its name, version and seconds."""

    engine: str
    version: str
    load_seconds: float
    query_seconds: float


@dataclass(frozen=True)
class AnswerSet:
    """A written answer set: where, and its manifest's facts."""

    path: Path
    scale_factor: float
    engines: list[EngineRun]
    made: str
    seconds: float


def _run_engine(
    spec: str, sf: float, folder: Path, say: Callable[[str], None]
) -> tuple[EngineRun, dict[int, QueryOutput | str]]:
    folder.mkdir(parents=True, exist_ok=True)
    url = local_url(spec, folder)
    label = redact(parse_url(url))
    with open_run([url], role=ROLE) as scope:
        engine = scope.engine
        started = time.monotonic()
        prepare_for_validation(engine, sf, reload=True, label=label, loading=say)
        loaded = time.monotonic()
        say(f"running the 22 queries with the validation parameters on {label} ...")
        results = run_defaults(engine, sf)
        done = time.monotonic()
        run = EngineRun(
            engine.facts.display_name or engine.name,
            engine.version(),
            round(loaded - started, 1),
            round(done - loaded, 1),
        )
    return run, results


def _disagreements(names: Sequence[str], runs: Sequence[dict[int, QueryOutput | str]]) -> list[str]:
    lines = []
    for v in verdicts(runs[1], runs[0]):
        if not v.passed:
            lines.append(f"Q{v.query}: {names[1]} against {names[0]}: {v.first_mismatch}")
    for name, results in zip(names, runs, strict=True):
        lines += [f"Q{q}: {name}: {got}" for q, got in results.items() if isinstance(got, str)]
    return lines


def make_answer_set(
    sf: float,
    engines: Sequence[str],
    out_dir: Path,
    *,
    work_dir: Path | None = None,
    force: bool = False,
    say: Callable[[str], None] = lambda line: None,
) -> AnswerSet:
    """Make the answer set of ``sf`` with two engines (URLs; bare ``duckdb`` is a file in a
    scratch folder under ``work_dir``, default the temporary directory, removed after)."""
    if len(engines) != 2:
        raise DriversError(f"--engines needs two engines, got {len(engines)}")
    schemes = [parse_url(local_url(e, Path("."))).scheme for e in engines]
    if schemes[0] == schemes[1]:
        raise DriversError(f"--engines needs two different engines, not {schemes[0]} twice")
    if out_dir.exists() and not out_dir.is_dir():
        raise DriversError(f"{out_dir}: not a directory")
    if (out_dir / "q1.out").exists() and not force:
        raise DriversError(f"{out_dir} holds an answer set already; --force replaces it")
    started = time.monotonic()
    runs: list[EngineRun] = []
    outputs: list[dict[int, QueryOutput | str]] = []
    with tempfile.TemporaryDirectory(prefix="dbbench-answers-", dir=work_dir) as scratch:
        for k, spec in enumerate(engines):  # each opens before the first loads: a bad URL
            folder = Path(scratch) / f"engine{k + 1}"  # is refused at once, not after the
            folder.mkdir()  # first engine's load and queries
            with open_run([local_url(spec, folder)], role=ROLE):
                pass
        for k, spec in enumerate(engines):
            run, results = _run_engine(spec, sf, Path(scratch) / f"engine{k + 1}", say)
            runs.append(run)
            outputs.append(results)
    names = [r.engine for r in runs]
    wrong = _disagreements(names, outputs)
    if wrong:
        raise DriversError(
            f"the engines disagree at SF {sf:g}, no set written: " + "; ".join(wrong[:5])
        )
    texts = {}
    for q, got in outputs[0].items():
        assert not isinstance(got, str)  # _disagreements lists every error
        texts[q] = format_answer(q, got.rows)
    out_dir.mkdir(parents=True, exist_ok=True)
    for q, text in texts.items():
        safeio.write_text(out_dir / f"q{q}.out", text)
    safeio.write_text(
        out_dir / COLPRECISION,
        "".join(" ".join(column_classes(q)) + "\n" for q in QUERY_NUMBERS),
    )
    answer_set = AnswerSet(
        out_dir,
        sf,
        runs,
        datetime.now(UTC).isoformat(timespec="seconds"),
        round(time.monotonic() - started, 1),
    )
    _check_written(answer_set, names, outputs)
    safeio.write_text(out_dir / MANIFEST, manifest_text(answer_set))
    return answer_set


def _check_written(
    answer_set: AnswerSet, names: Sequence[str], outputs: Sequence[dict[int, QueryOutput | str]]
) -> None:
    """Both engines' rows pass against the set as written (values at the cent)."""
    for name, results in zip(names, outputs, strict=True):
        for q, got in results.items():
            assert not isinstance(got, str)
            load_answers(q, answer_set.path)  # it parses
            verdict = compare_answer(q, got.rows, answer_set.path)
            if not verdict.passed:
                raise DriversError(
                    f"Q{q}: {name} fails against the written set ({verdict.first_mismatch});"
                    " the set is not usable"
                )


def manifest_text(answer_set: AnswerSet) -> str:
    """The set's ``manifest.json``: format, scale factor, engines, date, seconds, kit."""
    document = {
        "format": MANIFEST_FORMAT,
        "scale_factor": answer_set.scale_factor,
        "parameters": "the validation (default) substitution parameters",
        "agreement": "the second engine's rows checked against the first's by value"
        " (the spec's column classes); values written at the cent",
        "engines": [asdict(r) for r in answer_set.engines],
        "made": answer_set.made,
        "seconds": answer_set.seconds,
        "kit_version": kit_version(),
    }
    return json.dumps(document, indent=1) + "\n"
