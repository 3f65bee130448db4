import CGym2048
import Game2048Network
import TestSupport
import Testing

@testable import Gym2048C

/// The learner handle of gym2048.h: made from `g2048 train`'s settings and refused in its words, trained in steps,
/// its weights read, replaced and saved.
struct LearnerHandleTests {
    /// A small 3×3 network (one 4-tuple, no table), so that a test trains in milliseconds.
    static let small = #"{"rows": 3, "patterns": "0,1,2,3", "table_share": 0, "seed": 5}"#

    /// The handle made of `options`, or the call's status and message.
    static func make(_ options: String) -> (handle: Int64, status: g2048_status, message: String) {
        var handle: Int64 = 0
        let status = g2048LearnerMake(options, &handle)
        return (handle, status, status == G2048_OK ? "" : String(cString: g2048LastError()))
    }

    static func info(_ handle: Int64) throws -> [String: Int] {
        var text: UnsafePointer<CChar>? = nil
        try #require(g2048LearnerInfo(handle, &text) == G2048_OK)
        let info = String(cString: text!)
        var counts: [String: Int] = [:]
        for name in ["weights", "games", "rows", "cols"] {
            let tail = info.split(separator: "\"\(name)\":", maxSplits: 1).last!
            counts[name] = Int(tail.prefix { $0.isNumber })
        }
        return counts
    }

