import GymCore

extension MemorizeEnvironment {
    /// The info columns, in the order an info object lists them: the legal cards, then the counters.
    enum InfoColumn: Int, CaseIterable {
        case actionMask, pairsMatched, mismatches, moves, steps

        /// The column's declaration for a game of `cards` cards.
        func declaration(cards: Int) -> ResultColumn {
            switch self {
            case .actionMask: ResultColumn(name: "action_mask", type: .bool, width: cards)
            case .pairsMatched: ResultColumn(name: "pairs_matched", type: .int64)
            case .mismatches: ResultColumn(name: "mismatches", type: .int64)
            case .moves: ResultColumn(name: "moves", type: .int64)
            case .steps: ResultColumn(name: "steps", type: .int64)
            }
        }
    }

    /// One code per card in the board's shape, a card to turn per action, rewards from `-mismatch_penalty` to 1.
    public static func space(of rules: MemorizeRules) -> GameSpace {
        GameSpace(
            observation: .init(
                encoding: "codes", shape: [rules.rows, rules.cols], type: .uint8, low: 0, high: CardView.maxCode(pairs: rules.pairCount)),
            actionCount: rules.cardCount, rewardRange: (0 - rules.mismatchPenalty)...1, rewardType: .float64,
            info: InfoColumn.allCases.map { $0.declaration(cards: rules.cardCount) })
    }

    /// Writes every card's code, without making the observation's array: the vector's hot path, branch-free per
    /// card (matched 1, face up 2 + c, seen with `reveal_seen` 2 + pairs + c, else 0).
    public func write(observation destination: UnsafeMutableRawPointer) {
        let codes = destination.assumingMemoryBound(to: UInt8.self)
        let pairs = UInt8(truncatingIfNeeded: rules.pairCount)
        let matched = self.matched.bits, up = faceUp.bits & ~matched
        let shown = (rules.revealSeen ? seen.bits : 0) & ~up & ~matched
        withUnsafeBytes(of: deck.storage) { contents in
            for card in 0..<rules.cardCount {
                let isMatched = UInt8(truncatingIfNeeded: matched >> UInt64(card)) & 1
                let isUp = UInt8(truncatingIfNeeded: up >> UInt64(card)) & 1
                let isShown = UInt8(truncatingIfNeeded: shown >> UInt64(card)) & 1
                let content = contents[card]
                codes[card] = isMatched &+ isUp &* (2 &+ content) &+ isShown &* (2 &+ pairs &+ content)
            }
        }
    }

    public func write(info column: Int, to destination: UnsafeMutableRawPointer) {
        switch InfoColumn(rawValue: column)! {
        case .actionMask:
            let legal = actionMask.bits
            let flags = destination.assumingMemoryBound(to: UInt8.self)
            for card in 0..<rules.cardCount { flags[card] = UInt8(truncatingIfNeeded: legal >> UInt64(card)) & 1 }
        case .pairsMatched: destination.storeBytes(of: Int64(pairsMatched), as: Int64.self)
        case .mismatches: destination.storeBytes(of: Int64(mismatches), as: Int64.self)
        case .moves: destination.storeBytes(of: Int64(pairsMatched + mismatches), as: Int64.self)
        case .steps: destination.storeBytes(of: Int64(steps), as: Int64.self)
        }
    }
}

/// Memorize's vector, compiled for its environment: what every door steps.
public struct MemorizeVector: GameVector {
    public var vector: VectorGame<MemorizeEnvironment>
    public init(vector: VectorGame<MemorizeEnvironment>) { self.vector = vector }
}

/// Memorize, as the registry lists it: every door reads this declaration.
public enum MemorizeGame {
    /// The game's declaration: `memorize`, its options (``MemorizeOption/all``) and its environments.
    public static let declaration: GameDeclaration = {
        var game = GameDeclaration(
            "memorize", summary: "turn two cards a move and match the pairs, from memory", vector: MemorizeVector.self,
            options: MemorizeOption.all, settings: MemorizeSettings(MemorizeRules())
        ) { settings throws(OptionRefusal) in
            do throws(MemorizeRulesError) {
                return try settings.rules()
            } catch {
                switch error {
                case .outOfRange(let option, let message): throw OptionRefusal(option: option, reason: String(message.dropFirst(option.count + 1)))
                case .cardCount: throw OptionRefusal(option: "rows", reason: "and cols: \(error)")
                }
            }
        }
        game.players = players
        game.report = report
        game.play = playText
        return game
    }()
}
