"""o2c prepare, check and cleanup on a loaded TPC-H database, through any engine.

Prepare records, before it changes anything, fingerprints of the four TPC-H tables the
workload writes to and a hash of every row it may update; it then allocates each user's
customer and parts deterministically from a seed and snapshots those rows. Check proves the
business invariants; cleanup restores the snapshot, deletes the workload's orders and proves
that the fingerprints and the hash are what they were before prepare.
"""

from __future__ import annotations

import hashlib
import json
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from dbbench.dbgen.schema import TABLES
from dbbench.drivers.engine import STATE_SCALE_FACTOR, STATE_WORKLOAD_KEYS_FROM, Engine, Session
from dbbench.drivers.errors import ConnectionLostError, DriversError
from dbbench.drivers.workload_rows import workload_rows as workload_rows  # counted by the core
from dbbench.queries import o2c as q
from dbbench.queries.dialects import DIALECTS, get_dialect
from dbbench.queries.errors import QueriesError

#: Parts each user owns, one per line item of its orders (sap_sd.md proposes 10; 5 doubles
#: the users a small scale factor can hold, and an order still has 5 distinct materials).
PARTS_PER_USER = 5
#: Order keys per user: user ``u`` numbers its orders ``key_base + u * BLOCK + seq``.
BLOCK = 1_000_000
DEFAULT_USERS = 2000
INSERT_ROWS = 500


@dataclass
class Prepared:
    """What prepare stored in ``o2c_state``."""

    seed: int
    users: int
    key_base: int
    scale_factor: float
    parts_per_user: int = PARTS_PER_USER
    block: int = BLOCK
    fingerprint: dict[str, list[str]] = field(default_factory=dict)  # before prepare
    outside: dict[str, list[str]] = field(default_factory=dict)  # rows not the workload's
    touched: str = ""  # hash of every row the workload may update, before prepare

    def key_range(self, user: int) -> tuple[int, int]:
        lo = self.key_base + user * self.block
        return lo, lo + self.block


@dataclass
class UserData:
    user: int
    custkey: int
    parts: list[int]


@contextmanager
def _session(engine: Engine) -> Iterator[Session]:
    s = engine.session()
    try:
        yield s
    finally:
        s.close()


def _scalar(s: Session, sql: str) -> Any:
    return s.query(sql).rows[0][0]


def require_capable(engine: Engine) -> None:
    """One line, before anything is written, for an engine the dialog steps cannot run on:
    one without transactions (``facts.transactional``), or one whose SQL dialect the steps
    do not know."""
    if not engine.facts.transactional:
        raise DriversError(
            f"o2c needs transactions with UPDATE and DELETE, which engine {engine.name!r} "
            "does not offer on its tables; use a transactional database"
        )
    try:
        get_dialect(engine.dialect)
    except QueriesError:
        raise DriversError(
            f"engine {engine.name!r} speaks SQL dialect {engine.dialect!r}, which o2c's "
            f"dialog steps do not know (they know {', '.join(DIALECTS)})"
        ) from None


def begin_sql(engine: Engine) -> str:
    """The statement that opens a dialog step's transaction: the engine's own
    (``facts.begin``; SQLite queues for its write lock with ``BEGIN IMMEDIATE``)."""
    return engine.facts.begin


def transaction(s: Session, statements: list[str], begin: str = "BEGIN") -> None:
    """Run statements as one transaction; roll back (quietly) if one fails."""
    s.execute(begin)
    try:
        for sql in statements:
            s.execute(sql)
        s.execute("COMMIT")
    except BaseException:
        with suppress(Exception):
            s.execute("ROLLBACK")
        raise


def _tables_exist(s: Session, table: str) -> bool:
    try:
        s.query(f"SELECT COUNT(*) FROM {table}")
    except DriversError:
        return False
    return True