    @Test(arguments: [
        (#"{"alpha": 2}"#, "invalid params: alpha must be a number from 1e-09 to 1.0, got 2"),
        (#"{"lanes": 0}"#, "invalid params: lanes must be an integer from 1 to 64, got 0"),
        (#"{"learning": "sarsa"}"#, #"invalid params: learning must be one of "td", "tc", "otd+tc", got "sarsa""#),
        (#"{"rows": 3, "network": "8x6"}"#, "invalid params: --network 8x6 is a network for 4x4 boards, not 3x3; give other boards --patterns"),
        (#"{"learning": "tc", "alpha": 0.1}"#, "invalid params: --alpha is TD's learning rate; --learning tc uses --tc-alpha"),
        (#"{"stages": "3"}"#, "invalid params: --stages takes tiles, powers of two from 4 to 32768 on a 4x4 board, separated by commas; got '3' in '3'"),
        (#"{"stage_boards": "halved"}"#, #"invalid params: stage_boards must be one of "plain", "downgraded", got "halved""#),
        (#"{"stage_boards": "downgraded"}"#, "invalid params: --stage-boards downgraded reads the boards of the stages past the first; it needs --stages"),
        (#"{"restart": 1}"#, "invalid params: restart must be a number from 0.0 to 0.99, got 1"),
        (#"{"restart_from": 96}"#, "invalid params: --restart-from must be a power of two, got 96"),
        (#"{"restart_from": 2251799813685248}"#, "invalid params: restart_from must be an integer from 4 to 1125899906842624, got 2251799813685248"),
        (#"{"restart_from": "8192"}"#, #"invalid params: restart_from must be an integer from 4 to 1125899906842624, got "8192""#),
        (#"{"epochs": 3}"#, "invalid params: unknown option 'epochs'; options are " + LearnerOptions.names.joined(separator: ", ")),
        (
            #"{"resume": "/nonexistent/w.bin", "optimistic": 1}"#,
            "invalid params: --optimistic sets the weights of a new network; --resume /nonexistent/w.bin continues the weights it holds"
        ),
    ])
    func badSettingsAreRefusedInTheCommandsWords(options: String, message: String) {
        let made = Self.make(options)
        #expect(made.status == G2048_INVALID_ARGUMENT)
        #expect(made.message == message)
    }

    /// The documented largest restart chance and tile are taken.
    @Test func theLargestRestartSettingsAreTaken() {
        let made = Self.make(#"{"rows": 3, "restart": 0.99, "restart_from": 1125899906842624}"#)
        #expect(made.status == G2048_OK, "\(made.message)")
        #expect(g2048_learner_destroy(made.handle) == G2048_OK)
    }

    @Test func aDestroyedOrInventedHandleIsRefused() throws {
        let made = Self.make(Self.small)
        try #require(made.status == G2048_OK)
        #expect(g2048LearnerDestroy(made.handle) == G2048_OK)
        var report: UnsafePointer<CChar>? = nil
        for handle in [made.handle, 987_654_321] {
            #expect(g2048LearnerTrain(handle, 1, 0, 1, &report) == G2048_INVALID_HANDLE)
            #expect(g2048LearnerSave(handle, "/tmp/never.bin") == G2048_INVALID_HANDLE)
            #expect(g2048LearnerDestroy(handle) == G2048_INVALID_HANDLE)
        }
        // A player's or a session's handle is no learner's.
        var session: Int64 = 0
        try #require(g2048Make(nil, &session) == G2048_OK)
        #expect(g2048LearnerTrain(session, 1, 0, 1, &report) == G2048_INVALID_HANDLE)
        #expect(g2048Destroy(session) == G2048_OK)
    }

    @Test func trainingCountsItsGamesAndRefusesNoLimit() throws {
        let made = Self.make(Self.small)
        try #require(made.status == G2048_OK)
        defer { _ = g2048LearnerDestroy(made.handle) }
        var report: UnsafePointer<CChar>? = nil
        #expect(g2048LearnerTrain(made.handle, 0, 0, 1, &report) == G2048_INVALID_ARGUMENT)
        #expect(g2048LearnerTrain(made.handle, 5, 0, 0, &report) == G2048_INVALID_ARGUMENT)
        #expect(g2048LearnerTrain(made.handle, 7, 0, 1, &report) == G2048_OK)
        #expect(String(cString: report!).contains(#""games":7,"#))
        #expect(g2048LearnerTrain(made.handle, 5, 0, 1, &report) == G2048_OK)
        let info = try Self.info(made.handle)
        #expect(info["games"] == 12 && info["rows"] == 3 && info["cols"] == 3)
    }

    @Test func weightsRoundTripAndSaveAsATrainingFile() throws {
        let made = Self.make(Self.small)
        try #require(made.status == G2048_OK)
        defer { _ = g2048LearnerDestroy(made.handle) }
        let count = try #require(try Self.info(made.handle)["weights"])
        var weights = [Float](repeating: 0, count: count)
        #expect(g2048LearnerWeights(made.handle, &weights, Int64(count - 1)) == G2048_INVALID_ARGUMENT)
        #expect(g2048LearnerWeights(made.handle, &weights, Int64(count)) == G2048_OK)
        let changed = weights.indices.map { Float($0) / 7 }
        #expect(g2048LearnerSetWeights(made.handle, changed, Int64(count)) == G2048_OK)
        #expect(g2048LearnerWeights(made.handle, &weights, Int64(count)) == G2048_OK)
        #expect(weights == changed)
        let folder = TemporaryDirectory()
        #expect(g2048LearnerSave(made.handle, folder.file("w.bin")) == G2048_OK)
        let (network, metadata) = try WeightsFile.load(from: folder.file("w.bin"))
        #expect((0..<count).allSatisfy { network.weights[$0] == changed[$0] })
        #expect(metadata.seed == 5 && metadata.games == 0)
    }
}

extension LearnerHandleTests {
    @Test func aDeltaIsWhatMovedSinceTheLastExport() throws {
        let made = Self.make(Self.small)
        try #require(made.status == G2048_OK)
        defer { _ = g2048LearnerDestroy(made.handle) }
        var count: Int64 = -1
        #expect(g2048LearnerDelta(made.handle, nil, nil, 0, &count) == G2048_INVALID_ARGUMENT)
        let total = try #require(try Self.info(made.handle)["weights"])
        var before = [Float](repeating: 0, count: total)
        #expect(g2048LearnerWeights(made.handle, &before, Int64(total)) == G2048_OK)
        var report: UnsafePointer<CChar>? = nil
        #expect(g2048LearnerTrain(made.handle, 10, 0, 1, &report) == G2048_OK)
        // Too little room: the count only, and the export stays.
        #expect(g2048LearnerDelta(made.handle, nil, nil, 0, &count) == G2048_OK)
        let moved = Int(count)
        #expect(moved > 0)
        var (indices, changes) = ([Int64](repeating: 0, count: moved), [Float](repeating: 0, count: moved))
        #expect(g2048LearnerDelta(made.handle, &indices, &changes, Int64(moved), &count) == G2048_OK)
        #expect(Int(count) == moved)
        var after = [Float](repeating: 0, count: total)
        #expect(g2048LearnerWeights(made.handle, &after, Int64(total)) == G2048_OK)
        for (index, change) in zip(indices, changes) { before[Int(index)] += change }
        // Then plus the change is now, to a rounding.
        #expect(zip(before, after).allSatisfy { abs($0 - $1) <= 1e-6 * max(1, abs($1)) })
        #expect(g2048LearnerDelta(made.handle, nil, nil, 0, &count) == G2048_OK && count == 0)
    }
}
