"""Networks: scale-out fabrics, PCIe contention, bandwidth per GPU, host topology, scheduler topology."""
