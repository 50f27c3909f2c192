import Testing

@testable import System

@Suite struct UTCTimestampTests {
  @Test func readsUTCWholeSeconds() {
    #expect(UTCTimestamp.seconds("1970-01-01T00:00:00Z") == 0)
    #expect(UTCTimestamp.seconds("2025-12-01T09:30:00Z") == 1_764_581_400)
    #expect(UTCTimestamp.seconds("2024-02-29T23:59:59Z") == 1_709_251_199)
  }

  @Test func declinesWhatIsNotExactlyThatShapeOrNotARealTime() {
    for text in [
      "2025-02-29T00:00:00Z", "2026-02-30T00:00:00Z", "2016-12-31T23:59:60Z", "2026-12-01T24:00:00Z", "2026-13-01T00:00:00Z",
      "2026-12-01T09:30:00+02:00", "2026-12-01T09:30:00.5Z", "2026-12-01 09:30:00Z", "2026-12-01T09:30:00z", "2026-1a-01T00:00:00Z", "",
    ] {
      #expect(UTCTimestamp.seconds(text) == nil, "\(text)")
    }
  }
}
