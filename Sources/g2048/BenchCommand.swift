import Game2048
import GymJSON
import GymSystem

/// `g2048 bench`: environment steps per second under a random legal-action agent.
struct BenchCommand: Command {
    static let spec = CommandSpec(
        name: "bench",
        abstract: "Measure environment steps per second with a random legal-action agent.",
        discussion: """
            Every step includes the move, the spawn and the action mask of the new state. Without
            --rows/--cols it measures one environment on 4x4, 3x3 and 6x6, and a vector of --envs
            environments on 4x4. Build with -c release: swift run -c release g2048 bench

            --steps N runs a fixed amount of work instead of a time: each measurement steps until it has taken
            at least N steps (whole blocks of 65536 steps for one environment, of 16 steps of every environment
            for a vector), the same count on every run. Count its instructions (valgrind --tool=cachegrind, or
            perf stat -e instructions:u) at two step counts, and their difference over the steps between is the
            cost of a step, whatever else the machine is doing (Benchmarks/ab.sh does).

            The JSON records carry the CPU model and the first CPU's cache sizes beside the figures: ratios
            measured on one machine hold for its CPU and caches.
            """,
        options: [
            GameFlag.option.spec, Self.rows.spec, Self.cols.spec, Self.envs.spec, Self.only.spec, Self.seconds.spec, Self.steps.spec,
            Self.seed.spec, Self.json.spec,
        ])

    static let rows = CommandOption.boardSize(RulesOption.rows, help: "Measure only boards with this many rows (2 to 8).")
        .shown("the standard set")
    static let cols = CommandOption.boardSize(RulesOption.cols, help: "Measure only boards with this many columns (2 to 8).")
        .shown("--rows")
    static let envs = CommandOption.integer("envs", help: "Environments in the vector measurement.", in: 1...1_000_000).defaulting(to: 1024)
    static let seconds = CommandOption.number("seconds", "s", help: "Wall-clock seconds per measurement.", in: 0.01...3600).defaulting(to: 2)
    static let only = CommandOption.choice(
        "only", "kind", help: "Measure one kind alone: single (one environment) or vector (--envs environments).", of: BenchKind.self
    )
    .shown("both")
    static let steps = CommandOption.integer(
        "steps", help: "Step at least this many steps per measurement instead of for --seconds.", in: 1...1_000_000_000_000)
    static let seed = CommandOption.seed(help: "Seed of the environments and the agent.").defaulting(to: 1)
    static let json = CommandOption.flag("json", help: "Print one JSON array of records instead of a table.")

    /// One measured configuration.
    struct Case: Equatable {
        var rules: Rules
        var envs: Int
    }

    var cases: [Case]
    var budget: BenchBudget
    var seed: UInt64
    var json: Bool

    init(_ arguments: ParsedArguments) throws(UsageError) {
        budget = try BenchBudget(arguments)
        seed = try arguments[Self.seed]
        json = try arguments[Self.json]
        let envs = try arguments[Self.envs]
        if let size = try arguments.boardSize(rows: Self.rows, cols: Self.cols) {
            let rules: Rules
            do { rules = try Rules(rows: size.rows, cols: size.cols) } catch { throw UsageError(error) }
            cases = [Case(rules: rules, envs: 1), Case(rules: rules, envs: envs)]
            switch try arguments[Self.only] {
            case .single?: cases.removeLast()
            case .vector?: cases.removeFirst()
            case nil: break
            }
        } else {
            if arguments.contains(Self.only) { throw UsageError("--only needs --rows (and --cols): the board it measures") }
            cases = [
                Case(rules: Rules(), envs: 1),
                Case(rules: try! Rules(rows: 3, cols: 3), envs: 1),
                Case(rules: try! Rules(rows: 6, cols: 6), envs: 1),
                Case(rules: Rules(), envs: envs),
            ]
        }
    }

    func run() throws -> Int32 {
        #if DEBUG
        Console.error("warning: this is a debug build; measure with 'swift run -c release g2048 bench'")
        #endif
        var records: [BenchRecord] = []
        for benchCase in cases {
            Console.error("measuring \(benchCase.rules.sizeLabel) with \(benchCase.envs) environment\(benchCase.envs == 1 ? "" : "s") for \(budget) …")
            let record =
                benchCase.envs == 1
                ? BenchRecord.measureSingle(rules: benchCase.rules, budget: budget, seed: seed)
                : BenchRecord.measureVector(rules: benchCase.rules, envs: benchCase.envs, budget: budget, seed: seed)
            records.append(record)
        }
        if json {
            Console.output(JSONValue.array(records.map(\.json)).serialized)
        } else {
            Console.output(BenchRecord.table(records, header: BenchRecord.machineSummary(budget: budget)))
        }
        return ExitCode.success
    }
}

/// The figures of one benchmark configuration.
struct BenchRecord: Equatable {
    var board: String
    var envs: Int
    var steps: Int
    var episodes: Int
    var wallSeconds: Double
    var cpuSeconds: Double
    /// The sum of rewards and observed cells: printed so the optimizer cannot drop the work.
    var checksum: Int64

