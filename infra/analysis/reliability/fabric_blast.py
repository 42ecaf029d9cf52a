"""Blast radius of fabric parts: ToR/leaf, spine, core switches, one optic or cable, a plane.

Assumptions
-----------
- A node's fabric ports are spread over the fabric's rails/ToRs so that the ports of
  one GPU land on different switches (dual-homing where a GPU has two ports).
- A GPU keeps ``(p - lost) / p`` of its injection bandwidth when it loses ``lost`` of its
  ``p`` fabric ports (0 when it had only one: it can still reach the fabric over NVLink
  through a peer's NIC, NCCL's PXN, which is not counted here).
- A spine (core) switch carries 1/S of the uplinks of every leaf (spine) it serves: the
  cross-leaf bandwidth of those GPUs drops to (S - 1)/S; nothing is lost. In two tiers
  a spine serves every leaf of its plane. In three tiers the spines form blocks (pods):
  a spine's ``d`` down ports go to ``d`` distinct leaves, so a block is ``d`` leaves
  with the spines they share, and one spine failure degrades only its block's GPUs by
  1/(spines per block); a core switch serves every block. A spine tier built per pod
  (``group``) has one block per pod instance.
- Headroom: the GPUs keep ``after / before`` of their bandwidth across the tier, each the
  least of the injection and every tier's uplink share below (``inj / (o_1 ... o_k)``),
  the failed tier's share cut to (S - 1)/S. An under-subscribed tier below (Meta's 1:2
  rack switches) can absorb a spine's loss entirely: then no GPU is degraded.
- A whole plane takes 1/planes of every GPU's ports.
No GPU is lost to a fabric fault: they are degraded. NVLink domains are untouched.
"""

from __future__ import annotations

from infra.analysis.reliability.effect import Effect
from infra.analysis.network.fabric import FabricResult


