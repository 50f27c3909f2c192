import Testing

@testable import Discovery

@Suite struct ZonedAddressTests {
  @Test func ipv6LinkLocalAddressGetsTheInterfaceAsZone() {
    #expect(zonedAddress("fe80::1", interfaceName: "eth0") == "fe80::1%eth0")
    #expect(
      zonedAddress("FEBF:0:0:0:0:0:0:1", interfaceName: "veth-b") == "FEBF:0:0:0:0:0:0:1%veth-b")
  }

  @Test func otherAddressesAreUnchanged() {
    #expect(zonedAddress("127.0.0.1", interfaceName: "lo") == "127.0.0.1")
    #expect(zonedAddress("fd00::2", interfaceName: "eth0") == "fd00::2")
    // fec0::/10 is site-local, not link-local.
    #expect(zonedAddress("fec0::1", interfaceName: "eth0") == "fec0::1")
    #expect(zonedAddress("fe8::1", interfaceName: "eth0") == "fe8::1")  // first group is 0x0fe8
    #expect(zonedAddress("::1", interfaceName: "lo") == "::1")
  }

  @Test func addressWithZoneOrWithoutInterfaceIsUnchanged() {
    #expect(zonedAddress("fe80::1%eth0", interfaceName: "eth1") == "fe80::1%eth0")
    #expect(zonedAddress("fe80::1", interfaceName: "") == "fe80::1")
  }
}
