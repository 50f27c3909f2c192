// Text a peer wrote is part of Wire's vocabulary (every name, reason and message a message
// carries is one), re-exported so that Wire's clients use it without importing TextEscaping.
@_exported import struct TextEscaping.PeerText
