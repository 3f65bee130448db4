/// One option of an environment, declared once: its name, its flag and help, the values it allows, its default,
/// and the field of ``Configuration/Settings`` that holds it.
///
///     EnvironmentOption.named("num_envs")?.constraint   // .integer(1...65536, nullable: false)
///
/// ``EnvironmentOption/all`` is the one table of options. The protocol's `make` reads through it and `spec`
/// reports it, `g2048 serve` builds its flags and help from it, the C ABI returns it from `g2048_options`, the
/// Python package and the documents' option tables are made from it. Its rules options are made from
/// ``RulesOption/all``, so adding a rules option is an entry there. Adding an environment option is its
/// declaration here and its place in ``all``, plus the field it sets in ``Configuration`` and what it does.
public struct EnvironmentOption: Sendable {
    /// The values an option allows: the constraint every game's options share.
    public typealias Constraint = OptionConstraint

    /// The name (snake_case), as `make`, `spec`, records and Python keywords give it.
    public let name: String
    /// The flag, without its dashes (`initial-tiles`).
    public let flag: String
    /// The flag's value placeholder in a help (`n`, `policy`).
    public let valueName: String
    /// One line of help; a choice's help ends with its names.
    public let help: String
    /// The values allowed.
    public let constraint: Constraint
    /// What the documentation adds to the allowed values, or "".
    public let note: String
    /// The default when it is no fixed value (it follows other options), for the help and the documents.
    public let defaultNote: String?
    /// The rules option it is, when it is one.
    public let rules: RulesOption?
    /// Stores a value of the option's type into the settings; false (and nothing stored) for any other.
    let store: @Sendable (OptionValue, inout Configuration.Settings) -> Bool
    /// The value in the settings.
    let load: @Sendable (Configuration.Settings) -> OptionValue

    /// Sets the option in `settings` to `value`, if `value` is one the option allows; returns whether it did.
    @discardableResult
    public func assign(_ value: OptionValue, to settings: inout Configuration.Settings) -> Bool {
        store(value, &settings)
    }

    /// The option's value in `settings`.
    public func value(in settings: Configuration.Settings) -> OptionValue { load(settings) }

    /// The option's value in the default configuration.
    public var defaultValue: OptionValue { load(Configuration.Settings(Configuration())) }

    /// Every option, in the order `spec` reports them: the board size, `num_envs`, the other rules options (all
    /// of ``RulesOption/all``, in its order), then how results are encoded.
    public static let all: [EnvironmentOption] =
        RulesOption.all.filter(\.isRequired).map(rules) + [numEnvs] + RulesOption.all.filter { !$0.isRequired }.map(rules)
        + [observation, onehotChannels, info, infoLayout, autoresetMode]

    /// The names, in ``all`` order.
    public static let names = all.map(\.name)

    /// The option named `name`, if there is one.
    public static func named(_ name: String) -> EnvironmentOption? { all.first { $0.name == name } }

    /// `num_envs` (`--envs`).
    public static let numEnvs = integer(
        "num_envs", flag: "envs", help: "Environments; more than 1 serves a vector environment.", in: Configuration.numEnvsRange,
        note: ", and responses within 256 MiB (see Transport); more than 1 is vector mode", \.numEnvs)
    /// `observation`.
    public static let observation = choice("observation", valueName: "encoding", help: "Observation encoding:", \.encoding)
    /// `onehot_channels`; it follows the board size unless set.
    public static let onehotChannels = integer(
        "onehot_channels", help: "Planes of the onehot encoding.", in: Configuration.onehotChannelsRange,
        defaultNote: "rows*cols+2", \.onehotChannels, given: \Configuration.Settings.onehotChannelsGiven)
    /// `info`: the info fields to report.
    public static let info = EnvironmentOption(
        name: "info", flag: "info", valueName: "fields", help: "Comma-separated info fields to report.",
        constraint: .list(ReportedInfo.allCases.map(\.rawValue)), note: " (comma-separated after `--info`)", defaultNote: nil,
        rules: nil,
        store: { value, settings in
            guard case .list(let names) = value else { return false }
            let fields = names.map(ReportedInfo.init(rawValue:))
            guard !fields.contains(nil) else { return false }
            settings.info = ReportedInfo.allCases.filter(fields.contains)
            return true
        },
        load: { .list($0.info.map(\.rawValue)) })
    /// `info_layout`.
    public static let infoLayout = choice(
        "info_layout", valueName: "layout", help: "Vector info layout (rows: one object per env):",
        note: "; in vector mode `rows` is a list of info objects, `columns` one object of lists", \.infoLayout)
    /// `autoreset_mode`.
    public static let autoresetMode = choice("autoreset_mode", valueName: "mode", help: "Vector autoreset:", \.autoresetMode)

    // MARK: Kinds of option

    /// An integer option in `range`, stored at `field`; `given` records that it was set (an option whose default
    /// follows others). The name, the range and the field are stated once, here.
    static func integer(
        _ name: String, flag: String? = nil, help: String, in range: ClosedRange<Int>, note: String = "",
        defaultNote: String? = nil, _ field: WritableKeyPath<Configuration.Settings, Int> & Sendable,
        given: (WritableKeyPath<Configuration.Settings, Bool> & Sendable)? = nil
    ) -> EnvironmentOption {
        EnvironmentOption(
            name: name, flag: flag ?? dashed(name), valueName: "n", help: help, constraint: .integer(range, nullable: false),
            note: note, defaultNote: defaultNote, rules: nil,
            store: { value, settings in
                guard case .integer(let integer) = value, range.contains(integer) else { return false }
                settings[keyPath: field] = integer
                if let given { settings[keyPath: given] = true }
                return true
            },
            load: { .integer($0[keyPath: field]) })
    }

    /// The option of a rules option: its flag, help and allowed values are the rules option's.
    static func rules(_ option: RulesOption) -> EnvironmentOption {
        let constraint = option.constraint
        let listed = if case .choice(let choices) = constraint { " " + choices.listedWithOr + "." } else { "" }
        return EnvironmentOption(
            name: option.name, flag: option.flag, valueName: option.valueName, help: option.help + listed,
            constraint: constraint, note: option.note, defaultNote: nil, rules: option,
            store: { value, settings in option.assign(value, to: &settings.rules) },
            load: { option.value(in: $0.rules) })
    }

    /// A choice among the cases of `Choice`; the help ends with them ("rows or columns.").
    static func choice<Choice: CaseIterable & RawRepresentable<String> & Sendable>(
        _ name: String, valueName: String, help: String, note: String = "",
        _ field: WritableKeyPath<Configuration.Settings, Choice> & Sendable
    ) -> EnvironmentOption {
        let choices = Choice.allCases.map(\.rawValue)
        return EnvironmentOption(
            name: name, flag: dashed(name), valueName: valueName, help: "\(help) \(choices.listedWithOr).",
            constraint: .choice(choices), note: note, defaultNote: nil, rules: nil,
            store: { value, settings in
                guard case .string(let text) = value, let choice = Choice(rawValue: text) else { return false }
                settings[keyPath: field] = choice
                return true
            },
            load: { .string($0[keyPath: field].rawValue) })
    }

    /// The flag of a name: `initial_tiles` is `initial-tiles`.
    static func dashed(_ name: String) -> String { String(name.map { $0 == "_" ? "-" : $0 }) }
}
