import Game2048
import Game2048Search

/// The state machine of `g2048 play`: it consumes ``Key`` events and describes the screen as a ``Frame``.
///
///     var session = PlaySession(configuration: PlayConfiguration(rows: 4, cols: 4, seed: 42),
///                               bestScores: BestScores(directory: "/tmp/scores"))
///     session.start()                         // [.started(header)]
///     session.handle(.move(.left))            // [.moved(step)], or [.refused(.left)]
///     print(session.frame.render(style: .plain))
///
/// The session does no input or output: the program reads keys, passes them
/// in, writes the ``PlayEvent``s it gets back to a record, and draws
/// ``frame``. So the whole game (start screen, moves, win message, game over,
/// restart, best scores) is tested without a terminal.
///
/// Phases: ``Phase/choosingSize`` (arrow keys pick a square size, Enter
/// starts), ``Phase/playing``, ``Phase/over`` (no legal move; `r` starts
/// again), ``Phase/finished`` (quit). A move that changes nothing is refused:
/// the environment is not stepped, so a record holds legal moves only. The
/// target tile shows a message once and play goes on ("keep playing", as in the
/// original game). Game `n` uses seed `configuration.seed + n - 1`.
package struct PlaySession {
    /// Where the session is.
    package enum Phase: Hashable, Sendable {
        /// The start screen: choosing the board size.
        case choosingSize
        /// A game is running.
        case playing
        /// The game ended: no legal move remains.
        case over
        /// The player quit.
        case finished
    }

    /// The configuration.
    package let configuration: PlayConfiguration
    /// Where the session is.
    package private(set) var phase: Phase
    /// The best scores, updated as soon as a game beats them (saving them is the caller's job).
    package private(set) var bestScores: BestScores
    /// The current (or last) game's environment; `nil` on the start screen before the first game.
    package private(set) var environment: Environment?
    /// The current game's seed.
    package private(set) var seed: UInt64
    /// Games started so far.
    package private(set) var gamesStarted = 0
    /// The index in ``PlayConfiguration/sizeChoices`` selected on the start screen.
    package private(set) var selectedSize: Int
    /// The suggested move, when a hint player is set and a move is legal.
    package private(set) var hint: Direction?
    /// Whether the target tile appeared in the current game.
    package private(set) var reachedTarget = false

    var hinter: (any Player)?
    var message: String?
    var bestBeforeGame: Int64 = 0

    /// Creates a session; call ``start()`` next.
    ///
    /// - Parameters:
    ///   - configuration: the size, target tile and seed.
    ///   - bestScores: the table to show and update.
    ///   - hinter: a player whose choice is shown as a hint after every move, or `nil`.
    /// - Precondition: both or neither of `rows` and `cols` are given; the rules options make rules on every
    ///   size the game may be played on.
    package init(configuration: PlayConfiguration, bestScores: BestScores, hinter: (any Player)? = nil) {
        precondition((configuration.rows == nil) == (configuration.cols == nil), "give both rows and cols, or neither")
        precondition(!configuration.sizeChoices.isEmpty, "the start screen needs at least one size")
        if let refused = PlayConfiguration.refusedSize(
            of: configuration.rules, rows: configuration.rows, cols: configuration.cols, sizeChoices: configuration.sizeChoices)
        {
            preconditionFailure("the rules options make no game on \(refused.rows)x\(refused.cols): \(refused.error)")
        }
        self.configuration = configuration
        self.bestScores = bestScores
        self.hinter = hinter
        seed = configuration.seed
        phase = configuration.rows == nil ? .choosingSize : .playing
        selectedSize = configuration.sizeChoices.firstIndex(of: 4) ?? 0
    }

    /// Starts the first game, or shows the start screen when no size is configured.
    ///
    /// - Returns: `[.started(header)]` when a game started, else nothing.
    @discardableResult
    package mutating func start() -> [PlayEvent] {
        guard let rows = configuration.rows, let cols = configuration.cols else {
            phase = .choosingSize
            return []
        }
        return [newGame(rows: rows, cols: cols)]
    }

    /// The rules of the current game, or `nil` before the first one.
    package var rules: Rules? { environment?.rules }

    /// Applies one key.
    ///
    /// - Returns: what happened, in order; empty when the key changes nothing.
    @discardableResult
    package mutating func handle(_ key: Key) -> [PlayEvent] {
        switch (phase, key) {
        case (.finished, _):
            return []
        case (_, .quit):
            phase = .finished
            return [.quit]
        case (.choosingSize, .move(let direction)):
            let step = direction == .up || direction == .left ? -1 : 1
            selectedSize = min(max(selectedSize + step, 0), configuration.sizeChoices.count - 1)
            return []
        case (.choosingSize, .confirm):
            let size = configuration.sizeChoices[selectedSize]
            return [newGame(rows: size, cols: size)]
        case (.choosingSize, .restart):
            return []
        case (.playing, .move(let direction)):
            return move(direction)
        case (.playing, .restart), (.over, .restart):
            seed &+= 1
            let rules = environment!.rules
            return [newGame(rows: rules.rows, cols: rules.cols)]
        case (.over, .move), (_, .confirm):
            return []
        }
    }

    mutating func newGame(rows: Int, cols: Int) -> PlayEvent {
        // The initializer checked the sizes and the probability.
        var settings = configuration.rules
        (settings.rows, settings.cols) = (rows, cols)
        // `play` checked the options on every size it may be played on.
        let rules = try! settings.rules()
        var environment = Environment(rules: rules)
        let start = environment.reset(seed: seed)
        self.environment = environment
        gamesStarted += 1
        reachedTarget = configuration.targetTile.map { start.info.maxTile >= $0 } ?? false
        bestBeforeGame = bestScores[rows: rows, cols: cols]
        message = nil
        phase = environment.isOver ? .over : .playing
        updateHint()
        return .started(
            EpisodeHeader(
                seed: seed, rules: rules, targetTile: configuration.targetTile,
                player: configuration.player, board: start.observation))
    }

    mutating func move(_ direction: Direction) -> [PlayEvent] {
        guard var environment, environment.actionMask.contains(direction) else {
            message = "\(direction.name) does not move any tile"
            return [.refused(direction)]
        }
        // Legal moves never throw, whatever the invalid-action policy.
        let step = try! environment.step(direction)
        self.environment = environment
        let rules = environment.rules
        bestScores.record(step.info.score, rows: rules.rows, cols: rules.cols)
        var events: [PlayEvent] = [.moved(EpisodeStep(action: direction, step: step))]
        message = nil
        if let target = configuration.targetTile, !reachedTarget, step.info.maxTile >= target {
            reachedTarget = true
            message = "You made \(target)! Keep going for a higher tile, or r to restart, q to quit."
            events.append(.reachedTarget(target))
        }
        if environment.isOver {
            phase = .over
            let isNewBest = step.info.score > bestBeforeGame
            message =
                "Game over: score \(step.info.score)" + (isNewBest ? ", a new best for \(rules.sizeLabel)!" : ".")
                + " Press r to play again or q to quit."
            events.append(.gameOver(score: step.info.score, isNewBest: isNewBest))
        }
        updateHint()
        return events
    }

    mutating func updateHint() {
        guard var hinter, phase == .playing, let environment else {
            hint = nil
            return
        }
        hint = hinter.action(on: environment.board, rules: environment.rules)
        self.hinter = hinter
    }
}
