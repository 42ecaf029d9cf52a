"""Physical layout: rack elevations and faces, network placement, node identities, cabling."""
