"""Slurm topology files from a design: ``topology.conf`` (tree, block) and ``topology.yaml``.

Formats: ``topology.conf(5)`` and ``topology.yaml(5)`` (Slurm >= 25.05, which allows
blocks with fewer nodes than the base size, so absent slots are empty ``BlockName``
lines rather than fake nodes). Slurm reads one ``topology.conf`` per cluster and
ignores it when ``topology.yaml`` exists, so the two plugin variants are written as
``topology.tree.conf`` and ``topology.block.conf`` (rename the one you use to
``topology.conf``), and ``topology.yaml`` holds both (block is the cluster default when
the design has multi-node NVLink domains; partitions pick one with ``Topology=``).

What goes in comes from :mod:`infra.analysis.network.schedtopo`; every file is checked by
:mod:`infra.exports.slurm_check` before it is returned.

Examples
--------
>>> from infra.models.resolve import load_design
>>> ex = slurm_export(load_design("designs/aws_nvl36x2.yaml"))
>>> [f.path for f in ex.files]
['slurm/topology.block.conf', 'slurm/topology.yaml']
>>> print(ex.files[0].text.splitlines()[-1])
BlockSizes=9,18
"""

from __future__ import annotations

import re

import yaml

from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN, node_identities
from infra.analysis.network.schedtopo import BlockTopology, TreeTopology, block_topology, tree_topology
from infra.exports.common import (Export, ExportError, ExportFile, check_node_count,
                                  has_topology, one_line, site_named)
from infra.exports.hostlist import compress
from infra.exports.slurm_check import check_block_conf, check_tree_conf
from infra.models.resolve import ResolvedDesign

RULE = "#" * 66


def slurm_export(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
                 names: dict[str, str] | None = None) -> Export:
    """Slurm topology files for ``rd``; raises ExportError when there is nothing to say
    (decided before any node is listed) or the design is too large for per-node files."""
    if not has_topology(rd):
        raise _nothing(rd)
    check_node_count(rd, "Slurm", "Slurm's topology repeats per pod: export a design with one "
                     "or a few pods of each kind (lower the 'build:' counts) and repeat its "
                     "blocks and switches with your own node names")
    ids = site_named(node_identities(rd, pattern), names)
    site = len(names or ())
    blocks = block_topology(rd, ids)
    tree = tree_topology(rd, ids)
    if blocks is None and tree is None:
        raise _nothing(rd)
    names = [n.name for n in ids]
    hl = _Hostlists()
    head = [RULE, f"# Slurm topology for {one_line(rd.name)}",
            f"# from {one_line(rd.file.name)} by infra export; "
            f"node names from the pattern {one_line(repr(pattern))}"
            + (f" and the site's names of {site:,} node(s)" if site else ""),
            "# (they must match slurm.conf NodeName)"]
    files, warnings = [], []
    if tree is not None:
        text = tree_conf(tree, head, hl)
        check_tree_conf(text, names)
        files.append(ExportFile("slurm/topology.tree.conf", text))
        missing = len(names) - len({h for s in tree.switches for h in s.nodes})
        if missing:
            warnings.append(f"{missing} nodes are not on fabric {tree.fabric!r} and are in no "
                            "switch (Slurm warns about them)")
    if blocks is not None:
        text = block_conf(blocks, head, hl)
        check_block_conf(text, names, {b.name: b.group for b in blocks.blocks})
        files.append(ExportFile("slurm/topology.block.conf", text))
    files.append(ExportFile("slurm/topology.yaml", topology_yaml(blocks, tree, hl)))
    return Export("slurm", tuple(files), tuple(warnings))


def _nothing(rd: ResolvedDesign) -> ExportError:
    return ExportError(f"{rd.file}: design {rd.name!r} has neither multi-node NVLink domains "
                       "nor a fabric, so Slurm has no topology to use",
                       hint="add a 'fabrics:' section, or use TopologyPlugin=topology/flat")


class _Hostlists:
    """``compress`` of each node tuple once (every file of the export lists the same
    blocks and switches)."""

    def __init__(self) -> None:
        self._memo: dict[int, tuple[tuple, str]] = {}

    def __call__(self, names) -> str:
        got = self._memo.get(id(names))
        if got is None or got[0] is not names:
            got = self._memo[id(names)] = (names, compress(names))
        return got[1]


