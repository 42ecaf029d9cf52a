"""Kubernetes node labels for a design, with NVIDIA topograph's keys.

Keys (topograph ``docs/reference/node-labels.md``): ``accelerator.topograph.run/domain``
(the NVLink domain, only for domains of several nodes), ``.../sub-domain`` (the rack
of a multi-rack domain) and ``fabric.topograph.run/tier-N`` ("Tier 0 is the switch
closest to the node"), from the same logical switch tree as the Slurm export. Values
over 63 characters are replaced, as topograph does, by ``x`` + their FNV-64a hash in
lower-case hex. Written as ``k8s/labels.json`` ({node: {key: value}}, build order) and
``k8s/label-nodes.sh`` (one ``kubectl label node`` line per node).

Examples
--------
>>> fnv64a("hello")
'xa430d84680aabd0b'
>>> check_label("accelerator.topograph.run/domain", "su0.r3")
>>> check_label("fabric.topograph.run/tier-0", "su0/r3")
Traceback (most recent call last):
...
infra.exports.common.ExportError: k8s label fabric.topograph.run/tier-0='su0/r3': the value must be at most 63 characters of [A-Za-z0-9_.-], starting and ending with a letter or digit
"""

from __future__ import annotations

import json
import re
import shlex

from infra.analysis.layout.identity import DEFAULT_HOST_PATTERN, node_identities
from infra.analysis.network.schedtopo import tree_topology, unit_name
from infra.exports.common import Export, ExportError, ExportFile, one_line
from infra.models.resolve import ResolvedDesign

DOMAIN = "accelerator.topograph.run/domain"
SUB_DOMAIN = "accelerator.topograph.run/sub-domain"
TIER = "fabric.topograph.run/tier-{}"
_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
_DNS = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def fnv64a(text: str) -> str:
    """topograph's replacement of a long label value: ``x`` + FNV-1a 64-bit hex."""
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"x{h:016x}"


def _value(text: str) -> str:
    return text if len(text) <= 63 else fnv64a(text)


def check_label(key: str, value: str) -> None:
    """Kubernetes label syntax: ``[prefix/]name`` and value (ExportError if not)."""
    prefix, _, name = key.rpartition("/")
    where = f"k8s label {key}={value!r}"
    if prefix and (len(prefix) > 253 or not _DNS.match(prefix)):
        raise ExportError(f"{where}: the key prefix must be a DNS subdomain of at most 253 "
                          "characters")
    if not name or len(name) > 63 or not _NAME.match(name):
        raise ExportError(f"{where}: the key name must be 1-63 characters of [A-Za-z0-9_.-], "
                          "starting and ending with a letter or digit")
    if len(value) > 63 or not _NAME.match(value):
        raise ExportError(f"{where}: the value must be at most 63 characters of [A-Za-z0-9_.-], "
                          "starting and ending with a letter or digit")


def node_labels(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN) -> dict[str, dict[str, str]]:
    """{host name: {label key: value}} for every node, checked, in build order."""
    ids = node_identities(rd, pattern)
    tree = tree_topology(rd, ids)
    sizes: dict[str, int] = {}
    for n in ids:
        sizes[n.domain] = sizes.get(n.domain, 0) + 1
    out: dict[str, dict[str, str]] = {}
    for n in ids:
        labels: dict[str, str] = {}
        if sizes[n.domain] > 1:
            labels[DOMAIN] = _value(unit_name(n.domain))
            if n.sub_domain:
                labels[SUB_DOMAIN] = _value(unit_name(n.sub_domain))
        if tree is not None:
            for t, sw in enumerate(tree.tiers_of(n.name)):
                labels[TIER.format(t)] = _value(sw)
        for k, v in labels.items():
            check_label(k, v)
        out[n.name] = labels
    return out


def k8s_export(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN) -> Export:
    """``k8s/labels.json`` and ``k8s/label-nodes.sh``; ExportError when no label applies."""
    labels = node_labels(rd, pattern)
    if not any(labels.values()):
        raise ExportError(f"{rd.file}: design {rd.name!r} has neither multi-node NVLink domains "
                          "nor a fabric, so no topology label applies",
                          hint="add a 'fabrics:' section")
    doc = {"design": rd.name, "source": rd.file.name, "nodes": labels}
    # generated text is data, never code: the name is escaped onto its one comment line,
    # every argument is shell-quoted (label values are checked too, but quoting holds
    # whatever a host-name pattern or a future label produces)
    lines = ["#!/bin/sh", f"# Topology labels for {one_line(rd.name)} (infra export, "
             "topograph keys).",
             "# Node names must match the cluster's; re-run after a design change.", "set -e"]
    for node, lab in labels.items():
        if lab:
            pairs = " ".join(shlex.quote(f"{k}={v}") for k, v in lab.items())
            lines.append(f"kubectl label node {shlex.quote(node)} {pairs} --overwrite")
    return Export("k8s", (ExportFile("k8s/labels.json", json.dumps(doc, indent=1) + "\n"),
                          ExportFile("k8s/label-nodes.sh", "\n".join(lines) + "\n")))
