"""Typed diff results: one :class:`Finding` per deviation of the as-built from the design."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

SEVERITIES = ("error", "warning", "info")


@dataclass(frozen=True)
class Finding:
    """One deviation: where it is, what the design expects, what was found, what it costs."""

    severity: str  # error | warning | info
    check: str  # gpu-missing, pcie-degraded, nvlink-inactive, clique-split, ...
    rack: str | None
    u: int | None
    node: str | None  # host name
    gpu: str | None  # design instance (and module id)
    port: str | None  # fabric port, e.g. "leaf su0.rail2.leaf0 port 12"
    expected: str
    found: str
    cost: str
    source: str  # the dump the reading came from

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Coverage:
    design_nodes: int
    inspected_nodes: int
    unknown_hosts: tuple[str, ...]
    gpus_seen: int
    fabric_links_seen: int
    switch_map: tuple[tuple[str, str, str], ...]  # (switch GUID, description, design leaf)


@dataclass(frozen=True)
class DiffResult:
    design: str
    design_file: str
    inventory: str
    host_pattern: str
    findings: tuple[Finding, ...]
    coverage: Coverage
    notes: tuple[str, ...] = field(default=())
    collectives: tuple = field(default=())  # measured vs predicted (diff_collectives.CollectiveCheck)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity == "warning")

    def as_dict(self) -> dict:
        return {"design": self.design, "design_file": self.design_file,
                "inventory": self.inventory, "host_pattern": self.host_pattern,
                "summary": {"errors": self.errors, "warnings": self.warnings,
                            "info": len(self.findings) - self.errors - self.warnings,
                            "design_nodes": self.coverage.design_nodes,
                            "inspected_nodes": self.coverage.inspected_nodes,
                            "gpus_seen": self.coverage.gpus_seen,
                            "fabric_links_seen": self.coverage.fabric_links_seen,
                            "collective_rows": len(self.collectives)},
                "unknown_hosts": list(self.coverage.unknown_hosts),
                "switch_map": [{"guid": g, "description": d, "design_leaf": l}
                               for g, d, l in self.coverage.switch_map],
                "findings": [f.as_dict() for f in self.findings],
                "collectives": [c.as_dict() for c in self.collectives],
                "notes": list(self.notes)}