def tree_conf(tree: TreeTopology, head: list[str], hl=compress) -> str:
    """``topology.conf`` for ``topology/tree``: leaves first, root last."""
    lines = head + [f"# topology/tree plugin: fabric {tree.fabric!r}; first-tier switches that "
                    "carry the same nodes", "# (rail leaves of an SU, ToRs of a rack) are one "
                    "logical switch; '# name=' lists the design switches", RULE]
    for s in tree.switches:
        if s.members:
            lines.append(f"# {s.name}=" + compress(list(s.members)))
        if s.nodes:
            lines.append(f"SwitchName={s.name} Nodes={hl(s.nodes)}")
        else:
            lines.append(f"SwitchName={s.name} Switches={hl(s.switches)}")
    return "\n".join(lines) + "\n"


def block_conf(blocks: BlockTopology, head: list[str], hl=compress) -> str:
    """``topology.conf`` for ``topology/block``: blocks in fabric order, then BlockSizes."""
    lines = head + ["# topology/block plugin: " + blocks.basis + ";",
                    "# Slurm aggregates consecutive blocks, so the order is the fabric order; "
                    "empty blocks", "# keep absent slots aligned. '# block=domain' names the "
                    "design's NVLink domain.", RULE]
    for b in blocks.blocks:
        if b.domain is None:
            lines.append(f"# {b.name}=absent slot of {b.group}")
            lines.append(f"BlockName={b.name}")
        else:
            lines.append(f"# {b.name}={b.domain}" + (f" (rack {b.rack})" if b.rack else ""))
            lines.append(f"BlockName={b.name} Nodes={hl(b.nodes)}")
    lines.append("BlockSizes=" + ",".join(str(s) for s in blocks.sizes))
    return "\n".join(lines) + "\n"


def topology_yaml(blocks: BlockTopology | None, tree: TreeTopology | None, hl=compress) -> str:
    """``topology.yaml`` (Slurm >= 25.05) with a ``nvlink`` block and a ``fabric`` tree."""
    doc = []
    if blocks is not None:
        rows = [{"block": b.name, **({"nodes": hl(b.nodes)} if b.nodes else {})}
                for b in blocks.blocks]
        doc.append({"topology": "nvlink", "cluster_default": True,
                    "block": {"block_sizes": list(blocks.sizes), "blocks": rows}})
    if tree is not None:
        rows = [{"switch": s.name, **({"nodes": hl(s.nodes)} if s.nodes
                                      else {"children": hl(s.switches)})}
                for s in reversed(tree.switches)]
        doc.append({"topology": "fabric", "cluster_default": blocks is None,
                    "tree": {"switches": rows}})
    text = _plain_yaml(doc)
    if text is None:  # a value YAML would quote: let PyYAML write it all
        text = yaml.safe_dump(doc, sort_keys=False, explicit_start=True, width=1000)
    return text


_PLAIN = re.compile(r"[A-Za-z][-A-Za-z0-9_.\[\],]*")  # block-plain, never a number
_WORDS = {"yes", "no", "true", "false", "on", "off", "null"}  # YAML 1.1 bool and null


def _plain_yaml(doc: list) -> str | None:
    """``doc`` as ``yaml.safe_dump(doc, sort_keys=False, explicit_start=True,
    width=1000)`` writes it, when every string is a plain scalar PyYAML leaves unquoted
    (a letter, then letters, digits and ``-_.[],``; no YAML 1.1 boolean or null word);
    None otherwise. PyYAML's pure-Python emitter took 8 s for a 1M-GPU topology."""
    out = ["---\n"]

    def scalar(v) -> str:
        if v is True or v is False:
            return "true" if v else "false"
        if isinstance(v, int):
            return str(v)
        if not (isinstance(v, str) and _PLAIN.fullmatch(v) and v.lower() not in _WORDS
                and len(v) < 900):
            raise ValueError(v)
        return v

    try:
        for top in doc:
            lead = "- "
            for key, val in top.items():
                if isinstance(val, dict):
                    out.append(f"{lead}{scalar(key)}:\n")
                    for k2, v2 in val.items():
                        out.append(f"    {scalar(k2)}:\n")
                        for item in v2:
                            if isinstance(item, dict):
                                first = "    - "
                                for k3, v3 in item.items():
                                    out.append(f"{first}{scalar(k3)}: {scalar(v3)}\n")
                                    first = "      "
                            else:
                                out.append(f"    - {scalar(item)}\n")
                else:
                    out.append(f"{lead}{scalar(key)}: {scalar(val)}\n")
                lead = "  "
    except ValueError:
        return None
    return "".join(out)
