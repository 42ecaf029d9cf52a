"""Property: on generated small designs of every scale-up shape (NVL72 in-rack, NVL36x2
back-to-back, HGX/DGX tray, two-tier GH200-style domains over chassis racks and
switch-only L2 racks, NVL576-style two-tier domains over NVL36 racks, switchless MI300X
Infinity Fabric and Gaudi 3 RoCE meshes), the template-based (counted) figures equal those read off a fully expanded
cluster graph with plain graph algorithms.

Bisection, as documented in :mod:`infra.topology.scaleup`: the smallest per-direction
capacity of a cut splitting a domain's GPUs into two equal halves, switch chips free to
sit on either side. On the expanded graph it is a networkx ``minimum_cut`` between a
source tied to one half and a sink tied to the other; the minimum is taken over every
split for domains of up to 8 GPUs, and otherwise over the topology-aligned halves
(first / second half of racks and trays), interleaved halves and seeded random
halves (any of them below the counted figure fails the test)."""

from __future__ import annotations

import networkx as nx
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from infra.analysis.summary import analyze
from infra.models.resolve import load_design
from infra.topology.expanded import expanded_cluster_graph

NVL72 = """\
  nvl72:
    type: nvidia-gb200-nvl72-rack
    contents:
      - {type: nvidia-mgx-33kw-power-shelf, count: 8}
      - {type: nvidia-gb200-compute-tray, count: 18}
      - {type: nvidia-nvlink5-switch-tray, count: 9}
"""
NVL36 = """\
  nvl36:
    type: aws-nvl36-rack
    contents:
      - {type: aws-gb200-compute-tray, count: 9}
      - {type: nvidia-nvlink5-switch-tray, count: 9}
"""
DGX = """\
  dgx:
    type: generic-42u-air-rack
    contents:
      - {type: nvidia-dgx-h100, count: TRAYS}
"""


GH200 = """\
  gh:
    type: generic-42u-air-rack
    contents:
      - {type: nvidia-gh200-compute-tray, count: 8}
      - {type: nvidia-nvlink4-switch, count: 3}
  l2:
    type: generic-42u-air-rack
    contents:
      - {type: nvidia-nvlink4-switch, count: L2TRAYS}
"""
NVL36L2 = """\
  nvl36l1:
    type: nvidia-gb200-nvl72-rack
    contents:
      - {type: nvidia-gb200-compute-tray, count: 9}
      - {type: nvidia-nvlink5-switch-tray, count: 9}
  nvl5l2:
    type: nvidia-gb200-nvl72-rack
    contents:
      - {type: nvidia-nvlink5-switch-tray, count: L5TRAYS}
"""
GAUDI3 = """\
  g3:
    type: generic-42u-air-rack
    contents:
      - {type: intel-gaudi3-8x-oam-server, count: G3TRAYS}
"""
MI300X = """\
  mi:
    type: generic-42u-air-rack
    contents:
      - {type: amd-mi300x-platform-server, count: MITRAYS}
"""


