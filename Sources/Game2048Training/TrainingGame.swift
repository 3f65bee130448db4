import Game2048
import Game2048Network

/// One training game in progress: what ``TDLearner``'s loop carries from one move to the next, so
/// that a game can be played a move at a time and a thread can interleave several
/// (``TDLearner/trainGames(lanes:using:mayStart:finished:)``).
///
/// ``TDLearner/trainGame(using:)`` is `init`, ``step(_:using:)`` until ``isOver``, then ``finish(_:)``.
/// It reads and learns through the network's `ValueFunction` `V`, on `V`'s boards.
@usableFromInline
struct TrainingGame<V: ValueFunction> {
    @usableFromInline typealias B = V.Position
    /// The network's value function.
    @usableFromInline let valueFunction: V
    /// The board: the last afterstate with its spawn, or the final board once the game is over.
    @usableFromInline var board: B
    /// The afterstate chosen by the last move, which the next move's target updates (forward schedule);
    /// its feature indices are in the fifth of ``slots``.
    @usableFromInline var previous: B? = nil
    /// The board's moves, when worked out (and their weights asked for) ahead of the move by ``prepare(_:)``.
    @usableFromInline var candidates: MoveCandidates<V>? = nil
    /// Room for five boards' feature indices (`V.storedFeatureCount` each): the four candidates', then the
    /// previous afterstate's. The caller's, for as long as the game is played.
    @usableFromInline let slots: UnsafeMutablePointer<Int32>
    @usableFromInline var score: Int64 = 0
    @usableFromInline var moves = 0
    /// TC's accumulators when this game learns by TC (fixed when it starts), else `nil`: a TD game.
    @usableFromInline let accumulators: CoherenceAccumulators?
    /// The learning step per feature: TD's, or TC's meta rate in a TC game.
    @usableFromInline let learningStep: Float
    @usableFromInline let backward: Bool
    @usableFromInline let staged: Bool
    /// The stage the game has reached (a staged network promotes each stage the first time a game reaches it).
    @usableFromInline var gameStage = 0
    /// The backward schedule's afterstates and rewards, updated when the game ends.
    @usableFromInline var path: [(afterstate: B, reward: Float)] = []
    /// Whether the step limit or a stop cut the game.
    @usableFromInline var truncated = false
    /// The move count at which the step limit and ``TDLearner/stop`` are looked at next.
    @usableFromInline var nextCheck: Int
    /// Whether the game has ended (no legal move, the win tile, a cut); ``finish(_:)`` is then due.
    @usableFromInline var isOver = false
    /// A value read was infinite or NaN (see `GameResult.diverged`).
    @usableFromInline var diverged = false
    /// The smallest reward of a move that may make a restart point (a tile larger than any on the board, and at
    /// least the learner's ``TDLearner/restartTile``): that tile's value; `Int64.max` when the learner restarts no
    /// game, so that a move pays one comparison for restarts.
    @usableFromInline var newLargestReward = Int64.max
    /// Where a game that restarts from this one starts (``TDLearner/restartChance``): the afterstate on which this
    /// game first held its largest tile, and the score there; `nil` before any merge made a largest tile.
    @usableFromInline var restartPoint: (afterstate: B, score: Int64)? = nil
    /// Whether the game began at another game's restart point.
    @usableFromInline let restarted: Bool

    /// A new game with the rules' initial tiles, or from `point` (another game's ``restartPoint``) and a spawn.
    @inlinable
    init(
        _ learner: TDLearner, _ valueFunction: V, slots: UnsafeMutablePointer<Int32>, restartingFrom point: (afterstate: B, score: Int64)? = nil,
        using rng: inout Xoshiro256StarStar
    ) {
        self.valueFunction = valueFunction
        self.slots = slots
        if let point {
            board = point.afterstate
            score = point.score
            _ = learner.episode.spawn(on: &board, using: &rng)
        } else {
            board = B.empty(of: learner.rules)
            learner.episode.placeStartingTiles(on: &board, using: &rng)
        }
        restarted = point != nil
        if learner.restartThreshold > 0 {
            // The starting tiles are no merge: a fresh game's point comes with its first new largest tile.
            restartPoint = point
            newLargestReward = Int64(max(Board.value(ofExponent: board.maxExponent + 1), learner.restartTile))
        }
        backward = learner.schedule == .backward
        accumulators = learner.learnsByCoherence ? learner.accumulators : nil
        learningStep = accumulators == nil ? learner.step : learner.coherenceStep
        staged = learner.network.stageCount > 1
        if staged {
            gameStage = learner.network.stage(maxExponent: board.maxExponent)
            learner.network.promote(toStage: gameStage)
        }
        if backward { path.reserveCapacity(4096) }
        nextCheck = min(learner.episode.stepLimit, TDLearner.stopCheckInterval)
        // With a win tile of 4, the first tiles may already end the game.
        isOver = learner.reachesWin(reward: 0, board)
    }

