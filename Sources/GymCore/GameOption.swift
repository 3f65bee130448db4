/// One option of a game's environment, declared once: its name, flag, help, the values it allows, and the field
/// of the game's settings (`Settings`) that holds it.
///
///     static let revealSeen = GameOption<CardSettings>.boolean(
///         "reveal_seen", help: "Show every card ever seen.", \.revealSeen)
///
/// A game lists its options once (a card game's `CardOption.all`, 2048's `RulesOption.all` and
/// `EnvironmentOption.all`); every door reads that list: the names a `make` takes and `spec` reports, the flags of
/// the command line, the messages of a value out of range. Its kinds (integer, optional integer, number, boolean,
/// choice) are every game's: a new option of any kind is one entry in a table.
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
    /// What the documentation adds to the allowed values ("", or ", at most rows·cols").
    public let note: String
    /// The default when it is no fixed value (it follows other options), for helps and documents.
    public let defaultNote: String?
    /// Stores a value of the option's type into the settings; false (and nothing stored) for any other.
    let store: @Sendable (OptionValue, inout Settings) -> Bool
    /// The value in the settings.
    let load: @Sendable (Settings) -> OptionValue

    /// Sets the option in `settings` to `value` if the constraint allows it; returns whether it did.
    @discardableResult
    public func assign(_ value: OptionValue, to settings: inout Settings) -> Bool {
        constraint.allows(value) && store(value, &settings)
    }

    /// Sets the option in `settings` to `value` if it is of the option's type, whatever its range: for settings
    /// whose rules check their ranges together, in their own words. Returns whether it did.
    @discardableResult
    public func assignUnchecked(_ value: OptionValue, to settings: inout Settings) -> Bool { store(value, &settings) }

    /// The option's value in `settings`.
    public func value(in settings: Settings) -> OptionValue { load(settings) }

    /// Why `value` cannot be the option's, in the words every door uses: "rows must be an integer from 1 to 8,
    /// got 9"; `nil` when it can.
    public func rejection(of value: OptionValue) -> String? {
        constraint.allows(value) ? nil : "\(name) must be \(constraint.expectation), got \(value)"
    }

    /// An option: a name, its help and constraint, how it is stored (false for a value of another type) and read.
    public init(
        _ name: String, flag: String? = nil, valueName: String = "n", help: String, constraint: OptionConstraint, note: String = "",
        defaultNote: String? = nil, store: @escaping @Sendable (OptionValue, inout Settings) -> Bool,
        load: @escaping @Sendable (Settings) -> OptionValue
    ) {
        (self.name, self.flag, self.valueName) = (name, flag ?? String(name.map { $0 == "_" ? "-" : $0 }), valueName)
        (self.help, self.constraint, self.note, self.defaultNote) = (help, constraint, note, defaultNote)
        (self.store, self.load) = (store, load)
    }

    /// This option under another name, flag or help (2048's rules options as its environment's).
    public func renamed(flag: String? = nil, help: String? = nil) -> GameOption {
        GameOption(
            name, flag: flag ?? self.flag, valueName: valueName, help: help ?? self.help, constraint: constraint, note: note,
            defaultNote: defaultNote, store: store, load: load)
    }

    /// This option of settings held at `field` of `Outer`.
    public func lifted<Outer>(to field: WritableKeyPath<Outer, Settings> & Sendable) -> GameOption<Outer> {
        let (store, load) = (self.store, self.load)
        return GameOption<Outer>(
            name, flag: flag, valueName: valueName, help: help, constraint: constraint, note: note, defaultNote: defaultNote,
            store: { value, outer in store(value, &outer[keyPath: field]) }, load: { load($0[keyPath: field]) })
    }

    // MARK: Kinds of option

    /// An integer option in `range`, at `field`.
    public static func integer(
        _ name: String, flag: String? = nil, help: String, in range: ClosedRange<Int>, note: String = "",
        _ field: WritableKeyPath<Settings, Int> & Sendable
    ) -> GameOption {
        GameOption(
            name, flag: flag, help: help, constraint: .integer(range, nullable: false), note: note,
            store: { value, settings in
                guard case .integer(let integer) = value else { return false }
                settings[keyPath: field] = integer
                return true
            },
            load: { .integer($0[keyPath: field]) })
    }

    /// An integer option in `range` that may be off (`null`), at `field`.
    public static func optionalInteger(
        _ name: String, valueName: String = "n", help: String, in range: ClosedRange<Int>, note: String = "",
        _ field: WritableKeyPath<Settings, Int?> & Sendable
    ) -> GameOption {
        GameOption(
            name, valueName: valueName, help: help, constraint: .integer(range, nullable: true), note: note,
            store: { value, settings in
                switch value {
                case .integer(let integer): settings[keyPath: field] = integer
                case .null: settings[keyPath: field] = nil
                default: return false
                }
                return true
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
            store: { value, settings in
                guard case .number(let number) = value else { return false }
                settings[keyPath: field] = number
                return true
            },
            load: { .number($0[keyPath: field]) })
    }

    /// A switch, at `field`.
    public static func boolean(_ name: String, help: String, _ field: WritableKeyPath<Settings, Bool> & Sendable) -> GameOption {
        GameOption(
            name, valueName: "bool", help: help, constraint: .boolean,
            store: { value, settings in
                guard case .boolean(let flag) = value else { return false }
                settings[keyPath: field] = flag
                return true
            },
            load: { .boolean($0[keyPath: field]) })
    }

    /// One of the cases of `Choice`, by name, at `field`; the help ends with the names ("noop, terminate or
    /// reject.").
    public static func choice<Choice: CaseIterable & RawRepresentable<String> & Sendable>(
        _ name: String, flag: String? = nil, valueName: String, help: String, note: String = "",
        _ field: WritableKeyPath<Settings, Choice> & Sendable
    ) -> GameOption {
        let names = Choice.allCases.map(\.rawValue)
        return GameOption(
            name, flag: flag, valueName: valueName, help: "\(help) \(names.listedWithOr).", constraint: .choice(names), note: note,
            store: { value, settings in
                guard case .string(let text) = value, let choice = Choice(rawValue: text) else { return false }
                settings[keyPath: field] = choice
                return true
            },
            load: { .string($0[keyPath: field].rawValue) })
    }
}
