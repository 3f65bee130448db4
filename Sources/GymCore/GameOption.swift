/// One option of a game's environment, declared once: its name, flag, help, the values it allows, and the field
/// of the game's settings (`Settings`) that holds it.
///
///     static let revealSeen = GameOption<MemorizeSettings>.boolean(
///         "reveal_seen", help: "Show every card ever seen.", \.revealSeen)
///
/// A game lists its options once (Memorize's `MemorizeOption.all`); every door reads that list: the names a
/// `make` takes and `spec` reports, the flags of the command line, the messages of a value out of range.
public struct GameOption<Settings>: Sendable {
    /// The name (snake_case), as `make`, `spec`, records and Python keywords give it.
    public let name: String
    /// The flag, without its dashes (`reveal-seen`).
    public let flag: String
    /// The flag's value placeholder in a help (`n`, `p`).
    public let valueName: String
    /// One line of help.
    public let help: String
    /// The values allowed.
    public let constraint: OptionConstraint
    /// Stores a value the constraint allows into the settings.
    let store: @Sendable (OptionValue, inout Settings) -> Void
    /// The value in the settings.
    let load: @Sendable (Settings) -> OptionValue

    /// Sets the option in `settings` to `value` if the constraint allows it; returns whether it did.
    @discardableResult
    public func assign(_ value: OptionValue, to settings: inout Settings) -> Bool {
        guard constraint.allows(value) else { return false }
        store(value, &settings)
        return true
    }

    /// The option's value in `settings`.
    public func value(in settings: Settings) -> OptionValue { load(settings) }

    /// Why `value` cannot be the option's, in the words every door uses: "rows must be an integer from 1 to 8,
    /// got 9"; `nil` when it can.
    public func rejection(of value: OptionValue) -> String? {
        constraint.allows(value) ? nil : "\(name) must be \(constraint.expectation), got \(value)"
    }

    /// An option: a name, its help and constraint, how it is stored and read.
    public init(
        _ name: String, flag: String? = nil, valueName: String = "n", help: String, constraint: OptionConstraint,
        store: @escaping @Sendable (OptionValue, inout Settings) -> Void, load: @escaping @Sendable (Settings) -> OptionValue
    ) {
        self.name = name
        self.flag = flag ?? String(name.map { $0 == "_" ? "-" : $0 })
        self.valueName = valueName
        self.help = help
        self.constraint = constraint
        self.store = store
        self.load = load
    }

    // MARK: Kinds of option

    /// An integer option in `range`, at `field`.
    public static func integer(
        _ name: String, help: String, in range: ClosedRange<Int>, _ field: WritableKeyPath<Settings, Int> & Sendable
    ) -> GameOption {
        GameOption(
            name, help: help, constraint: .integer(range, nullable: false),
            store: { value, settings in if case .integer(let integer) = value { settings[keyPath: field] = integer } },
            load: { .integer($0[keyPath: field]) })
    }

    /// An integer option in `range` that may be off (`null`), at `field`.
    public static func optionalInteger(
        _ name: String, help: String, in range: ClosedRange<Int>, _ field: WritableKeyPath<Settings, Int?> & Sendable
    ) -> GameOption {
        GameOption(
            name, help: help, constraint: .integer(range, nullable: true),
            store: { value, settings in
                if case .integer(let integer) = value { settings[keyPath: field] = integer } else { settings[keyPath: field] = nil }
            },
            load: { $0[keyPath: field].map { .integer($0) } ?? .null })
    }

    /// A number option in `range`, at `field`.
    public static func number(
        _ name: String, valueName: String = "x", help: String, in range: ClosedRange<Double>,
        _ field: WritableKeyPath<Settings, Double> & Sendable
    ) -> GameOption {
        GameOption(
            name, valueName: valueName, help: help, constraint: .number(range),
            store: { value, settings in if case .number(let number) = value { settings[keyPath: field] = number } },
            load: { .number($0[keyPath: field]) })
    }

    /// A switch, at `field`.
    public static func boolean(_ name: String, help: String, _ field: WritableKeyPath<Settings, Bool> & Sendable) -> GameOption {
        GameOption(
            name, valueName: "bool", help: help, constraint: .boolean,
            store: { value, settings in if case .boolean(let flag) = value { settings[keyPath: field] = flag } },
            load: { .boolean($0[keyPath: field]) })
    }
}
