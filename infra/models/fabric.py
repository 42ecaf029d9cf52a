"""Fabric specifications in a design (scale-out or front-end network).

Example (NVIDIA DGX SuperPOD H100, rail-optimized NDR fat tree)::

    fabrics:
      compute:
        kind: rail_optimized
        networks: [scale_out]
        group: su                   # leaves are per scalable-unit instance
        tiers:
          - role: leaf
            switch: nvidia-quantum-2-qm9700
            down: {node_end: nvidia-mms4x00-ns, switch_end: nvidia-mms4x00-ns}
          - role: spine
            switch: nvidia-quantum-2-qm9700
            down: {switch_end: nvidia-mms4x00-ns, lower_end: nvidia-mms4x00-ns}
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from infra.models.base import PosFloat, PositiveCount, Slug, Strict

Role = Literal["tor", "leaf", "spine", "core"]


class LinkMedia(Strict):
    """What a tier's down links are made of: a transceiver at each end, or a cable.

    ``node_end`` / ``lower_end`` is the transceiver at the lower end (the NIC for a leaf
    or ToR, the lower switch otherwise); ``switch_end`` the one in this tier's switch.
    A ``cable`` with integrated ends (DAC, AOC) needs no transceivers; a fibre link
    counts one fibre cable per link when ``cable`` is unset.
    """

    node_end: Slug | None = Field(
        None, description="First tier only: the transceiver at the node's NIC cage (catalog optic).")
    lower_end: Slug | None = Field(
        None, description="Spine/core tiers: the transceiver at the lower switch (give node_end or lower_end).")
    switch_end: Slug | None = Field(None, description="The transceiver in this tier's switch port.")
    cable: Slug | None = Field(
        None, description="A cable with integrated ends (DAC, AOC): no transceivers needed. Unset with "
        "transceivers: one fibre cable per link is counted.")
    reach_m: PosFloat | None = Field(
        None, description="The longest run of this tier (m), checked against the media's reach.")

    @model_validator(mode="after")
    def _one_lower(self):  # noqa: ANN202
        if self.node_end and self.lower_end:
            raise ValueError("give node_end or lower_end, not both")
        return self

    @property
    def lower(self) -> str | None:
        return self.node_end or self.lower_end


class TierSpec(Strict):
    role: Role = Field(description="leaf or tor (first tier), spine, core, from the bottom.")
    switch: Slug = Field(description="Slug of a catalog network switch.")
    port_gbit_s: PosFloat | None = Field(
        None, description="Run the ports at this speed (breakout, e.g. 800 -> 2 x 400); default native. "
        "First tier: NIC ports faster than it (a whole multiple) are configured down to it (a 400G "
        "BlueField-3 port run as 200GbE).")
    oversubscription: Annotated[float, Field(ge=0.0625, le=16.0)] = Field(
        1.0, description="Down : up bandwidth of the tier's switches: 1 = non-blocking, 2 = 2:1 "
        "over-subscribed, 0.5 = 1:2 under-subscribed (twice the uplinks; Meta's rack switches); "
        "1/16 to 16.")
    group: str | None = Field(
        None, description="The spine tier of a three-tier fabric: a pod of the design; each instance of "
        "the pod gets its own spines, joining only its own leaves (Meta: one cluster-switch fabric per "
        "192-rack pod). Unset: the spines join the whole fabric. The top tier always joins the whole "
        "fabric, so it takes no group.")
    switches_per_rack: PositiveCount | None = Field(
        None, description="First tier only: a fixed number of in-rack ToRs per rack holding compute trays.")
    # model_construct(): the default without building a validator at import (equal to
    # LinkMedia(); tests/test_startup.py)
    down: LinkMedia = Field(LinkMedia.model_construct(),
                            description="Media of the links from this tier down to the one below.")


class FabricSpec(Strict):
    kind: Literal["rail_optimized", "clos", "single_switch"] = Field(
        description="rail_optimized (NIC k of every node to leaf k), clos, or single_switch (one tier).")
    networks: list[Literal["scale_out", "converged", "front_end", "management"]] = Field(
        ["scale_out"], description="NICs whose tray 'network:' tag is listed attach to this fabric.")
    group: str | None = Field(
        None, description="Pod (or comma-separated pods) whose instances form leaf groups, e.g. an SU; "
        "unset: the whole cluster is one group.")
    planes: PositiveCount = Field(
        1, description="Independent copies of the fabric; each node's NIC ports are split evenly over them.")
    placement: Literal["in_rack", "end_of_row"] = Field(
        "end_of_row", description="Where first-tier switches sit: in the compute racks or in network racks.")
    tiers: Annotated[list[TierSpec], Field(min_length=1, max_length=3)] = Field(
        description="1 to 3 switch tiers from the bottom: leaf|tor, spine, core.")

    @model_validator(mode="after")
    def _roles(self):  # noqa: ANN202
        roles = [t.role for t in self.tiers]
        allowed = {1: [("leaf",), ("tor",)], 2: [("leaf", "spine"), ("tor", "spine")],
                   3: [("leaf", "spine", "core"), ("tor", "spine", "core")]}
        if tuple(roles) not in allowed[len(roles)]:
            raise ValueError(f"tiers must be leaf|tor, spine, core from the bottom; got {roles}")
        if self.kind == "single_switch" and len(roles) != 1:
            raise ValueError("a single_switch fabric has exactly one tier")
        if any(t.switches_per_rack for t in self.tiers[1:]):
            raise ValueError("switches_per_rack applies to the first tier (in-rack ToRs) only")
        if self.tiers[0].group:
            raise ValueError("tier group applies to spine or core tiers; the first tier's groups are "
                             "the fabric's 'group'")
        if self.tiers[-1].group:
            raise ValueError(f"the top tier ({self.tiers[-1].role}) joins the whole fabric: a group there "
                             "would leave disconnected islands; add a tier above it or drop its group")
        return self


class StorageSpec(Strict):
    """Storage the design's nodes reach: catalog storage units and the network between.

    Example (Meta's Tectonic for Llama 3, over the servers' front-end NICs)::

        storage:
          tectonic: {type: meta-tectonic-llama3, networks: [front_end]}
    """

    type: Slug = Field(description="Slug of a catalog storage_system (an appliance, a node or a whole system).")
    count: PositiveCount = Field(1, description="Units of that type.")
    networks: list[Literal["scale_out", "converged", "front_end", "management"]] = Field(
        ["front_end"], description="Node NICs whose tray 'network:' tag is listed carry the storage traffic.")
    fabric: str | None = Field(
        None, description="A fabric of this design the units attach to: their ports take free ports of its "
        "first tier (too few is an error) and its per-GPU bandwidth bounds the path. Unset: the network between the nodes' NICs "
        "and the storage is not modelled (only the NICs and the storage throughput bound it).")
    it_load: bool = Field(
        True, description="The units are part of this design's IT load: their power, BOM lines and "
        "capex count. false: a site-wide system the nodes only reach (Meta's Tectonic): its "
        "throughput bounds the path, its power and cost are not the design's.")
