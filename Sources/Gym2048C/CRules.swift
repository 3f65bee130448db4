import CGym2048
import Game2048
import Game2048JSON

/// The C rules struct, read into ``Rules`` with the protocol's checks and messages.
enum CRules {
    /// The original game's rules, as C.
    static let defaults = g2048_rules(
        rows: 4, cols: 4, spawn_four_probability: 0.1, initial_tiles: 2, win_tile: 0, max_steps: 0,
        invalid_action: Int32(G2048_INVALID_NOOP), invalid_action_penalty: 0)

    static func parse(_ c: g2048_rules) throws(CallError) -> Rules {
        let policy: InvalidActionPolicy
        switch c.invalid_action {
        case Int32(G2048_INVALID_NOOP): policy = .noop
        case Int32(G2048_INVALID_TERMINATE): policy = .terminate(penalty: c.invalid_action_penalty)
        case Int32(G2048_INVALID_REJECT): policy = .reject
        default: throw .argument("invalid_action must be 0 (noop), 1 (terminate) or 2 (reject), got \(c.invalid_action)")
        }
        guard c.invalid_action_penalty >= 0 else {
            throw .argument("invalid_action_penalty must be 0 or more, got \(c.invalid_action_penalty)")
        }
        guard c.win_tile >= 0 else { throw .argument("win_tile must be 0 (off) or a power of two from 4 to 2^50, got \(c.win_tile)") }
        guard c.max_steps >= 0 else { throw .argument("max_steps must be 0 (off) or at least 1, got \(c.max_steps)") }
        do throws(RulesError) {
            return try Rules(
                rows: Int(c.rows), cols: Int(c.cols), spawnFourProbability: c.spawn_four_probability,
                initialTiles: Int(c.initial_tiles), winTile: c.win_tile == 0 ? nil : Int(c.win_tile),
                maxSteps: c.max_steps == 0 ? nil : Int(c.max_steps), invalidAction: policy)
        } catch {
            throw .argument("\(RulesOption.name(of: error.field)) \(error.rule)")
        }
    }

    /// A starting board from `rows × cols` tile values, checked as the protocol checks `options.board`.
    static func board(_ values: UnsafePointer<Int64>, for rules: Rules) throws(CallError) -> Board {
        let list = (0..<rules.cellCount).map { Int(values[$0]) }
        do throws(RulesError) {
            let board = try Board(rows: rules.rows, cols: rules.cols, values: list)
            try Environment.validate(board, for: rules)
            return board
        } catch {
            throw .argument("board: \(error.description)")
        }
    }
}

/// The C buffers struct, checked and read into ``VectorStepBuffers``.
enum CBuffers {
    static func parse(_ out: UnsafePointer<g2048_buffers>?, info: g2048_env_info) throws(CallError) -> VectorStepBuffers {
        guard let out else { throw .argument("out must not be NULL") }
        let c = out.pointee
        guard c.num_envs == info.num_envs else {
            throw .argument("out.num_envs must be the handle's \(info.num_envs) (every column holds one entry per environment), got \(c.num_envs)")
        }
        guard let observations = c.observations else { throw .argument("out.observations must not be NULL") }
        guard let rewards = c.rewards else { throw .argument("out.rewards must not be NULL") }
        guard let terminations = c.terminations else { throw .argument("out.terminations must not be NULL") }
        guard let truncations = c.truncations else { throw .argument("out.truncations must not be NULL") }
        return VectorStepBuffers(
            observations: observations, rewards: rewards, terminations: flags(terminations)!,
            truncations: flags(truncations)!, info: infoBuffers(c.info), finals: flags(c.finals),
            finalObservations: c.final_observations, finalInfo: infoBuffers(c.final_info))
    }

    /// C's bytes 0/1 as Swift's `Bool`, which is stored the same way.
    static func flags(_ bytes: UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<Bool>? {
        bytes.map { UnsafeMutableRawPointer($0).assumingMemoryBound(to: Bool.self) }
    }

    static func infoBuffers(_ c: g2048_info_buffers) -> VectorInfoBuffers {
        VectorInfoBuffers(
            actionMasks: c.action_masks, scores: c.scores, maxTiles: c.max_tiles, steps: c.steps,
            invalid: flags(c.invalid), won: flags(c.won), afterstates: c.afterstates, spawnCells: c.spawn_cells,
            spawnExponents: c.spawn_exponents, legalActions: c.legal_actions)
    }
}
