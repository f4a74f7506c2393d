"""The distributions dbgen draws from, written as Python data (TPC-H dists.dss contents).

A weighted pick is one draw ``j = U(1, total)`` on a stream, choosing the first entry whose
cumulative weight reaches ``j``; :class:`Dist` keeps the cumulative weights so that a whole
column of draws is resolved with one ``searchsorted``. The values are the reference file's,
not the specification's word lists: the two differ (``whithout``, ``Tiresias``, weights), and
the reference decides byte identity.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import product

import numpy as np
import numpy.typing as npt


@dataclass(frozen=True)
class Dist:
    """One weighted list: values in file order with their (raw) weights."""

    name: str
    values: tuple[str, ...]
    weights: tuple[int, ...]

    @cached_property
    def cumulative(self) -> npt.NDArray[np.int64]:
        return np.cumsum(np.asarray(self.weights, dtype=np.int64))

    @property
    def total(self) -> int:
        return int(self.cumulative[-1])

    @cached_property
    def lookup(self) -> npt.NDArray[np.int64] | None:
        """``lookup[j]`` = index picked by draw j (positive weights only; totals are small)."""
        if min(self.weights) <= 0:
            return None
        return np.concatenate([[0], np.repeat(np.arange(len(self.values)), self.weights)])

    def pick(self, j: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
        """Indexes of the entries chosen by draws ``j`` in ``[1, total]``."""
        if self.lookup is not None:
            return self.lookup[j]
        return np.searchsorted(self.cumulative, j, side="left").astype(np.int64)


def _uniform(name: str, values: list[str]) -> Dist:
    return Dist(name, tuple(values), (1,) * len(values))


def _weighted(name: str, pairs: list[tuple[str, int]]) -> Dist:
    return Dist(name, tuple(v for v, _ in pairs), tuple(w for _, w in pairs))


def _ones(words: str) -> list[tuple[str, int]]:
    return [(w, 1) for w in words.split(",")]


P_CNTR = _uniform(
    "p_cntr",
    [
        f"{a} {b}"
        for a, b in product(
            ["SM", "LG", "MED", "JUMBO", "WRAP"],
            ["CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"],
        )
    ],
)
P_TYPES = _uniform(
    "p_types",
    [
        f"{a} {b} {c}"
        for a, b, c in product(
            ["STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"],
            ["ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"],
            ["TIN", "NICKEL", "BRASS", "STEEL", "COPPER"],
        )
    ],
)
MSEGMNT = _uniform("msegmnt", ["AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"])
O_OPRIO = _uniform("o_oprio", ["1-URGENT", "2-HIGH", "3-MEDIUM", "4-NOT SPECIFIED", "5-LOW"])
INSTRUCT = _uniform("instruct", ["DELIVER IN PERSON", "COLLECT COD", "TAKE BACK RETURN", "NONE"])
SMODE = _uniform("smode", ["REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP"])
RFLAG = _uniform("rflag", ["R", "A"])
REGIONS = _uniform("regions", ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"])

#: Nation names in key order with weights whose running sum is the nation's region key.
NATIONS = _weighted(
    "nations",
    [
        ("ALGERIA", 0),
        ("ARGENTINA", 1),
        ("BRAZIL", 0),
        ("CANADA", 0),
        ("EGYPT", 3),
        ("ETHIOPIA", -4),
        ("FRANCE", 3),
        ("GERMANY", 0),
        ("INDIA", -1),
        ("INDONESIA", 0),
        ("IRAN", 2),
        ("IRAQ", 0),
        ("JAPAN", -2),
        ("JORDAN", 2),
        ("KENYA", -4),
        ("MOROCCO", 0),
        ("MOZAMBIQUE", 0),
        ("PERU", 1),
        ("CHINA", 1),
        ("ROMANIA", 1),
        ("SAUDI ARABIA", 1),
        ("VIETNAM", -2),
        ("RUSSIA", 1),
        ("UNITED KINGDOM", 0),
        ("UNITED STATES", -2),
    ],
)

COLORS = _uniform(
    "colors",
    [
        "almond",
        "antique",
        "aquamarine",
        "azure",
        "beige",
        "bisque",
        "black",
        "blanched",
        "blue",
        "blush",
        "brown",
        "burlywood",
        "burnished",
        "chartreuse",
        "chiffon",
        "chocolate",
        "coral",
        "cornflower",
        "cornsilk",
        "cream",
        "cyan",
        "dark",
        "deep",
        "dim",
        "dodger",
        "drab",
        "firebrick",
        "floral",
        "forest",
        "frosted",
        "gainsboro",
        "ghost",
        "goldenrod",
        "green",
        "grey",
        "honeydew",
        "hot",
        "indian",
        "ivory",
        "khaki",
        "lace",
        "lavender",
        "lawn",
        "lemon",
        "light",
        "lime",
        "linen",
        "magenta",
        "maroon",
        "medium",
        "metallic",
        "midnight",
        "mint",
        "misty",
        "moccasin",
        "navajo",
        "navy",
        "olive",
        "orange",
        "orchid",
        "pale",
        "papaya",
        "peach",
        "peru",
        "pink",
        "plum",
        "powder",
        "puff",
        "purple",
        "red",
        "rose",
        "rosy",
        "royal",
        "saddle",
        "salmon",
        "sandy",
        "seashell",
        "sienna",
        "sky",
        "slate",
        "smoke",
        "snow",
        "spring",
        "steel",
        "tan",
        "thistle",
        "tomato",
        "turquoise",
        "violet",
        "wheat",
        "white",
        "yellow",
    ],
)

# Text grammar (weights matter: they shape the 300 MiB text pool).
GRAMMAR = _weighted(
    "grammar",
    [("N V T", 3), ("N V P T", 3), ("N V N T", 3), ("N P V N T", 1), ("N P V P T", 1)],
)
NP = _weighted("np", [("N", 10), ("J N", 20), ("J, J N", 10), ("D J N", 50)])
VP = _weighted("vp", [("V", 30), ("X V", 1), ("V D", 40), ("X V D", 1)])
NOUNS = _weighted(
    "nouns",
    [
        ("packages", 40),
        ("requests", 40),
        ("accounts", 40),
        ("deposits", 40),
        ("foxes", 20),
        ("ideas", 20),
        ("theodolites", 20),
        ("pinto beans", 20),
        ("instructions", 20),
        ("dependencies", 10),
        ("excuses", 10),
        ("platelets", 10),
        ("asymptotes", 10),
        ("courts", 5),
        ("dolphins", 5),
        *_ones(
            "multipliers,sauternes,warthogs,frets,dinos,attainments,somas,Tiresias,patterns,"
            "forges,braids,frays,warhorses,dugouts,notornis,epitaphs,pearls,tithes,waters,"
            "orbits,gifts,sheaves,depths,sentiments,decoys,realms,pains,grouches,escapades,"
            "hockey players"
        ),
    ],
)
VERBS = _weighted(
    "verbs",
    [
        ("sleep", 20),
        ("wake", 20),
        ("are", 20),
        ("cajole", 20),
        ("haggle", 20),
        ("nag", 10),
        ("use", 10),
        ("boost", 10),
        ("affix", 5),
        ("detect", 5),
        ("integrate", 5),
        *_ones(
            "maintain,nod,was,lose,sublate,solve,thrash,promise,engage,hinder,print,x-ray,"
            "breach,eat,grow,impress,mold,poach,serve,run,dazzle,snooze,doze,unwind,kindle,"
            "play,hang,believe,doubt"
        ),
    ],
)
ADJECTIVES = _weighted(
    "adjectives",
    [
        ("special", 20),
        ("pending", 20),
        ("unusual", 20),
        ("express", 20),
        *_ones(
            "furious,sly,careful,blithe,quick,fluffy,slow,quiet,ruthless,thin,close,dogged,"
            "daring,brave,stealthy,permanent,enticing,idle,busy"
        ),
        ("regular", 50),
        ("final", 40),
        ("ironic", 40),
        ("even", 30),
        ("bold", 20),
        ("silent", 10),
    ],
)
ADVERBS = _weighted(
    "adverbs",
    [
        ("sometimes", 1),
        ("always", 1),
        ("never", 1),
        ("furiously", 50),
        ("slyly", 50),
        ("carefully", 50),
        ("blithely", 40),
        ("quickly", 30),
        ("fluffily", 20),
        *_ones(
            "slowly,quietly,ruthlessly,thinly,closely,doggedly,daringly,bravely,stealthily,"
            "permanently,enticingly,idly,busily,regularly,finally,ironically,evenly,boldly,"
            "silently"
        ),
    ],
)
PREPOSITIONS = _weighted(
    "prepositions",
    [
        ("about", 50),
        ("above", 50),
        ("according to", 50),
        ("across", 50),
        ("after", 50),
        ("against", 40),
        ("along", 40),
        ("alongside of", 30),
        ("among", 30),
        ("around", 20),
        ("at", 10),
        *_ones(
            "atop,before,behind,beneath,beside,besides,between,beyond,by,despite,during,"
            "except,for,from,in place of,inside,instead of,into,near,of,on,outside,over,past,"
            "since,through,throughout,to,toward,under,until,up,upon,whithout,with,within"
        ),
    ],
)
AUXILLARIES = _weighted(
    "auxillaries",
    _ones(
        "do,may,might,shall,will,would,can,could,should,ought to,must,will have to,"
        "shall have to,could have to,should have to,must have to,need to,try to"
    ),
)
TERMINATORS = _weighted(
    "terminators", [(".", 50), (";", 1), (":", 1), ("?", 1), ("!", 1), ("--", 1)]
)


def region_keys_of_nations() -> list[int]:
    """n_regionkey per nation: the running sum of the ``nations`` weights."""
    return [int(v) for v in NATIONS.cumulative]
