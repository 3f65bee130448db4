import GymCore

/// A game that exists only in the tests: guess a hidden number, told after each guess whether it is higher or
/// lower. Its declaration is all a door needs: registered with one line, it is served like the shipped games.
public struct GuessTheNumber: GameEnvironment {
    /// The numbers to guess from, `0..<range`, and the guesses allowed.
    public struct Rules: Sendable, Hashable {
        public var range = 16
    }

    /// A guess outside what the hints leave possible.
    public struct RuledOut: Error, Hashable, CustomStringConvertible {
        public let guess: Int, low: Int, high: Int
        public var description: String { "guess \(guess) is ruled out: the number is from \(low) to \(high)" }
    }

    public let rules: Rules
    var rng: Xoshiro256StarStar
    var secret = 0, low = 0, high = 0, guesses = 0, hint = 0
    public private(set) var phase = EpisodePhase.needsReset

    public init(rules: Rules, seed: UInt64) {
        self.rules = rules
        rng = Xoshiro256StarStar(seed: seed)
    }

    public static func space(of rules: Rules) -> GameSpace {
        GameSpace(
            observation: .init(encoding: "hint_low_high", shape: [3], type: .int64, low: 0, high: rules.range),
            actionCount: rules.range, rewardRange: -0.125...1, rewardType: .float64,
            info: [
                ResultColumn(name: "action_mask", type: .bool, width: rules.range), ResultColumn(name: "guesses", type: .int64),
                ResultColumn(name: "solved", type: .bool),
            ])
    }

    @discardableResult
    public mutating func reset(seed: UInt64?) -> Int {
        if let seed { rng = Xoshiro256StarStar(seed: seed) }
        (secret, low, high, guesses, hint, phase) = (rng.uniform(below: rules.range), 0, rules.range - 1, 0, 0, .running)
        return secret
    }

    public func check(_ action: Int) throws(RuledOut) {
        guard (low...high).contains(action) else { throw RuledOut(guess: action, low: low, high: high) }
    }

    public mutating func advance(_ action: Int) -> StepOutcome {
        guesses += 1
        if action < secret { (low, hint) = (action + 1, 1) } else if action > secret { (high, hint) = (action - 1, 2) } else { hint = 3 }
        // A step limit is every game's (`max_steps`): the game needs none of its own.
        let terminated = hint == 3
        if terminated { phase = .over }
        return StepOutcome(reward: terminated ? 1 : -0.125, terminated: terminated, truncated: false)
    }

    public func write(observation destination: UnsafeMutableRawPointer) {
        for (index, value) in [hint, low, high].enumerated() { destination.storeBytes(of: Int64(value), toByteOffset: index * 8, as: Int64.self) }
    }

    public func write(info column: Int, to destination: UnsafeMutableRawPointer) {
        switch column {
        case 0: for guess in 0..<rules.range { destination.storeBytes(of: (low...high).contains(guess) ? 1 : 0, toByteOffset: guess, as: UInt8.self) }
        case 1: destination.storeBytes(of: Int64(guesses), as: Int64.self)
        default: destination.storeBytes(of: hint == 3 ? 1 : 0, as: UInt8.self)
        }
    }

    public var text: String { "\(guesses) guesses; the number is from \(low) to \(high)" }

    /// Its vector, compiled for it.
    public struct Vector: GameVector {
        public var vector: VectorGame<GuessTheNumber>
        public init(vector: VectorGame<GuessTheNumber>) { self.vector = vector }
    }

    /// The game's declaration: its name, options and environments.
    public static let declaration = GameDeclaration(
        "guess", summary: "guess a hidden number from higher/lower hints", vector: Vector.self,
        options: [
            .integer("range", help: "Numbers to guess from.", in: 2...1_000, \Rules.range)
        ], settings: Rules()
    ) { $0 }
}
