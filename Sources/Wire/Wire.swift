// Placeholder until the Wire layer lands.
