"""The ACID result (``dbbench-acid-result``): each clause-3 test with its inputs, the values
read and expected, its timings and its verdict; standard library only."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from dbbench.reports.model import ResultEnvelope, ResultStatus

ACID_SCHEMA_NAME = "dbbench-acid-result"
ACID_SCHEMA_VERSION = 1

#: the scale factor of the qualification database the ACID tests run on (clause 3.1); a
#: smaller database makes a development check, not a qualification run
QUALIFICATION_SF = 1.0

#: a test's verdict; "not supported": the engine has no transactions (never a pass)
Verdict = Literal["passed", "failed", "not run", "not supported"]
#: the result's verdict; "incomplete": every test that ran passed, but not every test of
#: clause 3 ran (durability without a failure the kit can cause): never "passed"
ResultVerdict = Literal["passed", "failed", "incomplete", "not run", "not supported"]

#: every test of clause 3, in the order the kit runs them
ALL_TESTS = (
    "atomicity-commit",
    "atomicity-rollback",
    "consistency",
    *(f"isolation-{n}" for n in range(1, 7)),
    "durability",
)


@dataclass
class AcidCheck:
    """One test of clause 3 (``atomicity-commit``, ``isolation-3``, ...)."""

    name: str
    verdict: Verdict
    seconds: float = 0.0
    inputs: dict[str, Any] = field(default_factory=dict)
    #: what the test read, and what it expected, as plain text values
    observed: dict[str, str] = field(default_factory=dict)
    expected: dict[str, str] = field(default_factory=dict)
    #: the steps in the order the kit ran them (session, statement or event)
    steps: list[str] = field(default_factory=list)
    message: str = ""


@dataclass
class AcidResult(
    ResultEnvelope,
    schema_name=ACID_SCHEMA_NAME,
    schema_version=ACID_SCHEMA_VERSION,
    title="dbbench ACID result",
):
    """The ACID tests of one engine and configuration."""

    scale_factor: float
    #: failed until the tests have run
    status: ResultStatus = field(default="failed", kw_only=True)
    #: run on the qualification database (:data:`QUALIFICATION_SF`); smaller: a development check
    qualification: bool = False
    streams: int = 0
    transactions_per_stream: int = 0
    checks: list[AcidCheck] = field(default_factory=list)
    #: failure types of 3.5 exercised (and how), and those declared as not exercised
    failures_exercised: dict[str, str] = field(default_factory=dict)
    failures_not_exercised: list[str] = field(default_factory=list)
    #: a test of clause 3 that did not run -> why, in one phrase
    skipped: dict[str, str] = field(default_factory=dict)
    #: the engine cannot run the tests (no transactions): the reason, in one line
    not_supported: str = ""

    def passed_tests(self) -> list[str]:
        return [c.name for c in self.checks if c.verdict == "passed"]

    def not_run(self) -> list[str]:
        """The tests of clause 3 that did not run (or were not run to a verdict)."""
        passed = {c.name for c in self.checks if c.verdict in ("passed", "failed")}
        return [name for name in ALL_TESTS if name not in passed]

    @property
    def verdict(self) -> ResultVerdict:
        """passed (every test of clause 3 ran and passed), failed, incomplete (what ran
        passed, something did not run), not supported or not run."""
        if self.not_supported:
            return "not supported"
        if not self.checks:
            return "not run"
        if any(c.verdict == "failed" for c in self.checks) or self.errors:
            return "failed"
        if self.not_run():
            return "incomplete"
        return "passed"

    def summary(self) -> str:
        """One line: ``ACID: passed (tests ...; failures ...)``, ``ACID: incomplete (passed
        ...; not run: ...)``, ``ACID: failed: ...``, ``ACID: not supported (...)``,
        ``ACID: not run``."""
        verdict = self.verdict
        if verdict == "not supported":
            return f"ACID: not supported ({self.not_supported})"
        if verdict == "not run":
            return "ACID: not run"
        if verdict == "failed":
            bad = [f"{c.name}: {c.message}" for c in self.checks if c.verdict == "failed"]
            return "ACID: failed: " + "; ".join(bad + self.errors)
        names = ", ".join(self.passed_tests())
        failures = "; ".join(f"{k} ({v})" for k, v in self.failures_exercised.items())
        if verdict == "passed":
            return f"ACID: passed (tests {names}; failures {failures})"
        missing = []
        for name in self.not_run():
            reason = self.skipped.get(name, "")
            missing.append(f"{name} ({reason})" if reason else name)
        return f"ACID: incomplete (passed {names}; not run: {'; '.join(missing)})"
