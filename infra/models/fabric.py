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

    node_end: Slug | None = None
    lower_end: Slug | None = None
    switch_end: Slug | None = None
    cable: Slug | None = None
    reach_m: PosFloat | None = None  # the longest run of this tier, checked against media

    @model_validator(mode="after")
    def _one_lower(self):  # noqa: ANN202
        if self.node_end and self.lower_end:
            raise ValueError("give node_end or lower_end, not both")
        return self

    @property
    def lower(self) -> str | None:
        return self.node_end or self.lower_end


class TierSpec(Strict):
    role: Role
    switch: Slug
    port_gbit_s: PosFloat | None = None  # run ports at this speed (breakout), default native
    oversubscription: Annotated[float, Field(ge=1.0, le=16.0)] = 1.0  # down : up
    switches_per_rack: PositiveCount | None = None  # in-rack ToRs: a fixed number per rack
    down: LinkMedia = LinkMedia()


class FabricSpec(Strict):
    kind: Literal["rail_optimized", "clos", "single_switch"]
    networks: list[Literal["scale_out", "converged", "front_end", "management"]] = ["scale_out"]
    group: str | None = None  # pod whose instances form leaf groups (SU); default the cluster
    planes: PositiveCount = 1  # independent copies of the fabric, NIC ports split evenly
    placement: Literal["in_rack", "end_of_row"] = "end_of_row"
    tiers: Annotated[list[TierSpec], Field(min_length=1, max_length=3)]

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
        return self
