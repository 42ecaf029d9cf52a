"""Node and edge attribute names used by every topology graph (the one place they are
documented).

Node attributes
---------------
kind : str
    ``gpu``, ``cpu``, ``superchip``, ``nic``, ``pcie_switch``, ``c2c`` (the shared
    NVLink-C2C of one CPU), ``nvlink_switch_chip``, ``nvlink_switch_tray``,
    ``nvlink_backplane``, ``compute_tray``, ``rack``.
slug : str
    Catalog slug of the node's type (absent for ``c2c`` hubs).
network : str
    For NICs: ``scale_out``, ``front_end``, ``converged`` or ``management``.
tray, rack : str
    Instance names of the enclosing tray / rack in scale-up domain graphs.

Edge attributes
---------------
kind : str
    ``pcie``, ``c2c``, ``nvlink`` or ``contains`` (membership, no bandwidth).
gbyte_s : float
    Usable bandwidth per direction in GB/s (PCIe after encoding and TLP overhead, see
    :func:`infra.units.pcie_usable_gbyte_s`; NVLink = links x per-link rate).
gen, lanes : int
    PCIe generation as negotiated (the lower of the two ends) and width.
links : int
    Number of NVLink links the edge aggregates.
via : str
    The physical carrier an NVLink edge depends on (a rack's cable cartridge
    ``<rack>.backplane`` or the cross-rack cable set ``xrack``).
host_link : str
    The NIC host link a PCIe edge lands on (``gpu_side``...).
"""

KIND = "kind"
SLUG = "slug"
GBYTE_S = "gbyte_s"
GEN = "gen"
LANES = "lanes"
LINKS = "links"
VIA = "via"
HOST_LINK = "host_link"
NETWORK = "network"
