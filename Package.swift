// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "share",
  products: [
    .executable(name: "share", targets: ["share"])
  ],
  targets: [
    // C libraries from Debian, wrapped as system library targets.
    .systemLibrary(
      name: "COpenSSL", pkgConfig: "openssl",
      providers: [.apt(["libssl-dev"])]),
    .systemLibrary(
      name: "CAvahi", pkgConfig: "avahi-client",
      providers: [.apt(["libavahi-client-dev"])]),
    .systemLibrary(
      name: "CMagic", pkgConfig: "libmagic",
      providers: [.apt(["libmagic-dev"])]),
    .systemLibrary(
      name: "CZlib", pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]),

    // Linux calls Swift's Glibc module leaves out (renameat2, syncfs, ...); only System uses it.
    .target(name: "CLinux"),
    // The one layer over libc: Errno, FileDescriptor, durable writes, locks, sockets.
    .target(name: "System", dependencies: ["CLinux", "TextEscaping"]),

    // Leaves: each wraps one concern and knows nothing of the layers above it.
    .target(name: "TextEscaping"),
    .target(name: "UniformTypes", dependencies: ["CMagic", "CZlib", "COpenSSL", "System", "TextEscaping"]),
    .target(name: "InboxStore", dependencies: ["System", "TextEscaping", "UniformTypes"]),
    .target(name: "Wire", dependencies: ["TextEscaping"]),
    .target(name: "TLS", dependencies: ["COpenSSL", "System"]),
    .target(name: "Discovery", dependencies: ["CAvahi", "TextEscaping"]),
    // LocalSend protocol v2: strict HTTP/1.1, messages, HTTPS server and client, multicast.
    .target(name: "LocalSend", dependencies: ["TLS", "System"], exclude: ["README.md"]),

    // Composition: sender, receiver, policy, paths.
    .target(
      name: "ShareKit",
      dependencies: ["UniformTypes", "InboxStore", "Wire", "TLS", "Discovery", "System", "TextEscaping", "LocalSend"]),

    // The command-line tool: everything in a library (tested in process), and a three-line main.
    // The man page's prose is the README's, embedded at build time by the EmbedDocuments plugin.
    .target(
      name: "ShareCLI", dependencies: ["ShareKit"],
      plugins: ["EmbedDocuments"]),
    .executableTarget(name: "EmbedDocumentsTool"),
    .plugin(name: "EmbedDocuments", capability: .buildTool(), dependencies: ["EmbedDocumentsTool"]),
    .executableTarget(name: "share", dependencies: ["ShareCLI"]),

    .testTarget(name: "SystemTests", dependencies: ["System", "TextEscaping"]),
    .testTarget(name: "TextEscapingTests", dependencies: ["TextEscaping"]),
    .testTarget(name: "UniformTypesTests", dependencies: ["UniformTypes", "System"]),
    .testTarget(name: "InboxStoreTests", dependencies: ["InboxStore", "System", "TextEscaping", "UniformTypes"]),
    .testTarget(name: "WireTests", dependencies: ["Wire"]),
    .testTarget(name: "TLSTests", dependencies: ["TLS", "System"]),
    .testTarget(name: "DiscoveryTests", dependencies: ["Discovery", "TextEscaping"]),
    .testTarget(name: "ShareKitTests", dependencies: ["ShareKit", "InboxStore", "TLS", "Wire", "System", "UniformTypes", "LocalSend"]),
    .testTarget(name: "EndToEndTests", dependencies: ["ShareKit", "TLS", "Wire", "System", "LocalsendCLIHarness"]),
    .testTarget(name: "ShareCLITests", dependencies: ["ShareCLI", "InboxStore"]),
    .testTarget(name: "LocalSendTests", dependencies: ["LocalSend", "TLS", "System", "LocalsendCLIHarness"]),
    // Installs and runs localsend-cli (PyPI) for the tests that talk to it.
    .target(name: "LocalsendCLIHarness", path: "Tests/LocalsendCLIHarness"),
  ],
  swiftLanguageModes: [.v6]
)

// Every Swift target is built with the same upcoming language features: existentials spelled
// `any`, and a file sees only the members of the modules it imports itself.
for target in package.targets where [.regular, .executable, .test].contains(target.type) && target.name != "CLinux" {
  target.swiftSettings =
    (target.swiftSettings ?? []) + [
      .enableUpcomingFeature("ExistentialAny"),
      .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
