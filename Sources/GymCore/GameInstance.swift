/// A made game as the doors drive it, whatever the game: `count` environments under checked options.
///
/// A game's ``GameVector`` is the conforming type; a door holds `any GameInstance` from
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
    /// Why the rules refuse `action` in environment `index` now, whatever the invalid-action policy would do with
    /// it, or `nil`: what a person playing is told.
    func refusal(of action: Int, at index: Int) -> String?
    /// Writes the results into one address per column (see ``VectorGame/write(into:)``).
    func write(into columns: UnsafeBufferPointer<UnsafeMutableRawPointer?>)
    /// Environment `index`'s state as a person reads it.
    func text(at index: Int) -> String
    /// The game's environments as records read them, when they record members of their own.
    var recorded: (any RecordedGame)? { get }
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
            "\(indices.count == 1 ? "environment" : "environments") \(Self.list(indices)) ended; with autoreset_mode \"disabled\" call reset first"
        }
    }

    /// Up to ten indices, then how many more: an error line stays short for 65 536 environments.
    public static func list(_ indices: [Int]) -> String {
        let shown = indices.prefix(10).map(String.init).joined(separator: ", ")
        return indices.count > 10 ? "\(shown) and \(indices.count - 10) more" : shown
    }
}

/// A made game's vector compiled for its environment: each game declares one (its own type, a stored
/// ``VectorGame``) so that the calls through `any GameInstance` run code specialized for the game, not generic
/// code that copies environments through witness tables (five times slower for a card game).
///
///     public struct CardVector: GameVector {
///         public var vector: VectorGame<CardEnvironment>
///         public init(vector: VectorGame<CardEnvironment>) { self.vector = vector }
///     }
public protocol GameVector: GameInstance {
    /// The game's environment.
    associatedtype Environment: GameEnvironment
    /// The environments.
    var vector: VectorGame<Environment> { get set }
    /// Wraps `vector`.
    init(vector: VectorGame<Environment>)
}

extension GameVector {
    @inlinable public var space: GameSpace { vector.space }
    @inlinable public var count: Int { vector.count }
    @inlinable public var autoresetMode: AutoresetMode { vector.autoresetMode }
    @inlinable public var isStarted: Bool { vector.isStarted }

    @inlinable public mutating func reset(seeds: [UInt64?]) { vector.reset(seeds: seeds) }

    @inlinable
    public mutating func step(actions: UnsafeBufferPointer<Int64>) throws(GameRefusal) {
        do {
            try vector.step(actions)
        } catch {
            switch error {
            case .illegalAction(let index, let reason): throw .illegalAction(index: index, reason: reason.description)
            case .episodesOver(let indices): throw .episodesOver(indices: indices)
            }
        }
    }

    @inlinable public func write(into columns: UnsafeBufferPointer<UnsafeMutableRawPointer?>) { vector.write(into: columns) }

    public func text(at index: Int) -> String { vector.environments[index].text }

    public func refusal(of action: Int, at index: Int) -> String? {
        do {
            try vector.environments[index].check(action)
            return nil
        } catch { return error.description }
    }

    public var recorded: (any RecordedGame)? { vector as? any RecordedGame }
}