    var stepsPerSecond: Double { Double(steps) / wallSeconds }
    var stepsPerCPUSecond: Double { Double(steps) / cpuSeconds }
    var episodesPerSecond: Double { Double(episodes) / wallSeconds }
    var meanEpisodeLength: Double { episodes == 0 ? Double(steps) : Double(steps) / Double(episodes) }

    /// The record in the JSON shape docs/CLI.md documents.
    var json: JSONValue {
        .object([
            ("board", .string(board)), ("envs", .integer(Int128(envs))), ("steps_per_second", .integer(Int128(stepsPerSecond.rounded()))),
            ("steps_per_cpu_second", .integer(Int128(stepsPerCPUSecond.rounded()))),
            ("episodes_per_second", .integer(Int128(episodesPerSecond.rounded()))),
            ("mean_episode_length", .double((meanEpisodeLength * 10).rounded() / 10)), ("steps", .integer(Int128(steps))),
            ("cpu_seconds", .double(cpuSeconds)), ("checksum", .integer(Int128(checksum))),
            // And the instructions a 4×4 vector's lanes move on here: `avx512` or `scalar`.
            ("machine", .object(Self.machine + [("vector_lanes", .string(VectorEnvironment.laneInstructions.rawValue))])),
        ])
    }

    /// Where a figure was measured, for every game's bench: the CPU model, its count and the first CPU's caches.
    static var machine: [(String, JSONValue)] {
        [
            ("cpu", .string(SystemInfo.processorModel ?? "unknown")), ("cpus", .integer(Int128(SystemInfo.processorCount))),
            ("cache_bytes", .object(SystemInfo.caches.map { ($0.name, .integer(Int128($0.bytes))) })),
        ]
    }

    /// One environment stepped through `Environment.step`, the public API.
    static func measureSingle(rules: Rules, budget: BenchBudget, seed: UInt64) -> BenchRecord {
        var env = Environment(rules: rules)
        var agent = Xoshiro256StarStar(seed: seed ^ 0x5EED_A6E7)
        var mask = env.reset(seed: seed).info.actionMask
        var steps = 0, episodes = 0
        var checksum: Int64 = 0
        let clock = Stopwatch()
        repeat {
            for _ in 0..<(1 << 16) {
                let action = mask.direction(at: agent.uniform(below: mask.count))
                // Under the default `.noop` policy a step never throws.
                let step = try! env.step(action)
                checksum &+= step.reward &+ Int64(step.observation[0]) &+ Int64(step.info.maxTile)
                if step.terminated || step.truncated {
                    episodes += 1
                    mask = env.reset().info.actionMask
                } else {
                    mask = step.info.actionMask
                }
            }
            steps += 1 << 16
        } while budget.continues(steps: steps, clock: clock)
        return BenchRecord(
            board: rules.sizeLabel, envs: 1, steps: steps, episodes: episodes,
            wallSeconds: clock.wall, cpuSeconds: clock.cpu, checksum: blackHole(checksum))
    }

    /// A `VectorEnvironment` of `envs` environments with next-step autoreset.
    static func measureVector(rules: Rules, envs: Int, budget: BenchBudget, seed: UInt64) -> BenchRecord {
        // The fields a learner reads: what gym2048's make_vec asks for by default.
        var vector = VectorEnvironment(rules: rules, count: envs, infoFields: [.actionMask, .score])
        var agent = Xoshiro256StarStar(seed: seed ^ 0x5EED_A6E7)
        vector.reset(seed: seed)
        var actions = [Direction](repeating: .up, count: envs)
        var steps = 0, episodes = 0
        var checksum: Int64 = 0
        // One pass over the lanes a step: the last step's results into the checksum, and the next actions. The
        // generator and the sums are locals of the pass and every column a raw buffer, so that the agent costs a
        // lane what it costs the single environment (captured variables live in memory, and checked indexing
        // made it about sixty instructions a lane against the single environment's thirty).
        func visitResults(counting: Bool) {
            let masks = vector.infoColumns.actionMasks, rewards = vector.rewards
            let terminations = vector.terminations, truncations = vector.truncations
            var generator = agent, sum: Int64 = 0, ended = 0
            masks.withUnsafeBufferPointer { masks in
                rewards.withUnsafeBufferPointer { rewards in
                    terminations.withUnsafeBufferPointer { terminations in
                        truncations.withUnsafeBufferPointer { truncations in
                            actions.withUnsafeMutableBufferPointer { actions in
                                for index in 0..<envs {
                                    if counting {
                                        sum &+= rewards[index]
                                        if terminations[index] || truncations[index] { ended &+= 1 }
                                    }
                                    let mask = ActionMask(rawValue: masks[index])
                                    // An environment waiting for its autoreset has an empty mask; its action is ignored.
                                    actions[index] = mask.isEmpty ? .up : mask.direction(at: generator.uniform(below: mask.count))
                                }
                            }
                        }
                    }
                }
            }
            agent = generator
            if counting {
                checksum &+= sum &+ Int64(vector.observations[0])
                episodes += ended
            }
        }
        visitResults(counting: false)
        let clock = Stopwatch()
        repeat {
            for _ in 0..<16 {
                try! vector.step(actions)
                visitResults(counting: true)
            }
            steps += 16 * envs
        } while budget.continues(steps: steps, clock: clock)
        return BenchRecord(
            board: rules.sizeLabel, envs: envs, steps: steps, episodes: episodes,
            wallSeconds: clock.wall, cpuSeconds: clock.cpu, checksum: blackHole(checksum))
    }

