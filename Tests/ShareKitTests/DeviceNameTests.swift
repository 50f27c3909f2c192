import Testing

@testable import ShareKit

/// The default device name, and what a name may be.
@Suite struct DeviceNameTests {
  static let id = Fingerprint(hex: "3f2a9c01d5e4" + String(repeating: "0", count: 52))!

  @Test(arguments: [
    ("lab-b", "lab-b"), ("alices-laptop", "alices-laptop"),
    ("debian", "debian-3f2a"), ("Ubuntu", "Ubuntu-3f2a"), ("localhost", "localhost-3f2a"),
    ("localhost.localdomain", "localhost-3f2a"), ("raspberrypi.local", "raspberrypi-3f2a"), ("", "share-3f2a"),
    ("5d8c7e2a91b0", "share-3f2a"), (String(repeating: "ab", count: 32), "share-3f2a"),
  ])
  func aGenericHostNameGetsTheStartOfTheDeviceIDAdded(host: String, expected: String) {
    #expect(DeviceName.fallback(hostName: host, id: Self.id) == expected)
  }

  @Test func namesAreOneTo63BytesWithoutControlsOrOuterBlanks() {
    #expect(DeviceName.problem("lab-b") == nil)
    #expect(DeviceName.problem("Alice's laptop") == nil)
    #expect(DeviceName.problem(String(repeating: "é", count: 31)) == nil)
    #expect(DeviceName.problem(String(repeating: "é", count: 32)) != nil, "64 bytes")
    #expect(DeviceName.problem("") != nil)
    #expect(DeviceName.problem("a\u{1b}[31m") != nil)
    #expect(DeviceName.problem(" a") != nil && DeviceName.problem("a ") != nil)
  }
}