def read_prepared(engine: Engine) -> Prepared | None:
    with _session(engine) as s:
        if not _tables_exist(s, q.STATE_TABLE):
            return None
        rows = s.query(f"SELECT state_key, state_value FROM {q.STATE_TABLE}").rows
    state = {str(k): str(v) for k, v in rows}
    if "prepared" not in state:
        return None
    return Prepared(**json.loads(state["prepared"]))


def require_prepared(engine: Engine) -> Prepared:
    found = read_prepared(engine)
    if found is None:
        raise DriversError("the database is not prepared for o2c: run `dbbench o2c prepare` first")
    return found


# -- fingerprints ------------------------------------------------------------------------------
def _length_sum(table: str) -> str:
    cols = [c.name for c in TABLES[table].columns if c.kind.value in ("char", "varchar")]
    return "SUM(" + " + ".join(f"LENGTH({c})" for c in cols) + ")"


def _fingerprint_sql(table: str, where: str) -> str:
    numeric = [
        c.name
        for c in TABLES[table].columns
        if c.kind.value in ("identifier", "integer", "decimal")
    ]
    sums = ", ".join(f"SUM({c})" for c in numeric)
    return f"SELECT COUNT(*), {sums}, {_length_sum(table)} FROM {table} {where}"


def _fingerprints(s: Session, key_base: int, *, outside_only: bool) -> dict[str, list[str]]:
    owned_c = f"WHERE c_custkey NOT IN (SELECT u_custkey FROM {q.USER_TABLE})"
    owned_ps = f"WHERE ps_partkey NOT IN (SELECT up_partkey FROM {q.PART_TABLE})"
    where = {
        "customer": owned_c if outside_only else "",
        "partsupp": owned_ps if outside_only else "",
        "orders": f"WHERE o_orderkey < {key_base}",
        "lineitem": f"WHERE l_orderkey < {key_base}",
    }
    found: dict[str, list[str]] = {}
    for table, cond in where.items():
        row = s.query(_fingerprint_sql(table, cond)).rows[0]
        found[table] = [_norm(v) for v in row]
    return found


def _norm(value: Any) -> str:
    if value is None:
        return "null"
    text = str(value)
    if "." in text and text.replace(".", "", 1).lstrip("-").isdigit():
        text = text.rstrip("0").rstrip(".")  # 12.50 and 12.5 are the same sum
    return text


def touched_hash(s: Session) -> str:
    """SHA-256 over every column of every row the workload may update, in key order."""
    digest = hashlib.sha256()
    queries = (
        f"SELECT {', '.join(TABLES['customer'].column_names)} FROM customer "
        f"WHERE c_custkey IN (SELECT u_custkey FROM {q.USER_TABLE}) ORDER BY c_custkey",
        f"SELECT {', '.join(TABLES['partsupp'].column_names)} FROM partsupp "
        f"WHERE ps_partkey IN (SELECT up_partkey FROM {q.PART_TABLE}) "
        "ORDER BY ps_partkey, ps_suppkey",
    )
    for sql in queries:
        for row in s.query(sql).rows:
            digest.update(("|".join(_norm(v) for v in row) + "\n").encode())
    return digest.hexdigest()


# -- allocation --------------------------------------------------------------------------------
def allocate(seed: int, customers: int, parts: int, users: int) -> list[UserData]:
    """Each user's customer (one with TPC-H order history: key not divisible by 3) and a
    disjoint set of parts, drawn from ``seed``; the same inputs give the same allocation."""
    rng = np.random.default_rng(seed)
    keys = np.arange(1, customers + 1, dtype=np.int64)
    eligible = rng.permutation(keys[keys % 3 != 0])
    part_keys = rng.permutation(np.arange(1, parts + 1, dtype=np.int64))
    return [
        UserData(
            u,
            int(eligible[u]),
            [int(p) for p in part_keys[u * PARTS_PER_USER : (u + 1) * PARTS_PER_USER]],
        )
        for u in range(users)
    ]