    /// A text table of records under a header line.
    static func table(_ records: [BenchRecord], header: String) -> String {
        func millions(_ x: Double) -> String { formatFixed(x / 1e6, digits: 2) + " M" }
        let columns = ["board", "envs", "steps/s (wall)", "steps/s (CPU)", "episodes/s", "mean length", "checksum"]
        let widths = [7, 6, 16, 15, 12, 13, 0]
        func row(_ cells: [String]) -> String {
            zip(cells, widths).map { $1 == 0 ? $0 : $0.padding($1) }.joined().trimmingCharacters()
        }
        var lines = [header, "", row(columns)]
        for r in records {
            lines.append(
                row([
                    r.board, String(r.envs), millions(r.stepsPerSecond), millions(r.stepsPerCPUSecond),
                    formatFixed(r.episodesPerSecond, digits: 0), formatFixed(r.meanEpisodeLength, digits: 1),
                    String(r.checksum),
                ]))
        }
        if let share = cpuShare(records) {
            lines += [
                "",
                "note: the benchmark had a CPU \(formatFixed(100 * share, digits: 0)) % of the wall time (the machine is busy, "
                    + "or this process was throttled):", "the wall figures count the wait; compare the CPU figures.",
            ]
        }
        return lines.joined(separator: "\n")
    }

    /// The share of the wall time the measurements had a CPU, when it is below 95 %; `nil` when the two agree.
    static func cpuShare(_ records: [BenchRecord]) -> Double? {
        let wall = records.reduce(0) { $0 + $1.wallSeconds }, cpu = records.reduce(0) { $0 + $1.cpuSeconds }
        guard wall > 0, cpu < 0.95 * wall else { return nil }
        return cpu / wall
    }

    /// Build configuration, architecture, CPU model and core count.
    static func machineSummary(budget: BenchBudget) -> String {
        #if DEBUG
        let build = "debug"
        #else
        let build = "release"
        #endif
        let cpu = SystemInfo.processorModel ?? "unknown CPU"
        let caches = SystemInfo.caches.map { "\($0.name) \(byteSize($0.bytes))" }.joined(separator: ", ")
        return "g2048 bench: \(build) build, \(cpu)\(caches.isEmpty ? "" : " (\(caches))"), \(SystemInfo.processorCount) CPUs, "
            + "4x4 vector lanes in \(VectorEnvironment.laneInstructions.name), \(budget) per measurement"
    }
}

/// Keeps a value alive past the optimizer.
@inline(never)
func blackHole<T>(_ value: T) -> T { value }

/// Wall-clock and process CPU time since creation.
struct Stopwatch {
    let wallStart = SystemClock.monotonicSeconds()
    let cpuStart = SystemClock.processCPUSeconds()

    var wall: Double { SystemClock.monotonicSeconds() - wallStart }
    var cpu: Double { SystemClock.processCPUSeconds() - cpuStart }
}

extension StringProtocol {
    /// The text without leading and trailing whitespace.
    func trimmingCharacters() -> String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}

/// What a measurement runs for: a wall-clock time, or a number of steps (the same work on every run).
enum BenchBudget: Equatable, CustomStringConvertible {
    case seconds(Double)
    case steps(Int)

    /// The budget `--steps` or `--seconds` asks for (``BenchCommand/steps``, ``BenchCommand/seconds``: every bench's).
    init(_ arguments: ParsedArguments) throws(UsageError) {
        if let steps = try arguments[BenchCommand.steps] {
            if arguments.contains(BenchCommand.seconds) { throw UsageError("give --steps or --seconds, not both: a measurement runs for one") }
            self = .steps(steps)
        } else {
            self = .seconds(try arguments[BenchCommand.seconds])
        }
    }

    /// Whether a measurement that has taken `steps` steps goes on.
    func continues(steps: Int, clock: Stopwatch) -> Bool {
        switch self {
        case .seconds(let seconds): clock.wall < seconds
        case .steps(let target): steps < target
        }
    }

    var description: String {
        switch self {
        case .seconds(let seconds): "\(formatFixed(seconds, digits: seconds < 1 ? 2 : 1)) s"
        case .steps(let steps): "\(steps) steps"
        }
    }
}

/// What `--only` measures.
enum BenchKind: String, CaseIterable, Sendable {
    /// One environment, through `Environment.step`.
    case single
    /// The vector of `--envs` environments.
    case vector
}