    /// Works out the board's moves and asks for their weights, ahead of ``step(_:using:)``: the lane loop
    /// does so for the next lane before this lane's move waits on its own loads.
    @inlinable
    mutating func prepare(_ learner: TDLearner) {
        candidates = valueFunction.candidates(on: board, table: learner.rowTable, slots: slots)
    }

    /// One move: the greedy move, the forward update of the previous afterstate, the spawn, and
    /// the checks that end the game.
    @inlinable
    mutating func step(_ learner: TDLearner, using rng: inout Xoshiro256StarStar) {
        step(learner, valueFunction, using: &rng)
    }

    /// ``step(_:using:)`` with the game's value function given by the caller, who holds it for the whole
    /// loop: a copy of the game's own (its network) was a retain and a release a move.
    ///
    /// Not inlined into the loops (a call a move): inlined, the lane loop's register pressure made the
    /// move's index arithmetic slower (measured 3 % fewer moves a second in training).
    @inlinable @inline(never)
    mutating func step(_ learner: TDLearner, _ valueFunction: V, using rng: inout Xoshiro256StarStar) {
        // Read once a move: the game lives in an array the weight stores could alias, as far as the compiler knows.
        let (learningStep, accumulators) = (self.learningStep, self.accumulators)
        if candidates == nil { prepare(learner) }
        let choice = valueFunction.greedyMove(among: candidates.unsafelyUnwrapped)
        candidates = nil
        var (best, bestReward, bestValue, found) = (choice.afterstate, choice.reward, choice.value, choice.found)
        // One comparison a move: a learning rate too large makes the weights infinite within a few games,
        // and nothing after that is learning.
        guard !found || bestValue.isFinite else {
            (diverged, isOver) = (true, true)
            return
        }
        if staged && found {
            // A new stage: promote it, and read the move's value again from its copied tables.
            let stage = learner.network.stage(maxExponent: best.maxExponent)
            if stage > gameStage {
                gameStage = stage
                if learner.network.promote(toStage: stage) { bestValue = Float(bestReward) + valueFunction.value(of: best) }
            }
        }
        if !backward, let previous {
            let target: Float = found ? bestValue : 0
            // Two calls, so that TD's is inlined without TC's branch (`nil` is known there).
            if let accumulators {
                valueFunction.learn(previous, storedAt: previousSlot, toward: target, step: learningStep, accumulators: accumulators)
            } else {
                valueFunction.learn(previous, storedAt: previousSlot, toward: target, step: learningStep, accumulators: nil)
            }
        }
        guard found else {
            isOver = true
            return
        }
        if backward {
            path.append((best, Float(bestReward)))
            if path.count == 2 * learner.backwardBlock { learnOldestBlock(learner) }
        }
        score += bestReward
        moves += 1
        // The win tile ends the game: the afterstate is terminal (forward learns it toward 0 here, backward in finish).
        if learner.reachesWin(reward: bestReward, best) {
            if !backward { learnTerminal(best) }
            board = best
            isOver = true
            return
        }
        // The step limit or a stop truncates the game: its last afterstate is not updated.
        if moves >= nextCheck {
            if learner.episode.isTruncated(steps: moves) || learner.stop.isDue {
                (truncated, board) = (true, best)
                isOver = true
                return
            }
            nextCheck = min(learner.episode.stepLimit, moves + TDLearner.stopCheckInterval)
        }
        // A packed board with two 32 768 tiles ends the game here (without a terminal
        // update, so the network does not learn to fear it).
        if best.holdsTooLargeATile {
            isOver = true
            return
        }
        previous = best
        // The next move's candidates will be written over this move's.
        previousSlot.update(from: slots + choice.direction.rawValue &* V.storedFeatureCount, count: V.storedFeatureCount)
        board = best
        _ = learner.episode.spawn(on: &board, using: &rng)
        if learner.episode.winExponent <= 2 && learner.reachesWin(reward: 0, board) {
            if !backward { learnTerminal(best) }
            isOver = true
        }
    }

