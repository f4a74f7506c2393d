"""Cost sheets: the priced configuration in TOML, its 3-year total and the priced resources.

The format is documented in docs/cost-sheet.md. Money is parsed straight into
:class:`~decimal.Decimal` (``tomllib`` with ``parse_float=Decimal``) so that a 3-year total
adds up to the cent the way a price sheet does. Every error names the file, the line and the
field, because a price sheet is edited by hand and "invalid cost sheet" helps nobody.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from pathlib import Path
from typing import Any, Protocol

from dbbench.reports import inputs
from dbbench.reports.errors import ReportsError
from dbbench.reports.tpch.metrics import decimal_gb_to_gib

CATEGORIES: tuple[str, ...] = (
    "hardware",
    "storage",
    "software",
    "maintenance",
    "services",
    "network",
    "cloud",
    "other",
)
_TOP_KEYS = {"currency", "availability_date", "system", "notes", "priced", "item"}
_ITEM_KEYS = {
    "category",
    "description",
    "unit_price",
    "quantity",
    "discount",
    "maintenance_3y",
    "capacity_gb",
    "durable",
    "part_number",
    "source",
}
_PRICED_KEYS = {"storage_gib", "memory_gib", "cpus"}  # cpus: priced vCPUs / hardware threads
CENT = Decimal("0.01")


class _Costs(Protocol):
    @property
    def purchase(self) -> Decimal: ...

    @property
    def maintenance_3y(self) -> Decimal: ...


class _ThreeYearTotal:
    """A cost's 3-year total: the purchase (less discounts) plus 3-year maintenance."""

    @property
    def total(self: _Costs) -> Decimal:
        return self.purchase + self.maintenance_3y


@dataclass(frozen=True)
class LineItem(_ThreeYearTotal):
    """One priced line: ``unit_price * quantity - discount + maintenance_3y``."""

    category: str
    description: str
    unit_price: Decimal
    quantity: int
    discount: Decimal = Decimal(0)
    maintenance_3y: Decimal = Decimal(0)
    capacity_gb: Decimal | None = None  # decimal GB per unit of durable storage
    durable: bool = True
    part_number: str = ""
    source: str = ""

    @property
    def purchase(self) -> Decimal:
        return self.unit_price * self.quantity - self.discount


@dataclass(frozen=True)
class CategoryTotal(_ThreeYearTotal):
    category: str
    purchase: Decimal
    maintenance_3y: Decimal


@dataclass(frozen=True)
class CostSheet:
    """A parsed, checked cost sheet."""

    currency: str
    availability_date: date
    items: list[LineItem]
    system: str = ""
    notes: str = ""
    storage_gib_override: Decimal | None = None
    memory_gib: Decimal | None = None
    name: str = ""
    cpus: int | None = None  # ``[priced] cpus``: the vCPUs (hardware threads) priced

    @property
    def total_3y(self) -> Decimal:
        """The 3-year cost of ownership: purchase less discounts plus 3-year maintenance."""
        return sum((i.total for i in self.items), Decimal(0)).quantize(CENT)

    def totals_by_category(self) -> list[CategoryTotal]:
        """Per-category subtotals, in the documented category order."""
        out = []
        for cat in CATEGORIES:
            lines = [i for i in self.items if i.category == cat]
            if lines:
                purchase = sum((i.purchase for i in lines), Decimal(0))
                maint = sum((i.maintenance_3y for i in lines), Decimal(0))
                out.append(CategoryTotal(cat, purchase.quantize(CENT), maint.quantize(CENT)))
        return out

    @property
    def storage_gib(self) -> Decimal | None:
        """Priced durable storage: the explicit ``[priced] storage_gib`` or the disks' sum."""
        if self.storage_gib_override is not None:
            return self.storage_gib_override
        disks = [i for i in self.items if i.capacity_gb is not None and i.durable]
        if not disks:
            return None
        return sum((decimal_gb_to_gib(i.capacity_gb or 0) * i.quantity for i in disks), Decimal(0))

    @property
    def disks(self) -> int:
        """Number of priced durable storage devices (the landscape's "Disks" column)."""
        return sum(i.quantity for i in self.items if i.capacity_gb is not None and i.durable)


