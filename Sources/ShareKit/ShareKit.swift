// Placeholder until the ShareKit layer lands.
