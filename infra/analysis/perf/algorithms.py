"""Bandwidth and latency of each NCCL/RCCL algorithm and protocol for one placed job.

The shape is NCCL's ``tuning.cc`` (``ncclTopoTuneModel`` and ``ncclTopoGetAlgoTime``):
every (algorithm, protocol) pair the library would consider gets a bus bandwidth and a
latency, ``time = latency + bytes / algbw``, and the fastest wins. Bandwidths come from
the design's tiers, not from NCCL's per-channel speed search: per GPU, the scale-up
bandwidth ``U`` (links x the library's effective per-link rate) and the network share
``L`` (the GPU's NIC share after PCIe contention x the NIC efficiency, divided by the
oversubscription of the fabric tiers the job crosses). ``p`` = GPUs per node (domain),
``N`` = nodes, ``n`` = ranks. Bus bandwidth follows nccl-tests: ``busbw = algbw x F``
with ``F = 2(n-1)/n`` (all-reduce), ``(n-1)/n`` (all-gather, reduce-scatter,
all-to-all), 1 (broadcast).

All-reduce, Simple protocol (the large-message bandwidth):
- Ring: ``min(U, p x L)``: every channel's ring crosses each node boundary once, so the
  node's NICs together carry the ring (``p x L``); inside the node each GPU's links do.
  A ring or torus domain (TPU ICI, Trainium NeuronLink) runs rings along every
  dimension: ``U`` = the links in use x the per-link rate; NVLS never applies.
- Tree (N > 1): double binary tree between nodes, a chain inside: each node sends and
  receives ``2(N-1)/N`` of the buffer over its NICs; each GPU of the chain sends the
  buffer up (reduce) and down (broadcast), twice over its links:
  ``algbw = min(U / 2, p x L / (2(N-1)/N)) x tree_efficiency``.
- NVLS (one node, NVSwitch multicast): ``busbw = nvls_busbw_per_line x links x line rate``.
- NVLSTree (N > 1): NVLS inside each node, a tree between them:
  ``algbw = min(NVLS busbw / (2(p-1)/p), p x L / (2(N-1)/N) x tree_efficiency)``.
- CollNet (SHARP switches on every tier; only when named in ``algorithms``, as NCCL runs
  it only with ``NCCL_COLLNET_ENABLE=1``): each node's NICs send and receive the buffer
  once, reduced in the switches; inside a reduce-scatter/all-gather:
  ``algbw = min(U / (2(p-1)/p), p x L) x collnet_efficiency``.
All-gather / reduce-scatter / broadcast: Ring as above; PAT with one GPU per node
(``L x pat_efficiency``). All-to-all: point-to-point; each GPU sends ``(p-1)/n`` of the
buffer over its links and ``(n-p)/n`` over one NIC (NCCL cannot aggregate NICs for
all-to-all, nccl-tests #267): ``time = max(both)``.
Protocols: LL ``min(ll_max, busbw / 2)`` (Tree: ``/ 3.8``), LL128 ``x ll128_efficiency``
(Tree across nodes ``x 120/128``), Simple as above; NVLS, NVLSTree and CollNet are
Simple only. Latencies are NCCL's formulas with the catalog's ``baseLat``/``hwLat``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from infra.analysis.perf.inputs import DesignTiers, Placement
from infra.models.perf_parts import CollectiveModel

OPS = ("all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast")
PROTOCOLS = ("LL", "LL128", "Simple")
ALGORITHMS = ("Ring", "Tree", "NVLS", "NVLSTree", "CollNet", "PAT", "P2P")
_LAT_KEY = {"Ring": "ring", "Tree": "tree", "NVLS": "nvls", "NVLSTree": "nvls_tree",
            "CollNet": "collnet", "PAT": "pat", "P2P": "ring"}


@dataclass(frozen=True)
class Candidate:
    algorithm: str
    protocol: str
    busbw_gbyte_s: float  # bandwidth term, before latency
    latency_us: float
    bottleneck: str


@dataclass(frozen=True)
class JobBandwidth:
    """Per-GPU bandwidths of one placed job, with the label of each."""

    up: float
    up_label: str
    net: float  # per GPU, GB/s
    net_label: str
    nic: float  # one NIC interface, GB/s (all-to-all)
    nic_label: str


def bus_factor(op: str, n: int) -> float:
    """nccl-tests' busbw / algbw for ``op`` on ``n`` ranks."""
    if n <= 1:
        return 1.0
    if op == "all_reduce":
        return 2 * (n - 1) / n
    if op == "broadcast":
        return 1.0
    return (n - 1) / n