def capacity(customers: int, parts: int) -> int:
    return min(customers - customers // 3, parts // PARTS_PER_USER)


def _key_base(max_key: int, sf: float) -> int:
    """A round number above every key of the base load and of the refresh functions."""
    top = max(max_key, int(6_000_000 * sf), 1000)
    return int(10 ** math.ceil(math.log10(top + 1)))


def _insert_values(s: Session, table: str, columns: str, rows: list[str]) -> None:
    for i in range(0, len(rows), INSERT_ROWS):
        s.execute(f"INSERT INTO {table} ({columns}) VALUES " + ", ".join(rows[i : i + INSERT_ROWS]))


def _index(engine: Engine, s: Session, spec: str) -> None:
    """A lookup index on one of o2c's own tables, where the engine has indexes
    (``facts.secondary_indexes``). They only speed the steps' lookups up: without them
    (Hyper) the same statements scan, with the same results."""
    if engine.facts.secondary_indexes:
        s.execute(f"CREATE INDEX {spec}")


def prepare(engine: Engine, *, seed: int, users: int | None = None) -> Prepared:
    """Check the TPC-H database, allocate master data, snapshot what the workload may change."""
    if users is not None and users <= 0:
        raise DriversError(f"--users must be a positive number, not {users}")
    require_capable(engine)
    state = engine.read_state()
    counts = _tpch_counts(engine, state)
    sf = float(state.get(STATE_SCALE_FACTOR, "0") or 0)
    cap = capacity(counts["customer"], counts["part"])
    wanted = min(cap, DEFAULT_USERS) if users is None else users
    if wanted > cap:
        raise DriversError(
            f"{wanted} users do not fit this database: at SF {sf:g} there are master data "
            f"for at most {cap} users (one customer and {PARTS_PER_USER} parts each)"
        )
    existing = read_prepared(engine)
    if existing is not None:
        if existing.seed != seed:
            raise DriversError(
                f"the database is already prepared for o2c with seed {existing.seed}, not "
                f"{seed}: run `dbbench o2c cleanup` first or pass --seed {existing.seed}"
            )
        if existing.users < wanted:
            raise DriversError(
                f"the database is prepared for {existing.users} o2c users, fewer than "
                f"{wanted}: run `dbbench o2c cleanup`, then prepare again"
            )
        return existing
    with _session(engine) as s:
        max_key = int(_scalar(s, "SELECT COALESCE(MAX(o_orderkey), 0) FROM orders"))
        key_base = _key_base(max_key, sf)
        if key_base + cap * BLOCK >= 2**63:
            raise DriversError("order keys of the o2c users would not fit a BIGINT")
        for table in q.OWN_TABLES:
            s.execute(f"DROP TABLE IF EXISTS {table}")
        full = _fingerprints(s, key_base, outside_only=False)
        s.execute(
            f"CREATE TABLE {q.USER_TABLE} (u_user INTEGER NOT NULL, u_custkey BIGINT NOT NULL)"
        )
        s.execute(
            f"CREATE TABLE {q.PART_TABLE} (up_user INTEGER NOT NULL, up_slot INTEGER NOT NULL, "
            "up_partkey BIGINT NOT NULL)"
        )
        alloc = allocate(seed, counts["customer"], counts["part"], wanted)
        _insert_values(
            s, q.USER_TABLE, "u_user, u_custkey", [f"({a.user}, {a.custkey})" for a in alloc]
        )
        _insert_values(
            s,
            q.PART_TABLE,
            "up_user, up_slot, up_partkey",
            [f"({a.user}, {i}, {p})" for a in alloc for i, p in enumerate(a.parts)],
        )
        _index(engine, s, f"ix_o2c_user ON {q.USER_TABLE} (u_user)")
        _index(engine, s, f"ix_o2c_user_cust ON {q.USER_TABLE} (u_custkey)")
        _index(engine, s, f"ix_o2c_user_part ON {q.PART_TABLE} (up_partkey)")
        touched = touched_hash(s)
        outside = _fingerprints(s, key_base, outside_only=True)
        s.execute(
            f"CREATE TABLE {q.SNAP_CUSTOMER} AS SELECT * FROM customer "
            f"WHERE c_custkey IN (SELECT u_custkey FROM {q.USER_TABLE})"
        )
        s.execute(
            f"CREATE TABLE {q.SNAP_PARTSUPP} AS SELECT * FROM partsupp "
            f"WHERE ps_partkey IN (SELECT up_partkey FROM {q.PART_TABLE})"
        )
        _index(engine, s, f"ix_o2c_snap_c ON {q.SNAP_CUSTOMER} (c_custkey)")
        _index(engine, s, f"ix_o2c_snap_ps ON {q.SNAP_PARTSUPP} (ps_partkey, ps_suppkey)")
        s.execute(
            f"CREATE TABLE {q.REPLENISH_TABLE} (r_orderkey BIGINT NOT NULL, "
            "r_linenumber INTEGER NOT NULL, r_partkey BIGINT NOT NULL, "
            "r_suppkey BIGINT NOT NULL, r_quantity INTEGER NOT NULL)"
        )
        prepared = Prepared(  # the allocation (seed, users, keys, SF), then the fingerprints
            seed, wanted, key_base, sf, fingerprint=full, outside=outside, touched=touched
        )
        s.execute(
            f"CREATE TABLE {q.STATE_TABLE} (state_key VARCHAR(64) NOT NULL, "
            "state_value TEXT NOT NULL)"
        )
        text = json.dumps(prepared.__dict__).replace("'", "''")
        # the TPC-H core tells the workload's orders from TPC-H's by this key alone
        engine.write_state({STATE_WORKLOAD_KEYS_FROM: str(key_base)})
        # written last: a prepare that died half way is not "prepared"
        s.execute(f"INSERT INTO {q.STATE_TABLE} VALUES ('prepared', '{text}')")
    return prepared


def _tpch_counts(engine: Engine, state: dict[str, str]) -> dict[str, int]:
    try:
        counts = engine.row_counts()
    except DriversError:
        counts = {}
    if not counts or not counts.get("customer") or not counts.get("part") or not state:
        raise DriversError(
            "no TPC-H data in this database: load it first (`dbbench load -e URL -s SF`)"
        )
    return counts


def user_data(engine: Engine, prepared: Prepared, users: int) -> list[UserData]:
    """The allocation as stored by prepare (users ``0 .. users-1``)."""
    with _session(engine) as s:
        cust = s.query(f"SELECT u_user, u_custkey FROM {q.USER_TABLE} WHERE u_user < {users}").rows
        parts = s.query(
            f"SELECT up_user, up_slot, up_partkey FROM {q.PART_TABLE} WHERE up_user < {users} "
            "ORDER BY up_user, up_slot"
        ).rows
    by_user: dict[int, list[int]] = {}
    for u, _, p in parts:
        by_user.setdefault(int(u), []).append(int(p))
    return sorted(
        (UserData(int(u), int(c), by_user.get(int(u), [])) for u, c in cust),
        key=lambda d: d.user,
    )


# -- check -------------------------------------------------------------------------------------
def check(engine: Engine) -> list[str]:
    """The business invariants; returns one line per violated rule (empty: consistent)."""
    p = require_prepared(engine)
    b = p.key_base
    rules = {
        "orders without exactly 5 lines": (
            f"SELECT COUNT(*) FROM orders o WHERE o.o_orderkey >= {b} AND (SELECT COUNT(*) "
            "FROM lineitem l WHERE l.l_orderkey = o.o_orderkey) <> 5"
        ),
        "lines without their order": (
            f"SELECT COUNT(*) FROM lineitem WHERE l_orderkey >= {b} AND l_orderkey NOT IN "
            f"(SELECT o_orderkey FROM orders WHERE o_orderkey >= {b})"
        ),
        "order keys used twice": (
            f"SELECT COUNT(*) - COUNT(DISTINCT o_orderkey) FROM orders WHERE o_orderkey >= {b}"
        ),
        "line keys used twice": (
            "SELECT COUNT(*) FROM (SELECT l_orderkey, l_linenumber FROM lineitem "
            f"WHERE l_orderkey >= {b} GROUP BY l_orderkey, l_linenumber HAVING COUNT(*) > 1) d"
        ),
        "orders outside a user's key block or customer": (
            f"SELECT COUNT(*) FROM orders WHERE o_orderkey >= {b} AND o_custkey <> "
            f"COALESCE((SELECT u_custkey FROM {q.USER_TABLE} WHERE u_user = "
            f"(o_orderkey - {b} - MOD(o_orderkey - {b}, {p.block})) / {p.block}), -1)"
        ),
        "order and line states disagree with the document flow": (
            "SELECT COUNT(*) FROM (SELECT o_orderkey, o_shippriority AS st, o_orderstatus AS os, "
            "SUM(CASE WHEN l_linestatus = 'F' THEN 1 ELSE 0 END) AS f, "
            "SUM(CASE WHEN l_returnflag = 'A' THEN 1 ELSE 0 END) AS a "
            f"FROM orders JOIN lineitem ON l_orderkey = o_orderkey WHERE o_orderkey >= {b} "
            "GROUP BY o_orderkey, o_shippriority, o_orderstatus) t WHERE NOT ("
            f"(st IN ({q.STAGE_ORDERED}, {q.STAGE_DELIVERY}) AND os = 'O' AND f = 0 AND a = 0) OR "
            f"(st = {q.STAGE_ISSUED} AND os = 'F' AND f = 5 AND a = 0) OR "
            f"(st = {q.STAGE_BILLED} AND os = 'F' AND f = 5 AND a = 5))"
        ),
        "billed orders whose total is not the sum of their lines": (
            "SELECT COUNT(*) FROM (SELECT o_orderkey, o_totalprice AS t, "
            "SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS s FROM orders "
            f"JOIN lineitem ON l_orderkey = o_orderkey WHERE o_orderkey >= {b} "
            f"AND o_shippriority = {q.STAGE_BILLED} GROUP BY o_orderkey, o_totalprice) x "
            "WHERE ABS(t - s) > 0.03"
        ),
        "stock changes that are not the quantities issued plus replenishments": (
            f"SELECT COUNT(*) FROM {q.SNAP_PARTSUPP} s JOIN partsupp p ON "
            "p.ps_partkey = s.ps_partkey AND p.ps_suppkey = s.ps_suppkey "
            "LEFT JOIN (SELECT l_partkey, l_suppkey, SUM(l_quantity) AS q FROM lineitem "
            f"WHERE l_orderkey >= {b} AND l_linestatus = 'F' GROUP BY l_partkey, l_suppkey) i "
            "ON i.l_partkey = s.ps_partkey AND i.l_suppkey = s.ps_suppkey "
            "LEFT JOIN (SELECT r_partkey, r_suppkey, SUM(r_quantity) AS q "
            f"FROM {q.REPLENISH_TABLE} GROUP BY r_partkey, r_suppkey) r "
            "ON r.r_partkey = s.ps_partkey AND r.r_suppkey = s.ps_suppkey "
            "WHERE p.ps_availqty <> s.ps_availqty - COALESCE(i.q, 0) + COALESCE(r.q, 0) "
            "OR p.ps_availqty < 0"
        ),
        "customer balances not changed by exactly the invoiced amounts": (
            f"SELECT COUNT(*) FROM {q.SNAP_CUSTOMER} s "
            "JOIN customer c ON c.c_custkey = s.c_custkey "
            "LEFT JOIN (SELECT o_custkey, SUM(o_totalprice) AS t FROM orders "
            f"WHERE o_orderkey >= {b} AND o_shippriority = {q.STAGE_BILLED} GROUP BY o_custkey) i "
            "ON i.o_custkey = s.c_custkey "
            # a cent is exact in DECIMAL; SQLite keeps DECIMAL as REAL, hence the half cent
            "WHERE ABS(c.c_acctbal - (s.c_acctbal - COALESCE(i.t, 0))) > 0.005"
        ),
    }
    problems: list[str] = []
    with _session(engine) as s:
        for rule, sql in rules.items():
            n = int(_scalar(s, sql) or 0)
            if n:
                problems.append(f"{rule}: {n}")
        outside = _fingerprints(s, b, outside_only=True)
    for table, before in p.outside.items():
        if outside.get(table) != before:
            problems.append(f"rows of {table} outside the workload's own rows changed")
    return problems


@dataclass
class CleanupReport:
    orders_deleted: int
    lines_deleted: int
    touched_equal: bool
    fingerprints_equal: bool


#: How often cleanup's undo is tried before its error stands (see :func:`cleanup`).
_CLEANUP_ATTEMPTS = 3


def _undo(s: Session, b: int) -> None:
    """The workload's orders and lines deleted and the snapshot restored, in one transaction."""
    transaction(
        s,
        [
            f"DELETE FROM lineitem WHERE l_orderkey >= {b}",
            f"DELETE FROM orders WHERE o_orderkey >= {b}",
            f"UPDATE customer SET c_acctbal = (SELECT s.c_acctbal FROM {q.SNAP_CUSTOMER} s "
            "WHERE s.c_custkey = customer.c_custkey) "
            f"WHERE c_custkey IN (SELECT c_custkey FROM {q.SNAP_CUSTOMER})",
            f"UPDATE partsupp SET ps_availqty = (SELECT s.ps_availqty FROM {q.SNAP_PARTSUPP} s "
            "WHERE s.ps_partkey = partsupp.ps_partkey AND s.ps_suppkey = partsupp.ps_suppkey) "
            f"WHERE ps_partkey IN (SELECT ps_partkey FROM {q.SNAP_PARTSUPP})",
        ],
    )


def cleanup(engine: Engine, *, force: bool = False) -> CleanupReport:
    """Delete the workload's orders, restore the snapshot, prove the TPC-H tables are what
    they were before prepare, and drop the workload's tables. When they differ (something
    else changed them, e.g. a TPC-H refresh pair), the o2c tables are kept unless ``force``."""
    p = require_prepared(engine)
    b = p.key_base
    with _session(engine) as s:
        orders = int(_scalar(s, f"SELECT COUNT(*) FROM orders WHERE o_orderkey >= {b}"))
        lines = int(_scalar(s, f"SELECT COUNT(*) FROM lineitem WHERE l_orderkey >= {b}"))
        for attempt in range(_CLEANUP_ATTEMPTS):
            try:
                _undo(s, b)
                break
            except ConnectionLostError:
                raise
            except DriversError:
                # rolled back whole: a killed driver's last commit (its server session ends
                # after its client) can land between the two DELETEs, whose orders then
                # still have lines; once it has landed, the undo goes through
                if attempt + 1 == _CLEANUP_ATTEMPTS:
                    raise
                time.sleep(1.0)
        touched = touched_hash(s)
        full = _fingerprints(s, b, outside_only=False)
        report = CleanupReport(orders, lines, touched == p.touched, full == p.fingerprint)
        if not (report.touched_equal and report.fingerprints_equal) and not force:
            raise DriversError(
                "cleanup restored the snapshot, but the TPC-H tables differ from before prepare "
                "(changed by something other than o2c, e.g. TPC-H refresh functions); the o2c "
                "tables are kept: inspect them, then `dbbench o2c cleanup --force`"
            )
        for table in q.OWN_TABLES:
            s.execute(f"DROP TABLE IF EXISTS {table}")
    engine.write_state({STATE_WORKLOAD_KEYS_FROM: ""})
    return report
