// The leaves' value types that are part of ShareKit's own vocabulary, re-exported so that its
// clients (the CLI) import ShareKit alone. Services are wrapped instead (`Inbox`, `TypeGate`,
// `Contacts`), so that decisions stay in ShareKit.

// What `share inbox` lists.
@_exported import struct InboxStore.InboxItem
@_exported import struct InboxStore.ItemMetadata
// A device ID: the SHA-256 of a certificate's public key.
@_exported import struct TLS.Fingerprint
// Escaping of untrusted text for a terminal or a log.
@_exported import enum TextEscaping.Escaping
// JSON string literals written by hand (`share inbox list --json`).
@_exported import enum TextEscaping.JSONString
// Text a peer wrote: shown only escaped and cut.
@_exported import struct TextEscaping.PeerText
// Commands printed for a person to paste into a shell.
@_exported import enum TextEscaping.ShellWords
@_exported import struct UniformTypes.CheckReport
// What `share types accept|exclude|forget` change, and what a refusal suggests.
@_exported import struct UniformTypes.DeclarationEdit
@_exported import struct UniformTypes.DeclarationsReport
// "Did you mean": the nearest of some words.
@_exported import enum UniformTypes.Suggestions
@_exported import struct UniformTypes.TypeEditOutcome
// What `share types` reports.
@_exported import struct UniformTypes.TypeIdentifier
@_exported import struct UniformTypes.TypeReport