def job_bandwidth(t: DesignTiers, m: CollectiveModel, pl: Placement) -> JobBandwidth:
    """Per-GPU scale-up and network bandwidths (GB/s) for ``pl`` on ``t``."""
    if t.scale_up_topology == "mesh":
        links = min(t.links_per_gpu, pl.ppn - 1)
        up_label = f"mesh links per GPU ({links} x {m.scale_up_link_gbyte_s:g} GB/s)"
    elif t.scale_up_topology in ("ring", "torus"):
        # a ring all-reduce over the torus: one ring per direction of every dimension, so
        # every link in use carries it (the domain's links in use, not a slice's)
        links = t.links_per_gpu
        up_label = (f"{t.scale_up_topology} links per chip ({links} x "
                    f"{m.scale_up_link_gbyte_s:g} GB/s)")
    else:
        links = t.links_per_gpu
        up_label = f"NVLink per GPU ({links} x {m.scale_up_link_gbyte_s:g} GB/s)"
    up = links * m.scale_up_link_gbyte_s
    over = pl.oversubscription
    net = t.net_gbit_s_effective / 8 * m.net_efficiency / over
    label = f"NIC per GPU ({t.net_gbit_s_effective:g} Gb/s x {m.net_efficiency:g}"
    if t.net_gbit_s_effective < t.net_gbit_s_nominal - 1e-9:
        label += f", PCIe-limited from {t.net_gbit_s_nominal:g}"
    label += ")"
    if over > 1:
        below = "leaf" if pl.top_tier == "spine" else "leaf and spine"
        label = f"{below} uplinks {over:g}:1 ({t.net_gbit_s_effective / over:g} Gb/s per GPU)"
    nic = min(t.nic_gbit_s or t.net_gbit_s_effective, t.net_gbit_s_effective) / 8 \
        * m.net_efficiency / over
    nic_label = f"one NIC per GPU ({min(t.nic_gbit_s or 1e18, t.net_gbit_s_effective):g} Gb/s"
    if t.net_gbit_s_effective < t.net_gbit_s_nominal - 1e-9:
        nic_label += f", PCIe-limited from {t.net_gbit_s_nominal:g}"
    nic_label += ")"
    if over > 1:
        nic_label = label
    return JobBandwidth(up, up_label, net, label, nic, nic_label)


def _lat(m: CollectiveModel, table: str, algo: str, proto: int) -> float:
    row = getattr(getattr(m, table), _LAT_KEY[algo])
    return row[proto] if row else 0.0


def candidates(op: str, t: DesignTiers, m: CollectiveModel, pl: Placement,
               bw: JobBandwidth, algorithms: frozenset[str] | None = None) -> list[Candidate]:
    """Every (algorithm, protocol) the library would consider for ``op`` on ``pl``."""
    n, p, big_n = pl.gpus, pl.ppn, pl.nodes
    if n <= 1:
        return [Candidate("Ring", "Simple", math.inf, 0.0, "one GPU: nothing to move")]
    out: list[Candidate] = []
    sim: dict[str, tuple[float, str]] = {}  # algorithm -> (Simple busbw, bottleneck)
    ring = _min((bw.up, bw.up_label) if p > 1 else None, (p * bw.net, bw.net_label) if big_n > 1 else None)
    if op == "all_to_all":
        return [_p2p(m, pl, bw)]
    sim["Ring"] = ring
    nvls_ok = t.scale_up_topology == "switched" and m.nvls_busbw_per_line and p > 2
    if op == "all_reduce":
        f = bus_factor(op, n)
        tree_net = p * bw.net / (2 * (big_n - 1) / big_n) if big_n > 1 else None
        if big_n > 1:
            a, why = _min((bw.up / 2, bw.up_label) if p > 1 else None, (tree_net, bw.net_label))
            sim["Tree"] = (a * f, why)  # efficiency per protocol below
        nvls_bus = (m.nvls_busbw_per_line or 0) * t.up_line_gbyte_s
        nvls_label = (f"NVLS in NVSwitch ({m.nvls_busbw_per_line or 0:g} x "
                      f"{t.up_line_gbyte_s:g} GB/s)")
        if nvls_ok and big_n == 1:
            sim["NVLS"] = (nvls_bus, nvls_label)
        if nvls_ok and big_n > 1:
            a, why = _min((nvls_bus / (2 * (p - 1) / p), nvls_label),
                          (tree_net * m.tree_efficiency, bw.net_label))
            sim["NVLSTree"] = (a * f, why)
        # CollNet only when asked for (NCCL runs it only with NCCL_COLLNET_ENABLE=1 and the
        # SHARP plugin), on fabrics whose every tier reduces in the network
        if big_n > 1 and algorithms is not None and "CollNet" in algorithms and t.tiers \
                and all(x.in_network_reduction for x in t.tiers):
            a, why = _min((bw.up / (2 * (p - 1) / p), bw.up_label) if p > 1 else None,
                          (p * bw.net, bw.net_label + " into SHARP"))
            sim["CollNet"] = (a * m.collnet_efficiency * f, why)
    elif op in ("all_gather", "reduce_scatter") and p == 1 and big_n > 1:
        sim["PAT"] = (bw.net * m.pat_efficiency, bw.net_label)
    for algo, (busbw, why) in sim.items():
        if algorithms is not None and algo not in algorithms:
            continue
        protos = ("LL", "LL128", "Simple") if algo in ("Ring", "Tree") else ("Simple",)
        for proto in protos:
            out.append(Candidate(algo, proto, _proto_bw(m, algo, proto, busbw, big_n),
                                 _latency(op, m, algo, PROTOCOLS.index(proto), pl), why))
    return out


