"""``infra diff``: map an inventory onto a design and list every deviation.

Nodes map by host name (:mod:`infra.ingest.slots`), GPUs by module id, adapters by
NodeDescription or GUID map, switches by the cables planned to them. Design nodes
absent from the inventory are counted in the coverage, not reported one by one: a
bring-up usually ingests a rack or a scalable unit at a time.

Examples
--------
>>> from pathlib import Path
>>> root = Path(__file__).resolve().parents[2]
>>> res = diff_file(root / "designs/gb200_nvl72.yaml", root / "tests/fixtures/inventory/gb200-nvl72")
>>> sorted({f.check for f in res.findings})
['clique-split', 'fabric-not-attached', 'nvlink-inactive', 'tray-position']
>>> res.errors, res.coverage.inspected_nodes
(3, 18)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from infra.ingest.diff_collectives import check_runs
from infra.ingest.diff_domain import NodeSummary, domain_findings
from infra.ingest.diff_fabric import fabric_findings
from infra.ingest.diff_node import node_findings, type_unchecked
from infra.ingest.findings import SEVERITIES, Coverage, DiffResult, Finding
from infra.ingest.hostmap import HostMap, Placement
from infra.ingest.inventory import host_dirs, iter_nodes, read_fabric
from infra.ingest.model import BuiltNode, Inventory
from infra.ingest.nccl_tests import NcclTestRun, load_nccl_tests
from infra.ingest.slots import DEFAULT_HOST_PATTERN, DesignNode, design_nodes
from infra.models.catalog import Catalog
from infra.models.resolve import ResolvedDesign, load_design


def diff_inventory(rd: ResolvedDesign, inv: Inventory,
                   host_pattern: str = DEFAULT_HOST_PATTERN, expect_all: bool = False,
                   runs: tuple[NcclTestRun, ...] = (), host_map: HostMap | None = None
                   ) -> DiffResult:
    """Every deviation of ``inv`` from ``rd``.

    Parameters
    ----------
    rd : ResolvedDesign
    inv : Inventory
        From :func:`infra.ingest.inventory.load_inventory`.
    host_pattern : str
        How design trays are named (see :func:`infra.ingest.slots.design_nodes`).
    expect_all : bool
        Every design node must have dumps: one ``node-missing`` error per node without
        (a whole-cluster gate); default: count them in the coverage only.
    runs : tuple of NcclTestRun
        nccl-tests logs of the inventory (:func:`infra.ingest.nccl_tests.load_nccl_tests`):
        each row is reported beside its prediction, slow runs are findings
        (:mod:`infra.ingest.diff_collectives`).
    host_map : HostMap, optional
        The site's naming (:mod:`infra.ingest.hostmap`: a regex with named groups or a
        CSV/YAML table) where hosts are not named by ``host_pattern``.

    Returns
    -------
    DiffResult
        Findings sorted by severity, rack, U and node; coverage figures; measured vs
        predicted collective rows.
    """
    return _diff(rd, inv.root, iter(inv.nodes), Inventory(inv.root, (), inv.fabric, inv.ports,
                                                          inv.unmapped_adapters),
                 host_pattern, expect_all, runs, host_map)


def diff_directory(rd: ResolvedDesign, inventory: Path | str,
                   host_pattern: str = DEFAULT_HOST_PATTERN, expect_all: bool = False,
                   runs: tuple[NcclTestRun, ...] = (), host_map: HostMap | None = None
                   ) -> DiffResult:
    """:func:`diff_inventory` of the inventory directory ``inventory``, streamed: each
    host's dumps are read, checked and dropped in turn; only its findings and what the
    domain, duplicate and fabric checks count are kept (memory does not grow with the
    dumps). The fabric dump is parsed once."""
    dirs = host_dirs(inventory)
    fabric, ports, unmapped = read_fabric(inventory, bool(dirs))
    root = str(inventory)
    return _diff(rd, root, iter_nodes(inventory, nics=False), Inventory(root, (), fabric, ports, unmapped),
                 host_pattern, expect_all, runs, host_map)


def _diff(rd: ResolvedDesign, root: str, nodes: Iterator[BuiltNode], fab: Inventory,
          host_pattern: str, expect_all: bool, runs, host_map: HostMap | None = None
          ) -> DiffResult:
    """The diff over ``nodes`` (consumed once) and the fabric tables of ``fab``."""
    dnodes = design_nodes(rd, host_pattern)
    by_host = Placement(dnodes, host_map)  # site host -> design node, under the site name
    findings: list[Finding] = []
    pairs: list[tuple[DesignNode, NodeSummary]] = []
    unknown: list[str] = []
    have: set[str] = set()
    dups = DuplicateTracker()
    gpus_seen = 0
    unchecked: dict[str, tuple[list[str], list[str], set[str]]] = {}  # tray -> types, hosts, ids
    for node in nodes:
        have.add(node.host)
        dups.add(node)
        dn = by_host.get(node.host)
        if dn is None:
            unknown.append(node.host)
            continue
        pairs.append((dn, NodeSummary.of(node)))
        gpus_seen += len(node.gpus)
        findings += node_findings(dn, node, rd.catalog)
        if types := type_unchecked(dn, node, rd.catalog):
            entry = unchecked.setdefault(dn.tray.slug, (types, [], set()))
            entry[1].append(node.host)
            entry[2].update(f"{g.product} ({g.pci_device_id})" if g.product else
                            f"PCI id {g.pci_device_id}" for g in node.gpus if g.pci_device_id)
    findings += _unchecked_findings(unchecked, root)
    if expect_all:
        seen_slots = {dn.slot for dn in by_host.values() if dn.host in have}
        for d in dnodes:
            if d.slot not in seen_slots:
                findings.append(Finding("error", "node-missing", d.rack, d.u, d.host, None, None,
                                        f"dumps of {d.host} ({d.tray.slug}, {d.gpus} GPUs)",
                                        "no directory in the inventory",
                                        f"{d.gpus} GPUs not verified (node down or not collected)",
                                        root))
    findings += dups.findings(by_host, root)
    domain_gpus: Counter = Counter()
    for d in dnodes:
        domain_gpus[d.domain] += d.gpus
    findings += domain_findings(pairs, domain_gpus)
    fabric, table, notes = fabric_findings(rd, fab, by_host)
    findings += fabric
    unknown += sorted({p.host for p in fab.ports if p.host not in by_host} - set(unknown))
    naming = (f"a host placed by {host_map.description}" if host_map is not None else
              f"a host named by the pattern {host_pattern!r}"
              + (f" (e.g. {dnodes[0].host}..{dnodes[-1].host})" if dnodes else ""))
    for host in unknown:
        findings.append(Finding("warning", "node-unknown", None, None, host, None, None,
                                naming, f"host {host!r}", "not checked: no design position",
                                root))
    hosts = len(have) + len({p.host for p in fab.ports} - have)
    if hosts and not by_host.values():
        findings.append(Finding(
            "error", "hosts-unplaced", None, None, None, None, None,
            f"inventory hosts that are design nodes, {naming.removeprefix('a host ')}",
            f"0 of {hosts} host(s) placed, e.g. {unknown[0]!r}",
            "nothing of the inventory was checked against the design: name the site's "
            "hosts with --host-pattern, --host-regex (named groups, e.g. "
            "'.*-dgx-(?P<group>\\d+)-c(?P<group_node>\\d+)') or --host-map FILE", root))
    checks, coll_findings, coll_notes = check_runs(rd, runs) if runs else ((), [], [])
    findings += coll_findings
    notes = list(notes) + coll_notes
    findings.sort(key=lambda f: (SEVERITIES.index(f.severity), f.rack or "", f.node or "",
                                 f.check, f.gpu or "", f.port or ""))
    cov = Coverage(len(dnodes), len(pairs), tuple(unknown), gpus_seen, len(fab.ports),
                   tuple(table))
    return DiffResult(rd.name, str(rd.file), root, host_pattern, tuple(findings), cov,
                      tuple(notes), checks)


def _unchecked_findings(unchecked: dict, root: str) -> list[Finding]:
    """One ``gpu-type-unchecked`` warning per tray type whose GPUs the catalog gives no
    PCI id for: the nodes' GPU type is not verified, and the diff says so."""
    out = []
    for slug, (types, hosts, seen) in sorted(unchecked.items()):
        where = hosts[0] if len(hosts) == 1 else f"{hosts[0]}..{hosts[-1]} ({len(hosts)} nodes)"
        out.append(Finding("warning", "gpu-type-unchecked", None, None, where, None, None,
                           f"{', '.join(types)} in {slug}, identified by PCI device id",
                           f"{', '.join(sorted(seen))}; the catalog entry "
                           f"{', '.join(types)} has no pci_device_ids",
                           "the GPU type of these nodes is not verified: add the GPU's "
                           "pci_device_ids (with its source) to its catalog entry", root))
    return out


