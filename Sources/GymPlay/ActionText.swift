/// A games record's actions as text: one character an action, action `k` the `k`-th character of
/// ``alphabet``. A 4×4 game of 2 000 moves is 2 000 bytes, where a JSON line a step took 80 times as many.
package enum ActionText {
    /// The 64 characters, in action order: digits, lowercase, uppercase, `-`, `_`.
    package static let alphabet = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_".utf8)
    /// The most actions a game may have to be written this way.
    package static var capacity: Int { alphabet.count }

    /// Each character's action, or -1.
    static let actions: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (action, byte) in alphabet.enumerated() { table[Int(byte)] = Int8(action) }
        return table
    }()

    /// The text of `actions`, each from 0 to `capacity - 1`.
    package static func text(_ actions: some Sequence<Int>) -> String {
        String(decoding: actions.map { alphabet[$0] }, as: UTF8.self)
    }

    /// The actions of `text`, or the offset of the first character that is not one of a game of `count` actions.
    package static func actions(_ text: String, count: Int) -> Result<[Int], InvalidCharacter> {
        var actions: [Int] = []
        actions.reserveCapacity(text.utf8.count)
        for (offset, byte) in text.utf8.enumerated() {
            let action = Int(Self.actions[Int(byte)])
            guard action >= 0, action < count else { return .failure(InvalidCharacter(offset: offset, action: action)) }
            actions.append(action)
        }
        return .success(actions)
    }

    /// A character of an actions text that names no action of the game.
    package struct InvalidCharacter: Error, Hashable {
        /// Its offset, in bytes (every valid character is one byte).
        package var offset: Int
        /// The action it would be in a larger game, or -1 for a character outside the alphabet.
        package var action: Int
    }
}
