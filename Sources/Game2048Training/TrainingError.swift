/// Why a training run was refused, or failed: the message is the whole reason, ready to show.
///
///     throw TrainingError.settings("--table-share: an afterstate table is for boards of up to 9 cells")
///
/// The two cases tell a caller how to report it: a command line shows ``settings(_:)`` as a usage error (the
/// settings contradict each other, the rules, or the files they name), ``failure(_:)`` as a run that could not
/// start or finish (memory, a save that failed, weights that diverged).
public enum TrainingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The settings asked for cannot be honoured as given: changing them would let the run start.
    case settings(String)
    /// The run could not start or finish with these settings on this machine, or was cut short.
    case failure(String)

    /// The reason, in one line.
    public var message: String {
        switch self {
        case .settings(let message), .failure(let message): message
        }
    }

    public var description: String { message }

    /// A run whose values diverged at game `game` (in total): its weights are garbage, and `kept` says what is left.
    public static func diverged(at game: Int, _ kept: String) -> TrainingError {
        .failure(
            "training diverged at game \(game): a value became infinite or NaN, so the learning rate is too "
                + "large for this network (try a smaller --alpha or --tc-alpha); \(kept)")
    }
}
