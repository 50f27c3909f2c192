// Placeholder until the InboxStore layer lands.
