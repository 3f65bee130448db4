import Foundation
import Game2048
import GymJSON
import GymSystem
import Testing
@testable import g2048

struct BenchCommandTests {
    @Test func defaultsMeasureTheStandardSet() throws {
        let command = try BenchCommand(parseArguments([], spec: BenchCommand.spec))
        #expect(command.cases.map(\.rules.sizeLabel) == ["4x4", "3x3", "6x6", "4x4"])
        #expect(command.cases.map(\.envs) == [1, 1, 1, 1024])
        #expect(command.budget == .seconds(2))
        #expect(!command.json)
    }

    @Test func rowsAloneMeansASquareBoard() throws {
        let command = try BenchCommand(parseArguments(["--rows", "5", "--envs", "8"], spec: BenchCommand.spec))
        #expect(
            command.cases == [
                BenchCommand.Case(rules: try Rules(rows: 5, cols: 5), envs: 1),
                BenchCommand.Case(rules: try Rules(rows: 5, cols: 5), envs: 8),
            ])
    }

    @Test(arguments: [
        (["--rows", "99"], "--rows must be an integer from 2 to 8, got 99"),
        (["--rows", "4", "--cols", "1"], "--cols must be an integer from 2 to 8, got 1"),
        (["--envs", "0"], "--envs must be an integer from 1 to 1000000, got 0"),
        (["--seconds", "0"], "--seconds must be a number from 0.01 to 3600.0, got 0"),
        (["--seed", "x"], "--seed must be an integer from 0 to 18446744073709551615, got 'x'"),
        (["--steps", "0"], "--steps must be an integer from 1 to 1000000000000, got 0"),
        (["--steps", "5", "--seconds", "1"], "give --steps or --seconds, not both: a measurement runs for one"),
        (["--only", "vector"], "--only needs --rows (and --cols): the board it measures"),
        (["--rows", "4", "--only", "both"], "--only must be one of single, vector, got 'both'"),
    ])
    func outOfRangeOptionsAreUsageErrors(arguments: [String], message: String) {
        #expect(throws: UsageError(message)) { try BenchCommand(parseArguments(arguments, spec: BenchCommand.spec)) }
    }

    @Test func recordsFormatAsTheDocumentedJSON() throws {
        let record = BenchRecord(board: "4x4", envs: 1, steps: 1_000, episodes: 10, wallSeconds: 0.5, cpuSeconds: 0.25, checksum: 42)
        let text = record.json.serialized
        #expect(
            text.hasPrefix(
                #"{"board":"4x4","envs":1,"steps_per_second":2000,"steps_per_cpu_second":4000,"episodes_per_second":20,"mean_episode_length":100.0,"steps":1000,"cpu_seconds":0.25,"checksum":42,"machine":{"cpu":"#
            ))
        // The machine: its model, the first CPU's caches as Linux describes them, and the vector lanes' instructions.
        let machine = try #require(try JSONValue.parse(Array(text.utf8)).object?.first { $0.0 == "machine" }?.1.object)
        #expect(machine.map(\.0) == ["cpu", "cpus", "cache_bytes", "vector_lanes"])
        #expect(machine[1].1 == .integer(Int128(SystemInfo.processorCount)))
        #expect(machine[3].1 == .string(VectorEnvironment.laneInstructions.rawValue))
        #expect(["avx512", "scalar"].contains(VectorEnvironment.laneInstructions.rawValue))
        if FileManager.default.fileExists(atPath: "/sys/devices/system/cpu/cpu0/cache/index0/size") {
            #expect(text.contains(#""L1d":"#) && SystemInfo.caches.allSatisfy { $0.bytes >= 1024 })
        }
    }

    @Test func aFixedNumberOfStepsIsTheSameWorkOnEveryRun() throws {
        let command = try BenchCommand(parseArguments(["--rows", "4", "--envs", "8", "--only", "vector", "--steps", "100"], spec: BenchCommand.spec))
        #expect(command.cases == [BenchCommand.Case(rules: Rules(), envs: 8)] && command.budget == .steps(100))
        let single = try BenchCommand(parseArguments(["--rows", "3", "--only", "single"], spec: BenchCommand.spec))
        #expect(single.cases.map(\.envs) == [1])
        // Whole blocks: 65 536 steps for one environment, 16 steps of every environment for a vector.
        let a = BenchRecord.measureSingle(rules: Rules(), budget: .steps(70_000), seed: 4)
        let b = BenchRecord.measureSingle(rules: Rules(), budget: .steps(70_000), seed: 4)
        #expect(a.steps == 131_072 && a.steps == b.steps && a.checksum == b.checksum)
        let vector = BenchRecord.measureVector(rules: Rules(), envs: 8, budget: .steps(100), seed: 4)
        #expect(vector.steps == 128)
    }

    /// A busy machine once printed 21.48 M (wall) beside 44.69 M (CPU) while the README said the two agree: the
    /// table says when they do not, and which to compare.
    @Test func theTableSaysWhenTheWallTimeCountsAWait() {
        func record(cpu: Double) -> BenchRecord {
            BenchRecord(board: "4x4", envs: 1, steps: 1_000, episodes: 10, wallSeconds: 1, cpuSeconds: cpu, checksum: 1)
        }
        let busy = BenchRecord.table([record(cpu: 0.48)], header: "h")
        #expect(
            busy.hasSuffix(
                "note: the benchmark had a CPU 48 % of the wall time (the machine is busy, or this process was throttled):\nthe wall figures count the wait; compare the CPU figures."
            ))
        #expect(!BenchRecord.table([record(cpu: 0.99)], header: "h").contains("note:"))
    }

    @Test func measurementsPlayRealEpisodes() {
        let single = BenchRecord.measureSingle(rules: try! Rules(rows: 3, cols: 3), budget: .seconds(0.01), seed: 3)
        #expect(single.steps >= 1 << 16)
        #expect(single.episodes > 0)
        // A random game on 3x3 lasts tens of moves, never thousands.
        #expect(single.meanEpisodeLength > 5 && single.meanEpisodeLength < 500)
        let vector = BenchRecord.measureVector(rules: Rules(), envs: 4, budget: .seconds(0.01), seed: 3)
        #expect(vector.steps % 64 == 0 && vector.steps > 0)
    }

    @Test func measurementsAreDeterministicForASeed() {
        let a = BenchRecord.measureSingle(rules: try! Rules(rows: 3, cols: 3), budget: .seconds(0.001), seed: 9)
        let b = BenchRecord.measureSingle(rules: try! Rules(rows: 3, cols: 3), budget: .seconds(0.001), seed: 9)
        #expect(a.steps == b.steps && a.checksum == b.checksum && a.episodes == b.episodes)
    }
}
