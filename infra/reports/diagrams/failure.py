"""Failure domain view: one component fails (``--highlight KIND``); what it takes down.

Red: the failed component (and NVLink edges it carried, dashed); salmon: units whose
GPUs are lost; yellow: GPUs that keep running with less bandwidth. The title carries
the cluster-wide figures of the blast-radius table.
"""

from __future__ import annotations

from infra.analysis.reliability.failure_view import failure_view, highlight_kinds
from infra.reports.diagrams import scaleup, tray
from infra.reports.diagrams.base import Diagram, file_stem
from infra.topology.views import domain_view

DEFAULT_ORDER = ("nvlink_backplane", "compute_tray")


def default_kind(analysis) -> str:
    kinds = highlight_kinds(analysis)
    return next((k for k in DEFAULT_ORDER if k in kinds), kinds[0])


def failure_diagram(analysis, highlight: str | None = None) -> Diagram:
    kind = highlight or default_kind(analysis)
    v = failure_view(analysis, kind)
    b = v.blast or {}
    title = (f"Failure: {b.get('component', kind)} ({b.get('count', '?')} in the cluster). "
             f"Lost {b.get('gpus_lost', 0)} GPUs, degraded {b.get('gpus_degraded', 0)}, "
             f"largest job still placeable {b.get('largest_placeable_job_gpus', '?')} GPUs. "
             f"{_note(v.note, str(b.get('component', kind)))}")
    name = file_stem(f"failure_{kind}")
    if v.scope == "tray":
        states = {n: "failed" for n in v.failed}
        states.update({n: "lost" for n in v.lost})
        states.update({n: "degraded" for n in v.degraded})
        extra = {n: f"keeps {v.kept_fraction[n]:.0%} of scale-out" for n in v.degraded}
        d = tray.tray_diagram(analysis, v.tray, states, title, extra)
        return Diagram(name, title, d.source.replace(f"graph {d.name}", f"graph {name}", 1))
    dom = v.domain
    view = domain_view(dom.graph)
    states: dict[str, str] = {}
    extra: dict[str, str] = {}
    for f in v.failed:
        for n in list(view) + [f]:
            if n == f or n.startswith(f + "."):
                states[n] = "failed"
            elif (f.startswith(n + ".") and n in view
                  and view.nodes[n].get("kind") != "rack"):  # a chip fails inside its tray
                states.setdefault(n, "failed")
                extra[n] = f"failed part: {f[len(n) + 1:]}"
    for unit, (lost, deg) in sorted(v.unit_status(scaleup.unit_of(dom)).items()):
        if states.get(unit) == "failed":
            continue
        gpus = view.nodes[unit].get("gpus", 1) if unit in view else 1
        states[unit] = "lost" if lost else "degraded"
        extra[unit] = f"{lost} of {gpus} GPUs lost" if lost else f"{deg} GPUs degraded"
    dead_via = {n for n in v.failed if view.nodes.get(n, {}).get("kind") == "nvlink_backplane"}
    dead_via |= {n for n, s in states.items() if s == "failed" and n in view}
    d = scaleup.domain_diagram(dom, states, title, extra, dead_via)
    return Diagram(name, title, d.source.replace(f"graph {d.name}", f"graph {name}", 1))


def _note(note: str, component: str) -> str:
    """The view's note without the component's name the title already gives.

    Examples
    --------
    >>> _note("one GPU; partitions left: [71]", "one GPU in su (1 x nvl72)")
    'Partitions left: [71]'
    """
    head, sep, rest = note.partition("; ")
    if sep and component.startswith(head):
        return rest[:1].upper() + rest[1:]
    return note
