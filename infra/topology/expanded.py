"""A fully expanded cluster graph: every pod, rack, tray and GPU as its own node.

Only for small designs (tests, exports): the analyses never build it. It walks the
design's ``build`` tree instance by instance, independently of the counted shapes in
:mod:`infra.models.resolve`, and wires each rack (or rack pair) the way
:mod:`infra.topology.scaleup` does, so tests can check that the template-based figures
equal those read off the expanded graph with plain graph algorithms.
"""

from __future__ import annotations

import networkx as nx

from infra.models.resolve import ResolvedDesign
from infra.topology.scaleup import ScaleUpDomain, scale_up_domains


def expanded_cluster_graph(rd: ResolvedDesign, max_gpus: int = 50_000) -> nx.Graph:
    """Materialise every GPU and NVLink edge of ``rd``.

    Raises
    ------
    ValueError
        If the design has more than ``max_gpus`` GPUs (use the counted analyses).
    """
    shapes = {d.name: d for d in scale_up_domains(rd)}
    g = nx.Graph()
    counter = {"gpus": 0}
    for name, count in rd.design.build.items():
        for i in range(count):
            _place(rd, g, name, f"{name}{i}", shapes, counter, max_gpus)
    return g


def _place(rd, g, name: str, prefix: str, shapes, counter, max_gpus: int) -> None:
    d = rd.design
    if name in d.racks:
        _racks(rd, g, [name], prefix, None, shapes, counter, max_gpus)
        return
    pod = d.pods[name]
    for sub, n in pod.pods.items():
        for i in range(n):
            _place(rd, g, sub, f"{prefix}.{sub}{i}", shapes, counter, max_gpus)
    if pod.scale_up and pod.scale_up.torus:  # one switchless ring / torus domain per pod
        key = " + ".join(f"{n} x {l}" for l, n in pod.racks.items())
        _add(g, shapes[f"{name} ({key})"].graph, f"{prefix}.dom0", counter, max_gpus)
        return
    rpd = pod.scale_up.racks_per_domain if pod.scale_up else 1
    switched = [r for r, n in pod.racks.items() for _ in range(n)
                if rd.layouts[r].count("nvlink_switch_tray") and rd.layouts[r].count("compute_tray")]
    # switch-only racks (tier 2) are dealt out evenly, one share per domain
    domains = len(switched) // rpd
    spine = [r for r, n in pod.racks.items() for _ in range(n // domains if domains else 0)
             if rd.layouts[r].count("nvlink_switch_tray") and not rd.layouts[r].count("compute_tray")]
    for j in range(0, len(switched), rpd):
        _racks(rd, g, switched[j:j + rpd] + spine, f"{prefix}.dom{j // rpd}", name, shapes,
               counter, max_gpus)
    plain = [r for r, n in pod.racks.items() for _ in range(n)
             if not rd.layouts[r].count("nvlink_switch_tray")]
    for j, r in enumerate(plain):
        _racks(rd, g, [r], f"{prefix}.rack{j}", name, shapes, counter, max_gpus)


def _racks(rd, g, layouts: list[str], prefix: str, pod, shapes, counter, max_gpus: int) -> None:
    if rd.layouts[layouts[0]].count("nvlink_switch_tray"):
        key = " + ".join(f"{n} x {l}" for l, n in sorted(_count(layouts).items()))
        dom: ScaleUpDomain = shapes[f"{pod} ({key})" if pod else key]
        _add(g, dom.graph, prefix, counter, max_gpus)
        return
    for lname in layouts:
        t = 0
        for item in rd.layouts[lname].of_kind("compute_tray"):
            dom = shapes[f"tray {item.part.slug}"]
            for _ in range(item.count):
                _add(g, dom.graph, f"{prefix}.t{t}", counter, max_gpus)
                t += 1


def _count(xs: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in xs:
        out[x] = out.get(x, 0) + 1
    return out


def _add(g, template: nx.Graph, prefix: str, counter, max_gpus: int) -> None:
    n = sum(1 for _, k in template.nodes(data="kind") if k == "gpu")
    counter["gpus"] += n
    if counter["gpus"] > max_gpus:
        raise ValueError(f"more than {max_gpus} GPUs: too large to expand")
    g.update(nx.relabel_nodes(template, lambda x: f"{prefix}/{x}"))
