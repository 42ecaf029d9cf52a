"""Work done once per distinct template gives what the straightforward per-layout,
per-unit computation gives (issue 17).

Each test below writes out the straightforward algorithm that a fast path replaced and
compares the two on a hall of distinct layouts (benchmarks/bench_hetero.py, 23 layouts,
of only 3 NVLink graphs) and on shipped designs.
"""

from __future__ import annotations

from collections import Counter

import pytest

from conftest import DESIGNS, write_hall
from infra.analysis.compute import gpu_cpu_counts, layout_compute, summarize_compute
from infra.analysis.layout.elevation import (_item_power, elevation_run_rows, elevation_rows,
                                             elevation_runs, rack_elevations, unit_positions)
from infra.analysis.layout.placement import network_elevations
from infra.analysis.power.envelopes import _row, _soft_parts, design_envelopes
from infra.analysis.power.it_power import design_power
from infra.analysis.summary import FORMAT_VERSION, _unit_rows, analyze_file
from infra.models.expand import expand_tray
from infra.models.resolve import load_design

SHIPPED = ["aws_nvl36x2", "dgx_gh200_256", "dgx_h100_superpod", "gaudi3_cluster",
           "mi355x_cluster", "hgx_h100_liquid_512"]


@pytest.fixture(scope="module")
def hall(tmp_path_factory):
    return write_hall(23, tmp_path_factory.mktemp("hall"))


def designs(hall):
    return [hall] + [DESIGNS / f"{n}.yaml" for n in SHIPPED]


def test_counts_and_compute_once_per_template(hall):
    for path in designs(hall):
        rd = load_design(path)
        # GPUs and CPUs counted instance by instance, as before
        gpus: Counter = Counter()
        cpus: Counter = Counter()
        for lname, racks in rd.rack_counts.items():
            for item in rd.layouts[lname].of_kind("compute_tray"):
                lay = expand_tray(item.part, rd.catalog)
                for inst in lay.of_kind("gpu"):
                    gpus[inst.part.slug] += racks * item.count
                for inst in lay.of_kind("cpu"):
                    cpus[inst.part.slug] += racks * item.count
        got = gpu_cpu_counts(rd)
        assert (list(got[0].items()), list(got[1].items())) == (
            list(gpus.items()), list(cpus.items())), path
        # one rack's figures, shared between layouts with the same compute trays, are
        # those computed for that layout alone (on a fresh design: no memo)
        fresh = load_design(path)
        for name, layout in rd.layouts.items():
            assert layout_compute(rd, layout) == summarize_compute(fresh, {name: 1}), (path, name)
    # the hall's 23 layouts hold fewer distinct compute-tray lists than layouts
    rd = load_design(hall)
    for layout in rd.layouts.values():
        layout_compute(rd, layout)
    assert len(rd.__dict__["_layout_compute"]) < len(rd.layouts)


def _elevation_rows_plain(rd, power) -> list[dict]:
    """The rack elevation as it was built before slots were shared: unit by unit."""
    rows = []
    for r in power.racks:
        layout = rd.layouts[r.layout]
        top = layout.rack.u_height
        for item in layout.items:
            h = float(getattr(item.part, "u_height", 0) or 0)
            w, liq, air = _item_power(item, rd)
            for _ in range(item.count):
                pos = None
                if h:
                    pos = int(round(top - h + 1))
                    top -= h
                rows.append({"layout": r.layout, "rack_type": layout.rack.slug, "racks": r.racks,
                             "position_u": pos, "height_u": h, "unit": item.part.slug,
                             "kind": item.part.kind, "role": item.role or "",
                             "power_w": None if w is None else round(w, 2),
                             "liquid_w": None if liq is None else round(liq, 2),
                             "air_w": None if air is None else round(air, 2)})
    return rows


