"""Kubernetes node labels for a design, with NVIDIA topograph's keys.

Keys (topograph ``docs/reference/node-labels.md``): ``accelerator.topograph.run/domain``
(the NVLink domain, only for domains of several nodes), ``.../sub-domain`` (the rack
of a multi-rack domain) and ``fabric.topograph.run/tier-N`` ("Tier 0 is the switch
closest to the node"), from the same logical switch tree as the Slurm export. Values
over 63 bytes are replaced, as topograph does, by ``x`` + their FNV-64a hash in
lower-case hex without zero padding (Go's ``%x``). Written as ``k8s/labels.json`` ({node: {key: value}}, build order) and
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
from infra.exports.common import (Export, ExportError, ExportFile, check_node_count,
                                  has_topology, one_line, site_named)
from infra.models.resolve import ResolvedDesign

DOMAIN = "accelerator.topograph.run/domain"
SUB_DOMAIN = "accelerator.topograph.run/sub-domain"
TIER = "fabric.topograph.run/tier-{}"
_NAME = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?$")
_DNS = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def fnv64a(text: str) -> str:
    """topograph's replacement of a long label value: ``x`` + FNV-1a 64-bit hex, written
    as Go's ``fmt.Sprintf("x%x", h.Sum64())`` writes it (no zero padding;
    topograph ``pkg/engines/k8s/labeler.go`` ``checkLabel``)."""
    h = 0xCBF29CE484222325
    for b in text.encode():
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"x{h:x}"


def _value(text: str) -> str:
    # topograph compares Go's len(val), the UTF-8 byte count, with 63
    return text if len(text.encode()) <= 63 else fnv64a(text)


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


def node_labels(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
                names: dict[str, str] | None = None) -> dict[str, dict[str, str]]:
    """{host name: {label key: value}} for every node, checked, in build order; ``names``:
    the site's host names by node path (:func:`infra.exports.export_design`)."""
    return dict(_Labels(rd, pattern, names).items())


class _Labels:
    """The labels of every node, made one node at a time (each distinct label checked
    once): the export streams them to both files without holding them all."""

    def __init__(self, rd: ResolvedDesign, pattern: str,
                 names: dict[str, str] | None = None) -> None:
        self.ids = site_named(node_identities(rd, pattern), names)
        self.tree = tree_topology(rd, self.ids)
        self.sizes: dict[str, int] = {}
        for n in self.ids:
            self.sizes[n.domain] = self.sizes.get(n.domain, 0) + 1
        self._checked: dict[tuple[str, str], tuple[str, str]] = {}

    def any(self) -> bool:
        """Whether any node gets a label."""
        return (any(v > 1 for v in self.sizes.values())
                or (self.tree is not None and any(s.nodes for s in self.tree.switches)))

    def check(self) -> None:
        """Check every distinct label now (ExportError), before a file is written."""
        for d, k in self.sizes.items():
            if k > 1:
                self._label(DOMAIN, unit_name(d))
        for sub in {n.sub_domain for n in self.ids if n.sub_domain and self.sizes[n.domain] > 1}:
            self._label(SUB_DOMAIN, unit_name(sub))
        if self.tree is not None:
            for chain in set(self.tree._tiers.values()):
                for t, sw in enumerate(chain):
                    self._label(TIER.format(t), sw)

    def _label(self, key: str, text: str) -> tuple[str, str]:
        got = self._checked.get((key, text))
        if got is None:
            got = self._checked[(key, text)] = (key, _value(text))
            check_label(*got)
        return got

    def items(self):
        """(host name, {key: value}) per node, in build order."""
        tree, sizes, label = self.tree, self.sizes, self._label
        tiers = [TIER.format(t) for t in range(8)]
        for n in self.ids:
            labels: dict[str, str] = {}
            if sizes[n.domain] > 1:
                labels.__setitem__(*label(DOMAIN, unit_name(n.domain)))
                if n.sub_domain:
                    labels.__setitem__(*label(SUB_DOMAIN, unit_name(n.sub_domain)))
            if tree is not None:
                for t, sw in enumerate(tree.tiers_of(n.name)):
                    while t >= len(tiers):
                        tiers.append(TIER.format(len(tiers)))
                    labels.__setitem__(*label(tiers[t], sw))
            yield n.name, labels


def k8s_export(rd: ResolvedDesign, pattern: str = DEFAULT_HOST_PATTERN,
               names: dict[str, str] | None = None) -> Export:
    """``k8s/labels.json`` and ``k8s/label-nodes.sh``; ExportError when no label applies.

    Both files are streamed, one node at a time (:class:`~infra.exports.common.ExportFile`),
    with the bytes ``json.dumps(doc, indent=1)`` and the line-per-node script give."""
    if not has_topology(rd):  # decided before any node is listed
        raise _nothing(rd)
    check_node_count(rd, "Kubernetes", "the labels repeat per pod: export a design with one or "
                     "a few pods of each kind (lower the 'build:' counts), or let topograph "
                     "label the live cluster")
    labels = _Labels(rd, pattern, names)
    if not labels.any():
        raise _nothing(rd)
    labels.check()
    return Export("k8s", (ExportFile("k8s/labels.json", stream=lambda: _json(rd, labels)),
                          ExportFile("k8s/label-nodes.sh", stream=lambda: _script(rd, labels))))


def _nothing(rd: ResolvedDesign) -> ExportError:
    return ExportError(f"{rd.file}: design {rd.name!r} has neither multi-node NVLink domains "
                       "nor a fabric, so no topology label applies",
                       hint="add a 'fabrics:' section")


def _json(rd: ResolvedDesign, labels: _Labels):
    """``json.dumps({"design", "source", "nodes"}, indent=1) + "\n"``, node by node."""
    enc = json.encoder.encode_basestring_ascii  # what json.dumps uses (ensure_ascii)
    yield f'{{\n "design": {enc(rd.name)},\n "source": {enc(rd.file.name)},\n "nodes": '
    first = True
    for node, lab in labels.items():
        head = "{\n  " if first else ",\n  "
        first = False
        if lab:
            body = ",\n   ".join(f"{enc(k)}: {enc(v)}" for k, v in lab.items())
            yield f"{head}{enc(node)}: {{\n   {body}\n  }}"
        else:
            yield f"{head}{enc(node)}: {{}}"
    yield "{}\n}\n" if first else "\n }\n}\n"


def _script(rd: ResolvedDesign, labels: _Labels):
    # generated text is data, never code: the name is escaped onto its one comment line,
    # every argument is shell-quoted (label values are checked too, but quoting holds
    # whatever a host-name pattern or a future label produces)
    yield ("#!/bin/sh\n"
           f"# Topology labels for {one_line(rd.name)} (infra export, topograph keys).\n"
           "# Node names must match the cluster's; re-run after a design change.\nset -e\n")
    quoted: dict[tuple[str, str], str] = {}
    for node, lab in labels.items():
        if lab:
            pairs = []
            for kv in lab.items():
                q = quoted.get(kv)
                if q is None:
                    q = quoted[kv] = shlex.quote(f"{kv[0]}={kv[1]}")
                pairs.append(q)
            yield f"kubectl label node {shlex.quote(node)} {' '.join(pairs)} --overwrite\n"
