"""An over-subscribed leaf that is not full gets the uplinks its used ports need."""

from infra.analysis.network.fat_tree import size_fat_tree


def test_two_to_one_leaf_of_a_32_node_su():
    """DGX H100 SU: 32 nodes, 8 rails, QM9700 (radix 64). At 2:1 a full leaf would split
    42 down / 22 up, but each rail's leaf uses 32 down ports, so 32 / 2 = 16 uplinks:
    8 leaves x 16 = 128 uplinks = 2 spines of 64 ports (1:1: 8 x 32 = 256 = 4 spines)."""
    two = size_fat_tree([(32, 1)], 8, "rail_optimized", [64, 64], [2, 1], ["leaf", "spine"])
    one = size_fat_tree([(32, 1)], 8, "rail_optimized", [64, 64], [1, 1], ["leaf", "spine"])
    assert [(t.role, t.switches) for t in two.tiers] == [("leaf", 8), ("spine", 2)]
    assert two.tiers[0].up_ports == 16
    assert [(t.role, t.switches) for t in one.tiers] == [("leaf", 8), ("spine", 4)]


def test_a_full_two_to_one_leaf_keeps_the_radix_split():
    """84 nodes on one rail at 2:1: 42 down per leaf, 2 leaves per rail, 22 uplinks each
    (42 used of 42: the split of the radix stands)."""
    t = size_fat_tree([(84, 1)], 1, "rail_optimized", [64, 64], [2, 1], ["leaf", "spine"])
    assert t.tiers[0].switches == 2 and t.tiers[0].up_ports == 22