def test_elevation_rows_equal_unit_by_unit_rows(hall):
    for path in designs(hall):
        rd = load_design(path)
        power = design_power(rd)
        els = rack_elevations(rd, power)
        got = elevation_rows(els)
        want = _elevation_rows_plain(rd, power)
        assert got == want, path
        assert [list(r) for r in got] == [list(r) for r in want]  # column order too
        # shared slots: a hall of 23 layouts makes far fewer slots than it mounts units
        if path == hall:
            assert len({id(s) for e in els for s in e.slots}) < len(got) / 3


def test_elevation_runs_built_from_slots_equal_runs_of_unit_rows(hall):
    for path in designs(hall):
        a = analyze_file(path)
        els = rack_elevations(a.rd, a.power) + network_elevations(a.rd)
        runs = elevation_run_rows(els)
        assert runs == elevation_runs(elevation_rows(els)), path
        assert [list(r) for r in runs] == [list(r) for r in elevation_runs(elevation_rows(els))]
        data = a.as_dict()
        assert data["format_version"] == FORMAT_VERSION == 2
        assert data["tables"]["rack_elevation"] == runs
        assert elevation_runs(runs) == runs  # the workbook groups format-2 rows as they are
        # every unit is in one run: positions read back from the runs are the units'
        back = [(r["layout"], r["top_position_u"] if r["top_position_u"] is None else
                 r["top_position_u"] - round(k * r["height_u"]))
                for r in runs for k in range(r["count"])]
        assert back == [(u["layout"], u["position_u"]) for u in elevation_rows(els)]


def test_unit_positions_and_unit_rows_equal_the_plain_ones(hall):
    for path in designs(hall):
        a = analyze_file(path)
        for layout in a.rd.layouts.values():
            top, plain = layout.rack.u_height, []
            for item in layout.items:
                h = float(getattr(item.part, "u_height", 0) or 0)
                for _ in range(item.count):
                    pos = None
                    if h:
                        pos = int(round(top - h + 1))
                        top -= h
                    plain.append((item, pos))
            got = unit_positions(layout)
            assert got == plain and got is not unit_positions(layout)  # a fresh list each time
        r = lambda x: None if x is None else round(x, 4)  # noqa: E731 - summary._r
        assert _unit_rows(a.power.racks) == [
            {"layout": rp.layout, "unit": u.slug, "kind": u.kind, "count_per_rack": n,
             "power_w_per_unit": r(u.power_w), "typical_w_per_unit": r(u.typical_w),
             "liquid_w_per_unit": r(u.liquid_w), "air_w_per_unit": r(u.air_w),
             "basis": u.basis, "unknown_power_parts": ", ".join(u.unknown)}
            for rp in a.power.racks for u, n in rp.units], path


def _envelopes_plain(rd, power):
    """design_envelopes as written before: soft parts per row, tray rows deduplicated by
    a scan of the list."""
    rows = []
    for rp in power.racks:
        rack = rd.layouts[rp.layout].rack
        for e in rack.envelopes:
            src = next(s for s in rack.sources if s.id == e.source)
            for fig, pub, comp in (("it_max", e.max_kw, rp.it_kw), ("liquid", e.liquid_kw, rp.liquid_kw),
                                   ("air", e.air_kw, rp.air_kw)):
                if pub:
                    rows.append(_row(f"rack:{rp.layout}", fig, e.label, comp, pub, src, [(rp, 1)]))
    return rows


def test_envelopes_equal_row_by_row(hall):
    for path in designs(hall):
        rd = load_design(path)
        power = design_power(rd)
        got = design_envelopes(rd, power)
        racks = [r for r in got if r.scope.startswith("rack:")]
        assert racks == _envelopes_plain(rd, power), path
        for r in racks:  # the memoised soft-part lists are each rack's own
            rp = next(p for p in power.racks if f"rack:{p.layout}" == r.scope)
            medium = r.figure if r.figure in ("liquid", "air") else None
            assert r.responsible == _soft_parts([(rp, 1)], medium)
        trays = [r for r in got if r.scope.startswith("tray:")]
        assert len(set(trays)) == len(trays)


