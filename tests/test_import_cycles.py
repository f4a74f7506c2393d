"""No import circle between the product's modules (issue 33).

The import graph of ``dbbench.*`` (every import, also those inside functions) is built with
grimp, the library import-linter uses; a circle is a strongly connected set of modules. None
is allowed; :data:`KNOWN` may list one not broken yet (it may only shrink: a circle not in it
fails, and so does a listed one that is gone).
"""

from __future__ import annotations

import grimp

#: Import circles not broken yet, each as the sorted modules of one strongly connected set
#: (empty: a circle must be broken, not listed).
KNOWN: set[tuple[str, ...]] = set()


def _cycles() -> set[tuple[str, ...]]:
    graph = grimp.build_graph("dbbench", include_external_packages=False)
    edges = {m: graph.find_modules_directly_imported_by(m) for m in graph.modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: set[tuple[str, ...]] = set()
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    top = stack.pop()
                    on.discard(top)
                    members.append(top)
                    if top == node:
                        break
                if len(members) > 1:
                    found.add(tuple(sorted(members)))
    return found


def test_no_import_circle_between_product_modules() -> None:
    cycles = _cycles()
    in_reports = [c for c in cycles if any(m.startswith("dbbench.reports") for m in c)]
    assert not in_reports, f"import circles touching reports/: {in_reports}"
    new = cycles - KNOWN
    assert not new, f"import circles not in KNOWN: {sorted(new)}"
    gone = KNOWN - cycles
    assert not gone, f"circles broken: remove them from KNOWN: {sorted(gone)}"
