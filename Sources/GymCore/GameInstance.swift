/// A made game as the doors drive it, whatever the game: `count` environments under checked options.
///
/// ``VectorGame`` is the one conforming type; a door holds `any GameInstance` from
/// ``GameDeclaration/make(_:count:autoresetMode:)`` and needs no code of its own for any game.
public protocol GameInstance: Sendable {
    /// The results' shapes.
    var space: GameSpace { get }
    /// The number of environments.
    var count: Int { get }
    /// What a step does with a finished episode.
    var autoresetMode: AutoresetMode { get }
    /// Whether every environment has been reset: a step is allowed.
    var isStarted: Bool { get }
    /// Resets environment `i` with `seeds[i]` (`nil`: it continues its stream).
    mutating func reset(seeds: [UInt64?])
    /// Steps every environment with its action; nothing changes when it throws.
    mutating func step(actions: UnsafeBufferPointer<Int64>) throws(GameRefusal)
    /// Writes the results into one address per column (see ``VectorGame/write(into:)``).
    func write(into columns: UnsafeBufferPointer<UnsafeMutableRawPointer?>)
    /// Environment `index`'s state as a person reads it.
    func text(at index: Int) -> String
}

/// Why a step of a made game was refused, in words every door gives; nothing changed.
public enum GameRefusal: Error, Hashable, Sendable {
    /// Environment `index`'s action may not be taken: the game's reason.
    case illegalAction(index: Int, reason: String)
    /// Under `disabled` autoreset (and for a single environment): these episodes are over.
    case episodesOver(indices: [Int])
}

extension GameRefusal: CustomStringConvertible {
    /// For example "environment 3: card 5 is face up: only face-down cards may be turned", or "environments 1, 4
    /// ended; with autoreset_mode "disabled" call reset first".
    public var description: String {
        switch self {
        case .illegalAction(let index, let reason): "environment \(index): \(reason)"
        case .episodesOver(let indices):
            "\(indices.count == 1 ? "environment" : "environments") \(indices.map(String.init).joined(separator: ", ")) "
                + "ended; with autoreset_mode \"disabled\" call reset first"
        }
    }
}

extension VectorGame: GameInstance {
    public mutating func step(actions: UnsafeBufferPointer<Int64>) throws(GameRefusal) {
        do {
            try step(actions)
        } catch {
            switch error {
            case .illegalAction(let index, let reason): throw .illegalAction(index: index, reason: reason.description)
            case .episodesOver(let indices): throw .episodesOver(indices: indices)
            }
        }
    }

    public func text(at index: Int) -> String { environments[index].text }
}