def test_blast_and_bandwidth_memos_match_the_graphs(hall):
    a = analyze_file(hall)
    rd = a.rd
    per_tray = {t.slug: expand_tray(t, rd.catalog).count("gpu") for t in rd.tray_types()}
    for row in a.blast:
        if row.component_kind == "rack":  # a whole rack: its own GPUs, counted by hand
            layout = rd.layouts[row.component.split(" ")[0]]
            assert row.gpus_lost == sum(i.count * per_tray[i.part.slug]
                                        for i in layout.of_kind("compute_tray"))
    # bandwidth rows: each tray type's domain is the largest domain holding it
    for t in a.bandwidth.trays:
        holding = [d.gpus for d in a.bandwidth.domains
                   if any(x.get("slug") == t.tray for _, x in d.graph.nodes(data=True)
                          if x["kind"] == "compute_tray")]
        assert t.scale_up_domain_gpus == max(holding)


def test_blast_row_figures_worked_out_once_equal_row_by_row(hall, monkeypatch):
    """``_Ctx.add`` works a row's figures out once per (effect, domain figures, broken),
    and ``domain_rows`` a domain's cases once per (graph, count, ...); the plain per-row
    arithmetic and per-domain cases they replaced give the same rows."""
    from infra.analysis.reliability import blast_radius as br

    class Plain(br._Ctx):
        def domain_rows(self, dom):
            for kind, what, count, eff, broken, note in self._domain_cases(dom):
                self.add(kind, f"{what} in {dom.name}", count, dom, eff, broken, note)

        def add(self, kind, comp, count, dom, eff, broken, note="", gpu_flops=None):
            flops = gpu_flops if gpu_flops is not None else (self._flops(dom) if dom else 0.0)
            largest = max(max(eff.partitions, default=0), self.largest_elsewhere(dom, broken))
            self.rows.append(br.BlastRow(
                kind, comp, count, eff.lost, eff.degraded,
                None if eff.fraction is None else round(eff.fraction, 4), broken, largest,
                round(eff.lost * flops / self.total_flops, 6), note))

    # one layout in pods of 1 and 3 racks: domains of one NVLink graph, different counts
    mixed = hall.parent / "mixed_counts.yaml"
    mixed.write_text((DESIGNS / "gb200_nvl72.yaml").read_text().replace(
        "build:\n  nvl72: 1", "pods:\n  a: {racks: {nvl72: 1}}\n  b: {racks: {nvl72: 3}}\n"
        "build:\n  a: 1\n  b: 1"))
    for path in designs(hall) + [DESIGNS / "gb200_nvl72_576.yaml", mixed]:
        a = analyze_file(path)
        fast = br.blast_radius(a.rd, a.power, a.cooling, a.fabrics)
        with monkeypatch.context() as m:
            m.setattr(br, "_Ctx", Plain)
            plain = br.blast_radius(a.rd, a.power, a.cooling, a.fabrics)
        assert fast == plain and len(fast) > 5, path


def test_bom_summed_per_rack_type_equals_layout_by_layout(hall):
    """The BOM walks each (rack type, unit type) once; walking every layout's racks and
    units in turn, as before, gives the same rows."""
    from infra.analysis.cost import bom

    def plain(rd, cooling_units, fabrics):
        t = bom._Tree(rd)
        for lname, racks in rd.rack_counts.items():
            lay = rd.layouts[lname]
            rack = t.add(t.root, lay.rack, racks, "cluster", "facility")
            for item in lay.items:
                group = "facility" if item.part.kind in bom._FACILITY else "system"
                t.unit(rack, item.part, racks * item.count, lay.rack.slug, group)
        return t

    for path in designs(hall) + [DESIGNS / "dgx_b200_su.yaml", DESIGNS / "llama3_h100_16k.yaml"]:
        a = analyze_file(path)
        fast = bom._Tree(a.rd)
        bom._add_racks(fast, a.rd)
        assert fast.rows() == plain(a.rd, None, None).rows(), path
        assert a.bom == bom.bill_of_materials(a.rd, a.cooling.unit_counts(), a.fabrics)


