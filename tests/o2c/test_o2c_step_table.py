"""The o2c step table is the workload's (``queries/o2c.py``); the metrics of
``reports/o2c/metrics.py`` restate what they need of it, because reports may not import
queries (the layering). This test holds the two statements to one fact."""

from __future__ import annotations

from dbbench.queries import o2c as workload
from dbbench.reports.o2c import metrics


def test_the_metrics_count_the_steps_the_workload_runs() -> None:
    by_transaction: dict[str, tuple[int, ...]] = {}
    for step in workload.STEPS:
        by_transaction[step.transaction] = (*by_transaction.get(step.transaction, ()), step.number)
    assert by_transaction == metrics.TRANSACTION_STEPS
    assert tuple(metrics.TRANSACTION_STEPS) == workload.TRANSACTIONS  # the loop's order
    assert metrics.STEPS_PER_LOOP == workload.STEPS_PER_LOOP == len(workload.STEPS)
    assert metrics.LINES_PER_ORDER == workload.LINES_PER_ORDER
    # a business document is completed by exactly the steps that write
    assert tuple(s.number for s in workload.STEPS if s.writes) == metrics.DOCUMENT_STEPS
