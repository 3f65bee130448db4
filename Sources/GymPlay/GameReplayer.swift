import GymCore

/// Replays games of one game under fixed options through the engine (the game's declared environment, one at a
/// time): what a seed and actions give, for writers and for verification alike.
package struct GameReplayer {
    let game: GameDeclaration
    var instance: any GameInstance
    var results: GameResults
    /// The integer info columns of one value: what a record's `end` holds.
    let endColumns: [String]

    /// A replayer of `game` under `values` (every option's).
    package init(game: GameDeclaration, values: [String: OptionValue]) throws(GamesRecordError) {
        self.game = game
        do throws(OptionRefusal) {
            instance = try game.make(values, count: 1, autoresetMode: .disabled)
        } catch {
            throw GamesRecordError("\"config\": \(error)")
        }
        results = GameResults(space: instance.space, count: 1)
        endColumns = instance.space.info.filter { $0.width == 1 && $0.type == .int64 }.map(\.name)
        if let column = game.ranking.scoreColumn {
            precondition(endColumns.contains(column), "\(game.name)'s score column \(column) is not an integer info column")
        }
    }

    /// The names of a record's `end` members.
    package var endNames: [String] { endColumns }
    /// The number of actions of the game.
    package var actionCount: Int { instance.space.actionCount }

    /// What `actions` give from a reset with `seed`, game `index` of a record.
    ///
    /// - Throws: ``GamesRecordError`` naming the game and the step: an action the rules refuse (an illegal move
    ///   under any invalid-action policy: a player chooses among the legal ones), an episode that ends before
    ///   the last action, or one that goes on after it.
    package mutating func replay(seed: UInt64, actions: [Int], game index: Int) throws(GamesRecordError) -> GameOutcome {
        instance.reset(seeds: [seed])
        results.read(instance)
        var total = 0.0
        var ended: GameOutcome.Ending? = nil
        for (step, action) in actions.enumerated() {
            if ended != nil {
                throw GamesRecordError(
                    game: index, seed: seed, "the episode ended after step \(step), but the record has \(actions.count) actions")
            }
            guard action >= 0, action < instance.space.actionCount else {
                throw GamesRecordError(game: index, seed: seed, "step \(step + 1): action \(action) is not one of the game's \(instance.space.actionCount)")
            }
            if let reason = instance.refusal(of: action, at: 0) {
                throw GamesRecordError(game: index, seed: seed, "step \(step + 1): action \(action) (\(name(of: action))) is not legal: \(reason)")
            }
            do throws(GameRefusal) {
                try [Int64(action)].withUnsafeBufferPointer { actions throws(GameRefusal) in try instance.step(actions: actions) }
            } catch {
                throw GamesRecordError(game: index, seed: seed, "step \(step + 1): \(error)")
            }
            results.read(instance)
            let outcome = results.outcome(at: 0)
            total += outcome.reward
            if outcome.terminated { ended = .terminated } else if outcome.truncated { ended = .truncated }
        }
        guard let ended else {
            throw GamesRecordError(
                game: index, seed: seed, "the episode goes on after the record's \(actions.count) actions: a game is played to its end")
        }
        let end = endColumns.map { GameOutcome.EndMember(name: $0, value: results.integer($0, at: 0) ?? 0) }
        let score = game.ranking.scoreColumn.map { column in Double(end.first { $0.name == column }?.value ?? 0) } ?? total
        return GameOutcome(steps: actions.count, score: score, isIntegerScore: game.ranking.scoreColumn != nil, outcome: ended, end: end)
    }

    /// The action's name, or its number.
    func name(of action: Int) -> String {
        let names = instance.space.actionNames
        return action < names.count ? names[action] : "\(action)"
    }
}
