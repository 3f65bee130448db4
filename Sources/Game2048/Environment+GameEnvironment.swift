import GymCore

/// 2048 through the contract every game shares: what the registry's generic path plays. The protocol, the C ABI
/// and Python serve 2048 through its own vector (``VectorEnvironment``), which plays the same games; the
/// generic path is the reference it is tested against.
extension Environment: GameEnvironment {
    /// Why the generic path refuses an action.
    public enum ActionError: Error, Hashable, Sendable, CustomStringConvertible {
        /// Not an action: 2048's are 0 to 3.
        case noSuchAction(Int)
        /// The move does not change the board, under `invalid_action` `reject`.
        case illegal(StepError)

        public var description: String {
            switch self {
            case .noSuchAction(let action): "action must be 0..3 (up, right, down, left), got \(action)"
            case .illegal(let error): error.description
            }
        }
    }

    /// The info columns of the generic path, in the order the protocol's info lists them.
    enum InfoColumn: Int, CaseIterable {
        case actionMask, score, maxTile, steps, won
    }

    /// Exponents in the board's shape, four directions, integer rewards from the invalid-move penalty to the
    /// most a move can merge.
    public static func space(of rules: Rules) -> GameSpace {
        let penalty: Int64 = if case .terminate(let p) = rules.invalidAction { p } else { 0 }
        return GameSpace(
            observation: .init(encoding: "exponents", shape: [rules.rows, rules.cols], type: .uint8, low: 0, high: Int(rules.largestExponent)),
            actionCount: Direction.allCases.count, actionNames: Direction.allCases.map(\.name),
            rewardRange: Double(-penalty)...(Double(rules.cellCount / 2) * Double(Int128(1) << rules.largestExponent)), rewardType: .int64,
            info: [
                ResultColumn(name: InfoField.actionMask.rawValue, type: .bool, width: Direction.allCases.count),
                ResultColumn(name: InfoField.score.rawValue, type: .int64), ResultColumn(name: InfoField.maxTile.rawValue, type: .int64),
                ResultColumn(name: InfoField.steps.rawValue, type: .int64), ResultColumn(name: InfoField.won.rawValue, type: .bool),
            ])
    }

    public var phase: EpisodePhase { currentPhase }

    public func check(_ action: Int) throws(ActionError) {
        guard let direction = Direction(rawValue: action) else { throw .noSuchAction(action) }
        if case .reject = rules.invalidAction, !actionMask.contains(direction) { throw .illegal(.illegalAction(direction)) }
    }

    public mutating func advance(_ action: Int) -> StepOutcome {
        // `check` passed: the action is a direction, and a legal one under `reject`.
        guard let step = try? step(Direction(rawValue: action)!) else { preconditionFailure("a checked action was refused") }
        return StepOutcome(reward: Double(step.reward), terminated: step.terminated, truncated: step.truncated)
    }

    public func write(observation destination: UnsafeMutableRawPointer) {
        let board = self.board
        let exponents = destination.assumingMemoryBound(to: UInt8.self)
        for cell in 0..<board.cellCount { exponents[cell] = board[cell] }
    }

    public func write(info column: Int, to destination: UnsafeMutableRawPointer) {
        switch InfoColumn(rawValue: column)! {
        case .actionMask:
            for direction in Direction.allCases {
                destination.storeBytes(of: actionMask.contains(direction) ? 1 : 0, toByteOffset: direction.rawValue, as: UInt8.self)
            }
        case .score: destination.storeBytes(of: score, as: Int64.self)
        case .maxTile: destination.storeBytes(of: Int64(board.maxTile), as: Int64.self)
        case .steps: destination.storeBytes(of: Int64(steps), as: Int64.self)
        case .won: destination.storeBytes(of: info.won ? 1 : 0, as: UInt8.self)
        }
    }

    public var text: String { render() }
}

/// 2048's vector on the shared path, compiled for its environment.
public struct Game2048Vector: GameVector {
    public var vector: VectorGame<Environment>
    public init(vector: VectorGame<Environment>) { self.vector = vector }
}

/// 2048, as the registry lists it.
public enum Game2048Game {
    /// The game's declaration: `2048`, its rules options (``RulesOption/all``) and its environments.
    public static let declaration: GameDeclaration = {
        var declaration = plainDeclaration
        // Rankings quote the tiles the strongest players are compared by.
        declaration.ranking = RankingMeasure(
            scoreColumn: InfoField.score.rawValue, milestoneColumn: InfoField.maxTile.rawValue, milestones: [2048, 8192, 16384, 32768])
        return declaration
    }()

    private static let plainDeclaration = GameDeclaration(
        "2048", summary: "slide and merge tiles (the default)",
        options: RulesOption.all.map { option in
            OptionDeclaration(
                name: option.name, flag: option.flag, valueName: option.valueName, help: option.help, constraint: option.constraint,
                defaultValue: option.value(in: RulesSettings(Rules())))
        }
    ) { values, count, mode throws(OptionRefusal) in
        do throws(RulesError) {
            return Game2048Vector(vector: VectorGame(rules: try RulesOption.rules(from: values), count: count, autoresetMode: mode))
        } catch {
            throw OptionRefusal(option: RulesOption.name(of: error.field), reason: error.rule)
        }
    }
}