@st.composite
def designs(draw):
    nvl72_racks = draw(st.integers(0, 2))
    nvl36_pairs = draw(st.integers(0, 2))
    dgx_racks = draw(st.integers(0, 3))
    if nvl72_racks + nvl36_pairs + dgx_racks == 0:
        dgx_racks = 1
    trays = draw(st.integers(1, 4))
    repeat = draw(st.integers(1, 3))
    loose = draw(st.integers(0, 2))  # DGX racks listed directly under build
    gh_domains = draw(st.integers(0, 2))  # two-tier domains
    gh_chassis = draw(st.sampled_from([2, 4]))  # chassis racks per domain
    l2_trays = draw(st.integers(1, 3))  # per switch-only rack
    mi_racks = draw(st.integers(0, 2))
    nvl576_domains = draw(st.integers(0, 1))  # NVL576-style: 2 NVL36 racks under L2
    racks = (NVL72 + NVL36 + DGX.replace("TRAYS", str(trays))
             + GH200.replace("L2TRAYS", str(l2_trays))
             + NVL36L2.replace("L5TRAYS", str(draw(st.integers(1, 3))))
             + GAUDI3.replace("G3TRAYS", str(draw(st.integers(1, 3))))
             + MI300X.replace("MITRAYS", str(draw(st.integers(1, 4)))))
    pod = ["  p:", "    racks: {" + ", ".join(
        f"{k}: {v}" for k, v in (("nvl72", nvl72_racks), ("dgx", dgx_racks)) if v) + "}"]
    if nvl72_racks:
        pod += ["    cooling: [{type: aws-irhx}]"]
    subs = "p: 1"
    if nvl36_pairs:
        pod += ["  us:", f"    racks: {{nvl36: {2 * nvl36_pairs}}}",
                "    scale_up: {racks_per_domain: 2, cross_rack_cable: nvlink5-cross-rack-copper}",
                "    cooling: [{type: aws-irhx}]"]
        subs += ", us: 1"
    if gh_domains:
        pod += ["  ghp:", f"    racks: {{gh: {gh_chassis * gh_domains}, l2: {gh_domains}}}",
                f"    scale_up: {{racks_per_domain: {gh_chassis}}}"]
        subs += ", ghp: 1"
    if mi_racks:
        pod += ["  mip:", f"    racks: {{mi: {mi_racks}}}"]
        subs += ", mip: 1"
    g3_racks = draw(st.integers(0, 2))
    if g3_racks:
        pod += ["  g3p:", f"    racks: {{g3: {g3_racks}}}"]
        subs += ", g3p: 1"
    if nvl576_domains:
        pod += ["  n576:", "    racks: {nvl36l1: 2, nvl5l2: 1}",
                "    scale_up: {racks_per_domain: 2}", "    cooling: [{type: aws-irhx}]"]
        subs += ", n576: 1"
    if not nvl72_racks and not dgx_racks:
        pod[1] = "    racks: {}"
    text = ("name: generated\nracks:\n" + racks + "pods:\n" + "\n".join(pod) + "\n"
            + f"  top:\n    pods: {{{subs}}}\n  rep:\n    pods: {{top: {repeat}}}\n"
            + "build:\n  rep: 1\n"
            + (f"  dgx: {loose}\n" if loose else ""))
    return text


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=designs())
def test_counted_figures_equal_expanded_graph(text, tmp_path_factory, catalog):
    path = tmp_path_factory.mktemp("gen") / "d.yaml"
    path.write_text(text)
    rd = load_design(path, catalog)
    a = analyze(rd)
    m = a.metrics()
    g = expanded_cluster_graph(rd)
    gpus = [n for n, k in g.nodes(data="kind") if k == "gpu"]
    assert len(gpus) == m["gpus"]
    nv = nx.Graph()
    nv.add_nodes_from(gpus)
    nv.add_edges_from((u, v) for u, v, d in g.edges(data=True) if d.get("kind") == "nvlink")
    comps = [c for c in nx.connected_components(nv) if any(n in c for n in gpus)]
    sizes = [sum(1 for n in c if g.nodes[n]["kind"] == "gpu") for c in comps]
    assert len(comps) == m["scale_up_domains"]
    assert max(sizes) == m["scale_up_domain_gpus"]
    per_gpu = [sum(d["gbyte_s"] for _, _, d in g.edges(n, data=True) if d.get("kind") == "nvlink")
               for n in gpus]
    assert min(per_gpu) == m["scale_up_gbyte_s_per_gpu"]
    trays = sum(1 for _, k in g.nodes(data="kind") if k == "compute_tray")
    assert trays == m["compute_trays"]
    _check_memory_and_tiers(rd, g, comps, a)
    _check_bisection(rd, g)


_BISECTIONS: dict = {}  # expanded graph (without instance prefixes) -> its bisection