class _Where:
    """Maps fields of a TOML document back to line numbers for error messages."""

    def __init__(self, text: str, name: str) -> None:
        self.name = name
        self.lines = text.splitlines()
        self.item_starts = [
            n for n, line in enumerate(self.lines, 1) if re.match(r"\s*\[\[\s*item\s*\]\]", line)
        ]
        first_table = next(
            (n for n, line in enumerate(self.lines, 1) if re.match(r"\s*\[", line)),
            len(self.lines) + 1,
        )
        self.top_end = first_table

    def _find(self, key: str, start: int, end: int) -> int | None:
        pattern = re.compile(rf"\s*{re.escape(key)}\s*=")
        for n in range(start, min(end, len(self.lines) + 1)):
            if pattern.match(self.lines[n - 1]):
                return n
        return None

    def top(self, key: str, problem: str) -> ReportsError:
        line = self._find(key, 1, self.top_end) or 1
        return ReportsError(f"cost sheet {self.name}:{line}: field '{key}': {problem}")

    def priced(self, key: str, problem: str) -> ReportsError:
        start = next(
            (n for n, line in enumerate(self.lines, 1) if re.match(r"\s*\[\s*priced\s*\]", line)),
            1,
        )
        line = self._find(key, start, len(self.lines) + 1) or start
        return ReportsError(f"cost sheet {self.name}:{line}: field 'priced.{key}': {problem}")

    def item(self, index: int, key: str, problem: str) -> ReportsError:
        if index < len(self.item_starts):
            start = self.item_starts[index]
            end = self.item_starts[index + 1] if index + 1 < len(self.item_starts) else None
            line = self._find(key, start, end or len(self.lines) + 1) or start
            where = f"{self.name}:{line}"
        else:
            where = self.name
        return ReportsError(f"cost sheet {where}: item {index + 1}, field '{key}': {problem}")


def load_cost_sheet(path: Path) -> CostSheet:
    """Read and check a cost sheet file."""
    text = inputs.read_toml_text(path, "cost sheet", ReportsError)
    return parse_cost_sheet(text, path.name)


def parse_cost_sheet(text: str, name: str = "<cost sheet>") -> CostSheet:
    """Parse and check the TOML text of a cost sheet (see docs/cost-sheet.md)."""
    try:
        data = inputs.parse_toml(text, f"cost sheet {name}", parse_float=Decimal)
    except inputs.InputError as exc:
        raise ReportsError(str(exc)) from None
    where = _Where(text, name)
    for key in data:
        if key not in _TOP_KEYS:
            raise where.top(key, f"unknown field (known: {', '.join(sorted(_TOP_KEYS))})")
    currency = _currency(data, where)
    available = _availability(data, where)
    raw_items = data.get("item", [])
    if not isinstance(raw_items, list) or not raw_items:
        raise where.top("item", "a cost sheet needs at least one [[item]]")
    items = [_item(raw, n, where) for n, raw in enumerate(raw_items)]
    storage, memory, cpus = _priced(data.get("priced", {}), where)
    sheet = CostSheet(
        currency=currency,
        availability_date=available,
        items=items,
        system=_text(data, "system", where),
        notes=_text(data, "notes", where),
        storage_gib_override=storage,
        memory_gib=memory,
        name=name,
        cpus=cpus,
    )
    try:  # totals computed now, not after a whole benchmark run
        total = sheet.total_3y
        sheet.totals_by_category()
    except ArithmeticError:
        total = Decimal("Infinity")
    if not total.is_finite() or total >= MAX_TOTAL:
        raise ReportsError(f"cost sheet {name}: the prices add up to more than {MAX_TOTAL:,}")
    return sheet


#: A priced configuration beyond this total is a typo (and past it decimals overflow).
MAX_TOTAL = Decimal(10) ** 15


def _text(data: dict[str, Any], key: str, where: _Where) -> str:
    value = data.get(key, "")
    if not isinstance(value, str):
        raise where.top(key, f"must be text, got {value!r}")
    return value


def _currency(data: dict[str, Any], where: _Where) -> str:
    if "currency" not in data:
        raise where.top("currency", 'is missing (an ISO 4217 code such as "USD")')
    currency = data["currency"]
    if not isinstance(currency, str) or currency not in ISO_4217:
        raise where.top("currency", f'must be an ISO 4217 code such as "USD", got {currency!r}')
    return currency


