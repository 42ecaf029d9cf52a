"""The names of each layout's rack instances, counted from the pod tree, never listed.

A drawing or table that names the racks built from a layout shows the first few, the
last and how many (``su0/r0, su0/r1, su0/r2, su0/r3, ..., su999/r7 (8,000 racks)``).
:func:`infra.analysis.layout.identity.rack_instances` lists every rack, which an export
needs but a report does not: at 10^9 GPUs that is 14 million records (26-55 s, 3-7 GB),
and a 30-level pod DAG holds 537 million racks. Here the names come from the pod tree's
multiplicities: a walk in build order that takes a sub-pod only while some layout in it
still wants names, so the cost follows the names asked for times the pod depth, never
the rack count. The names are those of ``rack_instances`` (the one naming rule; a test
compares the two on every shipped design and on generated halls and DAGs).

Examples
--------
>>> from infra.models.resolve import load_design
>>> n = rack_names(load_design("designs/dgx_h100_superpod.yaml"), first=2)
>>> n["dgx4"].count, n["dgx4"].first, n["dgx4"].last
(31, ('superpod0/su_first0/r0', 'superpod0/su_first0/r1'), 'superpod0/su2/r7')
>>> n["dgx3"]
RackNames(layout='dgx3', count=1, first=('superpod0/su_first0/r7',), last='superpod0/su_first0/r7')
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from infra.models.resolve import ResolvedDesign

FIRST = 8  # names kept from the front: a drawing lists up to 8 in full, else 4 and the last


@dataclass(frozen=True)
class RackNames:
    """The instances of one rack layout: how many, the first few and the last."""

    layout: str
    count: int  # racks of this layout in the design
    first: tuple[str, ...]  # the first min(count, FIRST) paths, in build order
    last: str  # the last path in build order

    def shown(self, full: int = FIRST, head: int = 4) -> str:
        """``a, b, c`` up to ``full`` names, else ``first head, ..., last (N racks)``.

        >>> RackNames("x", 9, tuple(f"r{i}" for i in range(8)), "r8").shown()
        'r0, r1, r2, r3, ..., r8 (9 racks)'
        """
        if not self.first:  # not named here (network racks): the count only
            return f"{self.count:,} rack{'' if self.count == 1 else 's'}"
        if self.count <= min(full, len(self.first)):
            return ", ".join(self.first[:self.count])
        return f"{', '.join(self.first[:head])}, ..., {self.last} ({self.count:,} racks)"


def rack_names(rd: ResolvedDesign, first: int = FIRST) -> dict[str, RackNames]:
    """Layout -> its :class:`RackNames`, for every layout the design builds (file order
    of ``rd.layouts``). Cost: about ``layouts x first x pod depth`` steps."""
    pods = rd.design.pods
    inside: dict[str, Counter] = {}  # pod or layout -> racks of each layout in one instance

    def racks_in(name: str) -> Counter:  # iterative: pod DAGs may be deep
        stack = [name]
        while stack:
            x = stack[-1]
            if x in inside:
                stack.pop()
                continue
            if x not in pods:
                inside[x] = Counter({x: 1})
                stack.pop()
                continue
            todo = [s for s in pods[x].pods if s not in inside]
            if todo:
                stack += todo
                continue
            c: Counter = Counter()
            for s, n in pods[x].pods.items():
                if n:
                    for lay, k in inside[s].items():
                        c[lay] += n * k
            for r, n in pods[x].racks.items():
                if n:
                    c[r] += n
            inside[x] = c
            stack.pop()
        return inside[name]

    build = [(b, n) for b, n in rd.design.build.items() if n]
    for b, _ in build:
        racks_in(b)
    heads = _Walk(rd, inside, first, reverse=False).run(build)
    tails = _Walk(rd, inside, 1, reverse=True).run(build)
    total = Counter(rd.rack_counts)
    return {lay: RackNames(lay, total[lay], tuple(heads[lay]), tails[lay][0])
            for lay in rd.layouts if total[lay] and lay in heads}


class _Walk:
    """Names in build order (or its reverse), ``want`` per layout, pruning every sub-pod
    in which no layout still wants one."""

    def __init__(self, rd: ResolvedDesign, inside: dict[str, Counter], want: int,
                 reverse: bool) -> None:
        self.pods = rd.design.pods
        self.inside, self.want, self.reverse = inside, want, reverse
        self.got: dict[str, list[str]] = {}
        self.done: set[str] = set()  # pods/layouts with nothing left to name (only grows)

    def wanted(self, name: str) -> bool:
        if name in self.done:
            return False
        if any(len(self.got.get(lay, ())) < self.want for lay in self.inside[name]):
            return True
        self.done.add(name)
        return False

    def take(self, lay: str, path: str) -> None:
        names = self.got.setdefault(lay, [])
        if len(names) < self.want:
            names.append(path)

    def order(self, n: int):
        return range(n - 1, -1, -1) if self.reverse else range(n)

    def seq(self, items):
        return reversed(items) if self.reverse else items

    def run(self, build: list[tuple[str, int]]) -> dict[str, list[str]]:
        tops = sum(n for b, n in build if b not in self.pods)  # racks built directly: r<k>
        top = tops if self.reverse else 0
        for name, n in self.seq(build):
            if name not in self.pods:
                if self.reverse:
                    top -= n
                for i in self.order(n):
                    if not self.wanted(name):
                        break
                    self.take(name, f"r{top + i}")
                if not self.reverse:
                    top += n
                continue
            for i in self.order(n):
                if not self.wanted(name):
                    break
                self.pod(name, f"{name}{i}")
        return self.got

    def pod(self, name: str, path: str) -> None:
        """Names inside one instance of pod ``name`` at ``path``: sub-pods first (file
        order, each repeated), then racks ``r<k>`` (file order), or the reverse."""
        p = self.pods[name]
        parts = [("pods", p.pods), ("racks", p.racks)]
        total = sum(p.racks.values())
        for kind, entries in self.seq(parts):
            if kind == "racks":
                k = total if self.reverse else 0
                for r, n in self.seq(list(entries.items())):
                    if self.reverse:
                        k -= n
                    for j in self.order(n):
                        if len(self.got.get(r, ())) >= self.want:
                            break
                        self.take(r, f"{path}/r{k + j}")
                    if not self.reverse:
                        k += n
                continue
            for sub, n in self.seq(list(entries.items())):
                for i in self.order(n):
                    if not self.wanted(sub):
                        break
                    if sub in self.pods:
                        self.pod(sub, f"{path}/{sub}{i}")
                    else:
                        self.take(sub, f"{path}/{sub}{i}")
