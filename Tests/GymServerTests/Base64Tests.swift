import Foundation
import Testing
@testable import GymServer

struct Base64Tests {
    @Test(arguments: [[UInt8](), [0], [1, 2], [1, 2, 3], [255, 0, 17, 99, 1]])
    func base64RoundTrips(bytes: [UInt8]) {
        let text = Base64.encode(bytes)
        #expect(text.count == (bytes.count + 2) / 3 * 4)
        #expect(Base64.decode(text) == bytes)
    }

    @Test func base64MatchesRFC4648Vectors() {
        #expect(Base64.encode(Array("foobar".utf8)) == "Zm9vYmFy")
        #expect(Base64.encode(Array("fo".utf8)) == "Zm8=")
        #expect(Base64.decode("Zm9=v") == nil)
        #expect(Base64.decode("Z===") == nil)
    }

    /// Every byte value in every position of a group of three, at every length of padding, as Foundation encodes it.
    @Test func base64MatchesFoundationOnEveryByteValue() {
        for length in [765, 766, 767] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 256) }
            #expect(Base64.encode(bytes) == Data(bytes).base64EncodedString())
        }
    }
}