def _check_bisection(rd, g):
    """Per-domain bisection (multiset over domains), counted vs min cuts on the expanded
    graph (see the module docstring)."""
    from collections import Counter

    from infra.topology.scaleup import scale_up_domains

    nv = nx.Graph()
    nv.add_nodes_from(n for n, k in g.nodes(data="kind") if k == "gpu")
    nv.add_edges_from((u, v, {"capacity": d["gbyte_s"]}) for u, v, d in g.edges(data=True)
                      if d.get("kind") == "nvlink")
    seen: Counter = Counter()
    for comp in nx.connected_components(nv):
        sub = nv.subgraph(comp)
        gpus = sorted(n for n in comp if g.nodes[n]["kind"] == "gpu")
        # instances of one template differ only by their prefix: cut each graph once
        key = (len(gpus), frozenset((*sorted((u.split("/", 1)[1], v.split("/", 1)[1])),
                                     d["capacity"]) for u, v, d in sub.edges(data=True)))
        if key not in _BISECTIONS:
            _BISECTIONS[key] = expanded_bisection(sub, gpus)
        seen[round(_BISECTIONS[key], 3)] += 1
    want: Counter = Counter()
    for d in scale_up_domains(rd):
        want[round(d.bisection_gbyte_s, 3)] += d.count
    assert seen == want


def expanded_bisection(sub: nx.Graph, gpus: list[str]) -> float:
    """Smallest min cut between two equal halves of ``gpus`` in ``sub`` (edge attribute
    ``capacity``, GB/s per direction); 0 for a single GPU."""
    import itertools
    import random

    n = len(gpus)
    if n < 2:
        return 0.0
    if n <= 8:  # every split, each once (gpus[0] on side A)
        splits = [list(a) for a in itertools.combinations(gpus, n // 2) if a[0] == gpus[0]]
    else:
        rng = random.Random(n)
        splits = [gpus[:n // 2], gpus[::2]] + [rng.sample(gpus, n // 2) for _ in range(6)]
    return min(_cut(sub, a, [x for x in gpus if x not in set(a)]) for a in splits)


def _cut(sub: nx.Graph, a: list[str], b: list[str]) -> float:
    h = nx.Graph(sub)
    h.add_edges_from(("SRC", x) for x in a)  # no capacity attribute: infinite
    h.add_edges_from((x, "SNK") for x in b)
    return nx.minimum_cut_value(h, "SRC", "SNK")


def _check_memory_and_tiers(rd, g, comps, a):
    """Per-domain combined memory (multiset over domains) and L1 oversubscription, read
    off the expanded graph: GPU nodes carry their tray, tray nodes their slug."""
    from collections import Counter

    from infra.models.expand import expand_tray

    cat, m = rd.catalog, a.metrics()
    seen: Counter = Counter()
    for comp in comps:
        gpus = [n for n in comp if g.nodes[n]["kind"] == "gpu"]
        trays = {n.split("/", 1)[0] + "/" + g.nodes[n]["tray"] for n in gpus}
        mem = []
        for t in trays:  # a server's configured DIMMs, else its CPUs' own memory
            tray = cat.get(g.nodes[t]["slug"])
            mem += ([tray.cpu_memory_gb] if tray.cpu_memory_gb is not None else
                    [i.part.memory_gb for i in expand_tray(tray, cat).of_kind("cpu")])
        hbm = sum(cat.get(g.nodes[n]["slug"]).hbm_gbyte for n in gpus)  # 10^9 bytes
        seen[None if None in mem else round((hbm + sum(mem)) / 1000, 4)] += 1
    want: Counter = Counter()
    for row in a.tables()["scale_up_domains"]:
        want[row["combined_memory_tbyte"]] += row["count"]
    assert seen == want
    ratios = []
    for c, d in g.nodes(data=True):
        if d["kind"] == "nvlink_switch_chip" and d.get("tier") == 1:
            down = up = 0
            for _, v, e in g.edges(c, data=True):
                if e.get("kind") == "nvlink":
                    if g.nodes[v]["kind"] == "gpu":
                        down += e["links"]
                    else:
                        up += e["links"]
            if up:
                ratios.append(down / up)
    assert (round(max(ratios), 3) if ratios else None) == m["scale_up_max_oversubscription_ratio"]
