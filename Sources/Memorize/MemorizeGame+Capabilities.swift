import GymCore

/// What Memorize declares beyond its options: its players, its report of an evaluation (the exact
/// expectations), its words in `play`, and the members of its records.
extension MemorizeGame {
    /// The rules of option values that `make` accepted.
    static func rules(_ values: [String: OptionValue]) -> MemorizeRules {
        var settings = MemorizeSettings(MemorizeRules())
        for option in MemorizeOption.all { if let value = values[option.name] { option.assign(value, to: &settings) } }
        return (try? settings.rules()) ?? MemorizeRules()
    }

    /// `forgetful`'s option.
    static let memory = OptionDeclaration(
        name: "memory", flag: "memory", valueName: "k", help: "Cards the forgetful player remembers.",
        constraint: .integer(0...64, nullable: false), defaultValue: .integer(4))

    /// The players, the perfect-memory one (optimal play) first.
    static let players: [PlayerDeclaration] = [
        PlayerDeclaration("perfect", help: "remembers every card seen: optimal play") { game, _ in
            CardPlayer(player: RememberingPlayer(rules: rules(game), memory: nil))
        },
        .randomLegal,
        PlayerDeclaration("forgetful", help: "the perfect player remembering only the last --memory cards", options: [memory]) { game, own in
            guard case .integer(let memory) = own["memory"] else { preconditionFailure("the forgetful player without its memory") }
            return CardPlayer(player: RememberingPlayer(rules: rules(game), memory: memory))
        },
    ]

    /// Beside what every report holds: the board, the moves (two cards each), and the exact expectations of
    /// perfect-memory and optimal play with Velleman & Warrington's asymptotic formula.
    @Sendable static func report(_ values: [String: OptionValue], player: PlayerDeclaration, tally: EvaluationTally) -> [(String, OptionValue)] {
        let rules = rules(values), pairs = rules.pairCount
        let optimum = MemorizeOptimum(maxPairs: pairs)
        let moves = tally.finalInfo["moves"] ?? MeanEstimate()
        // The expectations hold for a game played to its end: with a step limit they are not what is measured.
        let exact =
            values[EpisodeOption.maxSteps.name] == .null && player.name == "perfect" ? OptionValue.number(optimum.perfectMemoryMoves(pairs: pairs)) : .null
        return [
            ("rows", .integer(rules.rows)), ("cols", .integer(rules.cols)), ("pairs", .integer(pairs)), ("mean_moves", .number(moves.mean)),
            ("moves_standard_error", .number(moves.squaredStandardError.squareRoot())), ("exact_moves", exact),
            ("optimal_moves", .number(optimum.optimalMoves(pairs: pairs))), ("asymptotic_moves", .number(MemorizeOptimum.asymptoticMoves(pairs: pairs))),
        ]
    }

    /// `play`'s words: cards, moves and pairs.
    static var playText: PlayText {
        var text = PlayText()
        text.actionNoun = "card"
        text.start = { values in "\(rules(values).pairCount) pairs: turn two cards a move." }
        text.status = { values, results in
            "moves \(results.integer("moves", at: 0) ?? 0), pairs \(results.integer("pairs_matched", at: 0) ?? 0)/\(rules(values).pairCount), "
                + "mismatches \(results.integer("mismatches", at: 0) ?? 0)."
        }
        text.note = { values, results, outcome in
            let pairs = rules(values).pairCount, matched = results.integer("pairs_matched", at: 0) ?? 0
            if outcome.terminated {
                let optimal = MemorizeOptimum(maxPairs: pairs).optimalMoves(pairs: pairs)
                let moves = results.integer("moves", at: 0) ?? 0
                return "All \(pairs) pairs matched in \(moves) moves (optimal play expects \(hundredths(optimal))). r deals again."
            }
            if outcome.truncated { return "Cut at \(results.integer("steps", at: 0) ?? 0) cards (--max-steps). r deals again." }
            if (results.integer("steps", at: 0) ?? 0) % 2 == 1 { return "Turn a second card." }
            return outcome.reward > 0 ? "A pair! \(matched) of \(pairs)." : "No match."
        }
        return text
    }

    /// `value` with two decimals (`4.33`), as a note words an expectation.
    static func hundredths(_ value: Double) -> String {
        let cents = Int((value * 100).rounded())
        return "\(cents / 100)." + (cents % 100 < 10 ? "0" : "") + "\(cents % 100)"
    }
}

/// A Memorize player seen as any game's player: the observation's codes and the `action_mask` column are its
/// observation and legal cards.
struct CardPlayer<Player: MemorizePlayer>: GamePlayer {
    var player: Player

    mutating func reset() { player.reset() }

    mutating func choose(_ results: GameResults, index: Int, using rng: inout Xoshiro256StarStar) -> Int {
        var legal = CardSet()
        for card in results.legalActions(at: index) ?? [] { legal.insert(card) }
        return player.choose(observation: results.observation(at: index).map { UInt8($0) }, legal: legal, using: &rng)
    }
}

extension MemorizeEnvironment: RecordedEnvironment {
    /// A header's deck, a step's card, its content and the pairs matched, an end's moves and pairs.
    public static let recordLayout = RecordLayout(action: "card", header: ["deck"], step: ["content", "reward", "pairs"], end: ["moves", "pairs"])

    public static func recordTitle(of rules: MemorizeRules) -> String { "memorize \(rules.rows)x\(rules.cols)" }

    /// The deal: every card's content, row by row.
    public var startMembers: [RecordValue] {
        let cols = rules.cols
        return [.array((0..<rules.rows).map { row in .array(deck.contents[(row * cols)..<((row + 1) * cols)].map { .integer(Int($0)) }) })]
    }

    /// The content the card showed and the pairs matched after it.
    public func stepMembers(after card: Int) -> [RecordValue] { [.integer(Int(deck.contents[card])), .integer(pairsMatched)] }

    /// The moves made (two cards each) and the pairs matched.
    public var endMembers: [RecordValue] { [.integer(pairsMatched + mismatches), .integer(pairsMatched)] }

    public var recordSummary: String {
        let moves = pairsMatched + mismatches
        return "\(moves) move\(moves == 1 ? "" : "s"), \(pairsMatched) of \(rules.pairCount) pairs"
    }
}
