"""The word lists ``queries`` keeps privately (it must not import the generator) are dbgen's.

qgen and dbgen read the same dists.dss; the two packages each transcribe the lists they need.
This test is what makes two copies safe: every list ``queries`` holds equals dbgen's list of
the same name, value for value (and weight for weight where qgen uses the weights).
"""

from __future__ import annotations

import dataclasses

import pytest

from dbbench.dbgen import dists as dbgen_dists
from dbbench.queries import dists as queries_dists

#: qgen's lists that dbgen does not draw from (only Q13's word pairs).
QGEN_ONLY = {"Q13a", "Q13b"}


def _lists(module: object, cls: type) -> dict[str, object]:
    return {d.name: d for d in vars(module).values() if isinstance(d, cls)}


QUERY_LISTS = _lists(queries_dists, queries_dists.Dist)
DBGEN_LISTS = _lists(dbgen_dists, dbgen_dists.Dist)


def test_the_two_dist_types_have_the_same_fields() -> None:
    names = [f.name for f in dataclasses.fields(queries_dists.Dist)]
    assert names == [f.name for f in dataclasses.fields(dbgen_dists.Dist)]


@pytest.mark.parametrize("name", sorted(set(QUERY_LISTS) - QGEN_ONLY))
def test_every_list_queries_holds_is_dbgens(name: str) -> None:
    ours = QUERY_LISTS[name]
    assert isinstance(ours, queries_dists.Dist)
    theirs = DBGEN_LISTS["nations" if name == "nations2" else name]
    assert isinstance(theirs, dbgen_dists.Dist)
    assert ours.values == theirs.values
    if name != "nations2":  # nations2 is qgen's uniform copy; dbgen's weights are region steps
        assert ours.weights == theirs.weights


def test_the_nation_region_table_is_dbgens_running_sum() -> None:
    assert list(queries_dists.NATION_REGION) == dbgen_dists.region_keys_of_nations()


def test_the_qgen_only_lists_are_the_ones_dbgen_lacks() -> None:
    assert set(QUERY_LISTS) - set(DBGEN_LISTS) - {"nations2"} == QGEN_ONLY
    assert len(QUERY_LISTS) == 9
