// Placeholder until the Discovery layer lands.
