"""Property: on generated small designs, the template-based (counted) figures equal those
read off a fully expanded cluster graph with plain graph algorithms."""

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
    racks = NVL72 + NVL36 + DGX.replace("TRAYS", str(trays))
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
    m = analyze(rd).metrics()
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
