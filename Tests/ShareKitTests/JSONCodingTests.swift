import Foundation
import Testing

@testable import ShareKit

/// share's decoder reads dates exactly as JSONDecoder's `.iso8601` strategy does — the common
/// shape without Foundation's calendar (which loads ICU's time-zone data), any other through it.
@Suite struct JSONCodingTests {
  struct Stamped: Codable, Equatable { var at: Date }

  static let texts = [
    "2026-12-01T09:30:00Z", "1970-01-01T00:00:00Z", "2024-02-29T23:59:59Z", "2025-02-29T12:00:00Z", "2026-02-30T00:00:00Z",
    "2016-12-31T23:59:60Z", "2026-12-01T09:30:00+02:00", "2026-12-01T09:30:00.250Z", "2026-12-01T24:00:00Z",
    "2026-13-01T00:00:00Z", "2026-12-01 09:30:00Z", "2026-12-01T09:30:00z", "not a date", "",
  ]

  @Test(arguments: texts) func readsADateAsTheISO8601StrategyDoes(text: String) throws {
    let json = Data("{\"at\":\"\(text)\"}".utf8)
    let reference = JSONDecoder()
    reference.dateDecodingStrategy = .iso8601
    let expected = try? reference.decode(Stamped.self, from: json)
    let decoded = try? JSONCoding.decoder().decode(Stamped.self, from: json)
    #expect(decoded == expected, "\(text): \(String(describing: decoded)) vs \(String(describing: expected))")
  }

  @Test func readsBackWhatTheEncoderWrites() throws {
    let stamped = Stamped(at: Date(timeIntervalSince1970: 1_764_581_400))
    let data = try JSONCoding.encoder().encode(stamped)
    #expect(String(decoding: data, as: UTF8.self) == "{\"at\":\"2025-12-01T09:30:00Z\"}")
    #expect(try JSONCoding.decoder().decode(Stamped.self, from: data) == stamped)
  }
}