def _min(*options: tuple[float, str] | None) -> tuple[float, str]:
    opts = [o for o in options if o is not None]
    return min(opts, key=lambda o: o[0]) if opts else (math.inf, "none")


def _proto_bw(m: CollectiveModel, algo: str, proto: str, simple: float, nodes: int) -> float:
    col = 0 if nodes == 1 else 1 if nodes == 2 else 2
    if algo == "Tree":
        if proto == "LL":
            return min(simple / 3.8, m.ll_max_gbyte_s[col])
        if proto == "LL128":
            return simple * (7 / 9 if nodes == 1 else 120 / 128)
        return simple * m.tree_efficiency
    if proto == "LL":
        return min(simple * 0.5, m.ll_max_gbyte_s[col])
    if proto == "LL128":
        return simple * m.ll128_efficiency
    return simple


def _latency(op: str, m: CollectiveModel, algo: str, proto: int, pl: Placement) -> float:
    """NCCL's latency formulas (microseconds), per algorithm and protocol."""
    n, p, big_n = pl.gpus, pl.ppn, pl.nodes
    base = _lat(m, "base_latency_us", algo, proto)
    intra = _lat(m, "nvlink_latency_us", algo, proto)
    inter = _lat(m, "net_latency_us", algo, proto)
    log_n = math.log2(big_n) if big_n > 1 else 0.0
    if algo == "Ring":
        steps = 2 * (n - 1) if op == "all_reduce" else n - 1
        n_inter = (2 * (big_n - 1) if op == "all_reduce" else big_n - 1)
        overhead = m.net_overhead_us * (3 if proto == 2 else 1)
        hop = max(intra, overhead) if big_n > 1 else intra
        lat = base + (steps - n_inter) * hop + n_inter * inter
        if op == "all_reduce" and big_n > 1 and proto == 2:
            lat *= 1.4  # NCCL: the ring's plateau effect across nodes (Ampere and later)
        return lat
    if algo == "Tree":
        return base + 2 * ((p - 1) * intra + log_n * inter)
    if algo == "NVLS":
        return intra + (inter if big_n > 1 else 0.0)
    if algo == "NVLSTree":
        return base + intra + 2 * log_n * inter
    if algo == "CollNet":
        return base + 2 * (min(1, p - 1) * intra + (p - 1) * 0.4) + inter
    if algo == "PAT":
        return base + log_n * inter / 3.5 + n * 2.8
    return base + (inter if big_n > 1 else intra)


def _p2p(m: CollectiveModel, pl: Placement, bw: JobBandwidth) -> Candidate:
    """All-to-all: per GPU, (p-1)/n of the buffer over its links, (n-p)/n over one NIC,
    where p is the GPUs of the job in its domain; the GPUs of a partly filled last domain
    send the most over the network and finish last (75 GPUs as 72 + 3: each of the 3
    sends 72/75 of its buffer through its NIC)."""
    n, p = pl.gpus, pl.ppn
    last = n - (pl.nodes - 1) * p if pl.nodes > 1 else p  # GPUs in the last domain
    intra_share = (p - 1) / n
    inter_share = (n - min(p, max(1, last))) / n
    t_up = intra_share / bw.up if intra_share else 0.0
    t_net = inter_share / bw.nic if inter_share else 0.0
    why = bw.up_label if t_up >= t_net else bw.nic_label
    algbw = 1 / max(t_up, t_net)
    return Candidate("P2P", "Simple", algbw * bus_factor("all_to_all", n),
                     _latency("all_to_all", m, "P2P", 2, pl), why)


__all__ = ["ALGORITHMS", "Candidate", "JobBandwidth", "OPS", "PROTOCOLS", "bus_factor",
           "candidates", "job_bandwidth"]
