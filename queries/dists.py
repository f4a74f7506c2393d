"""The few ``dists.dss`` lists qgen picks from (tpch.md §5.3), and qgen's weighted pick.

A private copy, because ``queries`` must not depend on the data generator. Weights are kept
as dists.dss has them, since a pick draws U(1, total weight) and maps it by cumulative weight.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

from dbbench.queries.rng import Stream


@dataclass(frozen=True)
class Dist:
    """A list with its raw weights; the pick uses their cumulative sums as qgen does.

    The fields are named as in ``dbgen.dists.Dist`` (``name`` is the dists.dss list name);
    ``tests/queries/test_queries_dists.py`` checks that every list here equals dbgen's.
    """

    name: str
    values: tuple[str, ...]
    weights: tuple[int, ...]

    @classmethod
    def uniform(cls, name: str, values: tuple[str, ...], weight: int = 1) -> Dist:
        return cls(name, values, (weight,) * len(values))

    def pick(self, stream: Stream) -> int:
        """``pick_str``: j = U(1, total); the first entry whose cumulative weight is >= j."""
        j = stream.unif_int(1, sum(self.weights))
        cumulative = 0
        for index, weight in enumerate(self.weights):
            cumulative += weight
            if cumulative >= j:
                return index
        raise AssertionError("unreachable: j never exceeds the total weight")


REGIONS = Dist.uniform("regions", ("AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"))

#: nations2: the 25 nation names in key order, weight 1 each (qgen's copy of ``nations``).
NATIONS2 = Dist.uniform(
    "nations2",
    (
        "ALGERIA", "ARGENTINA", "BRAZIL", "CANADA", "EGYPT", "ETHIOPIA", "FRANCE", "GERMANY",
        "INDIA", "INDONESIA", "IRAN", "IRAQ", "JAPAN", "JORDAN", "KENYA", "MOROCCO",
        "MOZAMBIQUE", "PERU", "CHINA", "ROMANIA", "SAUDI ARABIA", "VIETNAM", "RUSSIA",
        "UNITED KINGDOM", "UNITED STATES",
    )
)  # fmt: skip

#: The region key of each nation: the cumulative weights of dbgen's ``nations`` list.
NATION_REGION: tuple[int, ...] = (
    0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1,
)  # fmt: skip

P_TYPES = Dist.uniform(
    "p_types",
    tuple(
        " ".join(words)
        for words in product(
            ("STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"),
            ("ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"),
            ("TIN", "NICKEL", "BRASS", "STEEL", "COPPER"),
        )
    ),
)

P_CNTR = Dist.uniform(
    "p_cntr",
    tuple(
        " ".join(words)
        for words in product(
            ("SM", "LG", "MED", "JUMBO", "WRAP"),
            ("CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"),
        )
    ),
)

MSEGMNT = Dist.uniform("msegmnt", ("AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"))

SMODE = Dist.uniform("smode", ("REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP"))

#: The 92 P_NAME words, in dists.dss order.
COLORS = Dist.uniform(
    "colors",
    (
        "almond", "antique", "aquamarine", "azure", "beige", "bisque", "black", "blanched", "blue",
        "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon", "chocolate", "coral",
        "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim", "dodger", "drab",
        "firebrick", "floral", "forest", "frosted", "gainsboro", "ghost", "goldenrod", "green",
        "grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace", "lavender", "lawn", "lemon",
        "light", "lime", "linen", "magenta", "maroon", "medium", "metallic", "midnight", "mint",
        "misty", "moccasin", "navajo", "navy", "olive", "orange", "orchid", "pale", "papaya",
        "peach", "peru", "pink", "plum", "powder", "puff", "purple", "red", "rose", "rosy", "royal",
        "saddle", "salmon", "sandy", "seashell", "sienna", "sky", "slate", "smoke", "snow",
        "spring", "steel", "tan", "thistle", "tomato", "turquoise", "violet", "wheat", "white",
        "yellow",
    )
)  # fmt: skip

Q13A = Dist.uniform("Q13a", ("special", "pending", "unusual", "express"), weight=20)
Q13B = Dist.uniform("Q13b", ("packages", "requests", "accounts", "deposits"), weight=40)


def permute(values: list[int], stream: Stream) -> None:
    """qgen's in-place ``permute``: for i = 0..n-1 swap a[i] with a[U(i, n-1)]."""
    n = len(values)
    for i in range(n):
        r = stream.unif_int(i, n - 1)
        values[i], values[r] = values[r], values[i]
