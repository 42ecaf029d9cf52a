"""Analyses of a resolved design; each returns plain typed data that reports only format.

Folders by concern:

- ``power``: IT power per unit, rack and design, rack supply, cooling, published envelopes;
- ``network``: scale-out fabrics, PCIe contention, bandwidth per GPU, host and scheduler
  topology;
- ``reliability``: blast radius, availability, failures over time, checkpoint and goodput;
- ``cost``: bill of materials, capex, TCO, design comparison and target sizing;
- ``layout``: rack elevations and faces, network placement, node identities, cabling.

At the top: ``summary`` (runs every analysis and flattens the results), ``compute``
(GPUs, memory, FLOPS), ``limits`` (supported sizes) and ``validate``.
"""
