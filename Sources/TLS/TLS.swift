// Placeholder until the TLS layer lands.