class DuplicateTracker:
    """``gpu-duplicate`` errors, counted host by host: a GPU UUID reported twice, or a
    GPU serial (a board's, so shared by the GPUs of one superchip) reported by two hosts.
    Either is a collection mistake (a dump copied under another host name, directories
    mixed up) that would otherwise pass the bring-up gate: the copy matches the design
    perfectly. One finding per host and the host it repeats (not one per GPU); keeps one
    entry per GPU UUID and serial, not the dumps.
    """

    def __init__(self) -> None:
        self.first_uuid: dict[str, str] = {}
        self.first_serial: dict[str, str] = {}
        self.repeats: dict[tuple[str, str], list[int]] = {}  # (host, earlier) -> [uuids, serials]
        self.source: dict[str, str] = {}

    def add(self, node: BuiltNode) -> None:
        serials_here: set[str] = set()
        uuids_here: set[str] = set()
        for g in node.gpus:
            if g.uuid and g.uuid.upper().removeprefix("GPU-").replace("-", "").strip("0"):
                other = self.first_uuid.setdefault(g.uuid, node.host)
                if other != node.host or g.uuid in uuids_here:
                    self._repeat(node, other, 0)
                uuids_here.add(g.uuid)
            if g.serial and g.serial not in serials_here:
                serials_here.add(g.serial)
                other = self.first_serial.setdefault(g.serial, node.host)
                if other != node.host:
                    self._repeat(node, other, 1)

    def _repeat(self, node: BuiltNode, other: str, k: int) -> None:
        self.repeats.setdefault((node.host, other), [0, 0])[k] += 1
        self.source.setdefault(node.host, node.files[0] if node.files else "")

    def findings(self, by_host: dict, root: str) -> list[Finding]:
        out = []
        for (host, other), (uuids, serials) in self.repeats.items():
            dn = by_host.get(host)
            what = " and ".join(f"{n} GPU {k}{'s' if n != 1 else ''}" for n, k in
                                ((uuids, "UUID"), (serials, "serial")) if n)
            found = (f"{what} repeated within this dump" if other == host else
                     f"{what} also reported by {other}")
            out.append(Finding("error", "gpu-duplicate", dn.rack if dn else None,
                               dn.u if dn else None, host, None, None,
                               "GPU UUIDs and serials that no other host reports", found,
                               "the host's GPUs are not verified: the same dump collected "
                               "twice (copied under another host name) or directories mixed "
                               "up; collect it again on the host", self.source[host] or root))
        return out


def duplicate_findings(inv: Inventory, by_host: dict) -> list[Finding]:
    """``gpu-duplicate`` errors of a loaded inventory (see :class:`DuplicateTracker`)."""
    dups = DuplicateTracker()
    for node in inv.nodes:
        dups.add(node)
    return dups.findings(by_host, inv.root)


def diff_file(design: Path | str, inventory: Path | str, catalog: Catalog | None = None,
              host_pattern: str = DEFAULT_HOST_PATTERN, expect_all: bool = False,
              host_map: HostMap | None = None) -> DiffResult:
    """Load ``design`` and diff the inventory directory ``inventory`` (with its nccl-tests
    logs) against it, one host at a time (the ``infra diff`` API)."""
    return diff_directory(load_design(design, catalog), inventory, host_pattern, expect_all,
                          load_nccl_tests(inventory), host_map)