    /// ``step(_:_:using:)``, then the restart point: the move's afterstate, if it made a tile larger than any before
    /// it and the game goes on (a game that a move ends, by the win tile or a cut, restarts from no board it ended on).
    ///
    /// Outside the move: inside, the check made ``step(_:_:using:)`` too large for the greedy choice to be inlined
    /// into it (20 instructions a move more, for one comparison).
    @inlinable @inline(__always)
    mutating func stepNotingRestartPoint(_ learner: TDLearner, _ valueFunction: V, using rng: inout Xoshiro256StarStar) {
        let scoreBefore = score
        step(learner, valueFunction, using: &rng)
        // Only a merge makes a tile larger than the board's largest, and it scores at least that tile's value.
        if score &- scoreBefore >= newLargestReward && !isOver { noteLargestTile(previous.unsafelyUnwrapped) }
    }

    /// Records `afterstate` as the restart point when it holds a tile larger than any before it.
    @inlinable @inline(never)
    mutating func noteLargestTile(_ afterstate: B) {
        let exponent = afterstate.maxExponent
        guard Int64(Board.value(ofExponent: exponent)) >= newLargestReward else { return }
        restartPoint = (afterstate, score)
        newLargestReward = Int64(Board.value(ofExponent: exponent + 1))
    }

    /// The indices ``slots`` must have room for (at least one, for a kind that stores none).
    @inlinable
    static var slotCapacity: Int { max(1, 5 &* V.storedFeatureCount) }

    /// Where the previous afterstate's feature indices are kept.
    @inlinable
    var previousSlot: UnsafeMutablePointer<Int32> { slots + 4 &* V.storedFeatureCount }

    /// Learns a terminal afterstate toward 0 (once a game, so it reads the game's own fields).
    @inlinable
    func learnTerminal(_ afterstate: B) {
        valueFunction.learn(afterstate, error: -valueFunction.value(of: afterstate), step: learningStep, accumulators: accumulators)
    }

    /// Ends the game: the backward schedule's updates, then the result.
    /// Learns the path's first `count` afterstates, last to first, from `target` (the value of what
    /// came after them), each toward its reward plus the value of the next as just learned.
    @inlinable
    mutating func learnBackward(_ count: Int, from target: Float, _ learner: TDLearner) {
        var target = target
        for index in stride(from: count - 1, through: 0, by: -1) {
            let (afterstate, reward) = path[index]
            let value = valueFunction.value(of: afterstate)
            if accumulators != nil {
                valueFunction.learn(afterstate, error: target - value, step: learningStep, accumulators: accumulators)
                target = reward + valueFunction.value(of: afterstate)
            } else {
                target = reward + valueFunction.updateAndValue(afterstate, by: learningStep * (target - value))
            }
        }
    }

    /// Learns the oldest ``TDLearner/backwardBlock`` afterstates of a long game and drops them: toward
    /// the value of the next afterstate as it is now (its own update comes with a later block, or at the end).
    @inlinable
    mutating func learnOldestBlock(_ learner: TDLearner) {
        let block = learner.backwardBlock
        let next = path[block]
        learnBackward(block, from: next.reward + valueFunction.value(of: next.afterstate), learner)
        path.removeFirst(block)
    }

    @inlinable
    mutating func finish(_ learner: TDLearner) -> GameResult {
        if backward {
            // From the last afterstate (target 0: the game ended; its own value when it was cut) back to the first.
            var target: Float = 0
            if truncated, let last = path.popLast() { target = last.reward + valueFunction.value(of: last.afterstate) }
            learnBackward(path.count, from: target, learner)
            path = []
        }
        var result = GameResult(score: score, maxTile: Board.value(ofExponent: board.maxExponent), moves: moves)
        result.diverged = diverged
        result.restarted = restarted
        return result
    }
}
