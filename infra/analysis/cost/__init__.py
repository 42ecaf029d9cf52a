"""Cost: bill of materials, capex, TCO, design comparison and target sizing."""