def spine_block(f: FabricResult) -> tuple[int, int]:
    """(leaves, spines) of one block of a three-tier plane.

    Examples
    --------
    DGX SuperPOD B200, 16 SU: 128 leaves and 128 spines of radix 64 per plane; a spine
    has 32 down ports, so blocks of 32 leaves and 128 / 4 = 32 spines.
    """
    leaves, spines = f.tree.tiers[0].switches, f.tree.tiers[1].switches
    blocks = f.blocks[1] if len(f.blocks) > 1 else 1
    if blocks > 1:  # built per pod: one block per pod instance
        return leaves // blocks, spines // blocks
    block_leaves = max(1, min(leaves, f.tree.tiers[1].down_ports))
    blocks = -(-leaves // block_leaves)
    return block_leaves, max(1, -(-spines // blocks))


def _kept(f: FabricResult, i: int, share: float, through: int | None = None) -> float:
    """Fraction of a GPU's bandwidth across tier ``through`` (default ``i``) kept when the
    links into tiers ``i`` to ``through`` keep ``share`` of their capacity (a failed spine
    takes its share of the links from the leaves and of those to the cores; see the
    module's headroom rule).

    >>> from types import SimpleNamespace as NS
    >>> f = NS(spec=NS(tiers=[NS(oversubscription=0.5), NS(oversubscription=7), None]))
    >>> _kept(f, 1, 12 / 13), round(_kept(f, 2, 12 / 13), 4)
    (1.0, 0.9231)
    >>> round(_kept(f, 1, 12 / 13, through=2), 4)  # Meta: a cluster switch, across pods
    0.9231
    """
    top = i if through is None else through
    caps, prod = [1.0], 1.0
    for t in f.spec.tiers[:top]:
        prod *= t.oversubscription
        caps.append(1.0 / prod)
    before = min(caps)
    for k in range(i, top + 1):
        caps[k] *= share
    return min(caps) / before


def fabric_blast(f: FabricResult) -> list[tuple[str, str, int, Effect, str]]:
    """(component_kind, component, count, effect, note) rows for one fabric."""
    rows = []
    ppg = f.ports_per_node / f.gpus_per_node  # fabric ports per GPU (all planes)
    gpus_per_port = max(1.0, 1 / ppg)
    kept_one_port = max(0.0, (ppg - 1) / ppg) if ppg >= 1 else 0.0
    first = f.tree.tiers[0]
    ports_on_leaf = first.down_links / first.switches if first.switches else 0
    leaf_gpus = min(f.gpus, round(ports_on_leaf * gpus_per_port))
    kind = "tor_switch" if f.spec.tiers[0].role == "tor" else "leaf_switch"
    t0 = f.tiers[0]
    first_role = "ToR" if kind == "tor_switch" else "leaf"  # the same switch may serve each tier
    rows.append((kind, f"{t0.switch} {first_role} ({f.name})", t0.switches,
                 Effect(0, leaf_gpus, kept_one_port, ()),
                 f"{ports_on_leaf:g} node ports per switch; each GPU on it loses one of its "
                 f"{ppg:g} fabric port(s)"))
    for i, role in ((1, "spine_switch"), (2, "core_switch")):
        if len(f.tiers) > i:
            t = f.tiers[i]
            per_plane = t.switches // f.planes
            gpus, whose = f.gpus // f.planes, "the plane's GPUs"
            if i == 1 and len(f.tiers) == 3:
                block_leaves, per_plane = spine_block(f)
                gpus = min(gpus, round(block_leaves * ports_on_leaf * gpus_per_port))
                whose = f"the GPUs of its block ({block_leaves} leaves)"
            share = (per_plane - 1) / per_plane if per_plane else 0.0
            frac = _kept(f, i, share)
            up = _kept(f, i, share, through=2) if i == 1 and len(f.tiers) == 3 else 1.0
            if frac >= 1.0 and up < 1.0:  # headroom within the block, not above it
                rows.append((role, f"{t.switch} {role.split('_')[0]} ({f.name})", t.switches,
                             Effect(0, gpus, up, ()),
                             f"uplink headroom absorbs it within the block; {whose} keep "
                             f"{up:.1%} of their bandwidth across the core tier (the spine "
                             f"carried {1}/{per_plane} of the block's core uplinks)"))
                continue
            if frac >= 1.0:
                rows.append((role, f"{t.switch} {role.split('_')[0]} ({f.name})", t.switches, Effect(0, 0, 1.0, ()),
                             f"uplink headroom below absorbs it: {whose} keep their bandwidth "
                             f"({per_plane - 1}/{per_plane} of the tier's links left)"))
                continue
            rows.append((role, f"{t.switch} {role.split('_')[0]} ({f.name})", t.switches,
                         Effect(0, gpus, frac, ()),
                         f"cross-leaf bandwidth of {whose} drops to "
                         f"{per_plane - 1}/{per_plane}"
                         + ("" if abs(frac - (per_plane - 1) / per_plane) < 1e-9
                            else f" of the tier's links ({frac:.1%} of their bandwidth kept)")))
    if t0.lower_end or t0.cable:
        part = t0.lower_end or t0.cable
        per = (t0.down_links / max(t0.lower_end_transceivers or t0.cables, 1))
        rows.append(("optic" if t0.lower_end else "cable", f"{part} node-side ({f.name})",
                     t0.lower_end_transceivers or t0.cables,
                     Effect(0, min(f.gpus, round(per * gpus_per_port)), kept_one_port, ()),
                     f"carries {per:g} node link(s)"))
    if len(f.tiers) > 1 and (f.tiers[1].switch_end or f.tiers[1].lower_end):
        t1, ts = f.tiers[1], f.tree.tiers[0]
        part = t1.lower_end or t1.switch_end
        n = t1.lower_end_transceivers or t1.switch_end_transceivers
        per = t1.down_links / max(n, 1)
        frac = (ts.up_ports - per) / ts.up_ports if ts.up_ports else 0.0
        rows.append(("optic", f"{part} leaf uplink ({f.name})", n,
                     Effect(0, leaf_gpus, frac, ()),
                     f"the leaf loses {per:g} of its {ts.up_ports} uplinks"))
    frac = (f.planes - 1) / f.planes
    rows.append(("plane", f"one plane of {f.name} ({f.planes} plane(s))", f.planes,
                 Effect(0, f.gpus, frac, ()),
                 "every GPU loses that plane's ports" + ("" if f.planes > 1 else
                                                         ": the whole fabric")))
    return rows