#: The active ISO 4217 currency codes (the list maintained by SIX), without the codes for
#: precious metals, bond units, SDRs and testing, which price no system.
_ISO_4217_CODES = (
    "AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV "
    "BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUC CUP CVE "
    "CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD "
    "HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD "
    "KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV "
    "MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB "
    "RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT "
    "TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAF "
    "XCD XCG XOF XPF YER ZAR ZMW ZWG ZWL"
)
ISO_4217 = frozenset(_ISO_4217_CODES.split())


def _availability(data: dict[str, Any], where: _Where) -> date:
    if "availability_date" not in data:
        raise where.top("availability_date", "is missing (a TOML date such as 2026-01-31)")
    value = data["availability_date"]
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        try:
            return date.fromisoformat(value)
        except ValueError:
            pass
    raise where.top("availability_date", f"must be a date such as 2026-01-31, got {value!r}")


def _money(
    raw: dict[str, Any], key: str, n: int, where: _Where, default: Decimal | None
) -> Decimal:
    if key not in raw:
        if default is None:
            raise where.item(n, key, "is missing")
        return default
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise where.item(n, key, f"must be a number, got {value!r}")
    amount = Decimal(value)
    if not amount.is_finite():
        raise where.item(n, key, f"must be a finite number, got {value}")
    if amount < 0:
        raise where.item(n, key, f"must not be negative, got {value}")
    return amount


def _quantity(raw: dict[str, Any], n: int, where: _Where) -> int:
    if "quantity" not in raw:
        raise where.item(n, "quantity", "is missing")
    value = raw["quantity"]
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        raise where.item(n, "quantity", f"must be a whole number, got {value!r}")
    if isinstance(value, Decimal) and (not value.is_finite() or value != value.to_integral_value()):
        raise where.item(n, "quantity", f"must be a whole number, got {value}")
    if value < 1:
        raise where.item(n, "quantity", f"must be at least 1, got {value}")
    return int(value)


def _item(raw: Any, n: int, where: _Where) -> LineItem:
    if not isinstance(raw, dict):
        raise where.item(n, "item", "must be a table ([[item]])")
    for key in raw:
        if key not in _ITEM_KEYS:
            raise where.item(n, key, f"unknown field (known: {', '.join(sorted(_ITEM_KEYS))})")
    category = raw.get("category")
    if category not in CATEGORIES:
        raise where.item(n, "category", f"must be one of {', '.join(CATEGORIES)}, got {category!r}")
    description = raw.get("description")
    if not isinstance(description, str) or not description.strip():
        raise where.item(n, "description", "is missing or empty")
    item = LineItem(
        category=category,
        description=description,
        unit_price=_money(raw, "unit_price", n, where, None),
        quantity=_quantity(raw, n, where),
        discount=_money(raw, "discount", n, where, Decimal(0)),
        maintenance_3y=_money(raw, "maintenance_3y", n, where, Decimal(0)),
        capacity_gb=_money(raw, "capacity_gb", n, where, None) if "capacity_gb" in raw else None,
        durable=bool(raw.get("durable", True)),
        part_number=str(raw.get("part_number", "")),
        source=str(raw.get("source", "")),
    )
    if item.discount > item.unit_price * item.quantity:
        raise where.item(n, "discount", f"exceeds the line's price ({item.discount})")
    return item


def _priced(raw: Any, where: _Where) -> tuple[Decimal | None, Decimal | None, int | None]:
    if not isinstance(raw, dict):
        raise where.top("priced", "must be a table ([priced])")
    values: dict[str, Decimal | None] = {"storage_gib": None, "memory_gib": None, "cpus": None}
    for key, value in raw.items():
        if key not in _PRICED_KEYS:
            raise where.priced(key, f"unknown field (known: {', '.join(sorted(_PRICED_KEYS))})")
        if isinstance(value, bool) or not isinstance(value, int | Decimal) or value < 0:
            raise where.priced(key, f"must be a non-negative number, got {value!r}")
        if key == "cpus" and not isinstance(value, int):
            raise where.priced(key, f"must be a whole number of CPUs, got {value!r}")
        values[key] = Decimal(value)
    cpus = values["cpus"]
    return values["storage_gib"], values["memory_gib"], None if cpus is None else int(cpus)