def test_table_rows_from_memos_equal_plain_rows(hall):
    """power_by_part rows built once per unit object, and blast rows copied from their
    __dict__, equal the straightforward rows (one per layout, unit and part; asdict)."""
    from dataclasses import asdict

    from infra.analysis.summary import _flat_rows, _part_rows

    for path in designs(hall):
        a = analyze_file(path)
        rows: dict = {}
        for r in a.power.racks:
            for u, _n in r.units:
                for pp in u.parts:
                    row = {"unit": u.slug, "part": pp.slug, "count_per_unit": pp.count,
                           "max_w_each": pp.max_w, "typical_w_each": pp.typical_w,
                           "heat_to": pp.medium, "tag": pp.tag,
                           "counted": u.basis != "published system figure",
                           "bound_w_each": pp.bound_w}
                    rows.setdefault(tuple(row.values()), (row, set()))[1].add(r.layout)
        plain = [{**row, "layouts": len(ls)} for row, ls in rows.values()]
        assert _part_rows(a.power.racks) == plain, path
        flat = _flat_rows(a.blast)
        assert flat == [asdict(b) for b in a.blast]
        assert [list(r) for r in flat] == [list(asdict(b)) for b in a.blast]  # key order too


def test_domains_sharing_a_graph_equal_dataclasses_replace(hall):
    from dataclasses import replace

    from infra.topology.scaleup import _sharing, scale_up_domains

    doms = scale_up_domains(load_design(hall))
    assert len({id(d.graph) for d in doms}) < len(doms)  # graphs are shared
    for d in doms:
        changes = dict(name=d.name + "'", count=d.count + 1, layouts=d.layouts[::-1])
        got, want = _sharing(d, **changes), replace(d, **changes)
        assert got == want and got.graph is want.graph and got.tiers is want.tiers
        assert vars(got) == vars(want) and list(vars(got)) == list(vars(want))


def test_domain_failure_links_from_listed_edges_equal_edge_by_edge(hall):
    """domain_failure counts a GPU's live NVLink links from its NVLink edges listed once
    per graph; counting over every edge of the GPU with the full test gives the same
    lost and degraded GPUs."""
    from infra.analysis.reliability.blast_radius import domain_failure
    from infra.topology.scaleup import scale_up_domains

    checked = 0
    for path in designs(hall) + [DESIGNS / "gb200_nvl72_576.yaml"]:
        for dom in scale_up_domains(load_design(path)):
            if dom.tiered or dom.topology != "switched":
                continue
            g = dom.graph
            gpus = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "gpu")
            chips = sorted(n for n, d in g.nodes(data=True) if d["kind"] == "nvlink_switch_chip")
            for failed in ({gpus[0]}, {chips[0]}, {"r0.backplane"}, {"xrack"}):
                dead = {n for n in g if n in failed or n.startswith(tuple(f + "." for f in failed))}
                links = {n: sum(d["links"] for u, v, d in g.edges(n, data=True)
                                if d.get("kind") == "nvlink" and u not in dead and v not in dead
                                and d.get("via") not in dead)
                         for n in gpus if n not in dead}
                full = dom.links_per_gpu
                healthy = {n for n, k in links.items() if k == full}
                assert domain_failure(dom, failed, "full_bandwidth").lost == tuple(
                    n for n in gpus if n not in healthy)
                adaptive = domain_failure(dom, failed, "adaptive_bandwidth")
                assert adaptive.degraded == tuple(sorted(n for n, k in links.items()
                                                         if 0 < k < full))
                assert adaptive.kept == {n: k / full for n, k in links.items() if 0 < k < full}
                checked += 1
    assert checked > 10
