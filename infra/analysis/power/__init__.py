"""Power and heat: IT power per unit, rack and design, rack supply, cooling, published envelopes."""
