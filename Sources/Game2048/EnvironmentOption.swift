/// One option of an environment, declared once: its name, its flag and help, the values it allows, its default,
/// and the field of ``Configuration/Settings`` that holds it.
///
///     EnvironmentOption.named("num_envs")?.constraint   // .integer(1...65536, nullable: false)
///
/// `EnvironmentOption.all` is the one table of options. The protocol's `make` reads through it and `spec`
/// reports it, `g2048 serve` builds its flags and help from it, the C ABI returns it from `g2048_options`, the
/// Python package and the documents' option tables are made from it. Its rules options are made from
/// ``RulesOption/all``, so adding a rules option is an entry there. Adding an environment option is its
/// declaration here and its place in `all`, plus the field it sets in ``Configuration`` and what it does.
public typealias EnvironmentOption = GameOption<Configuration.Settings>

extension GameOption where Settings == Configuration.Settings {
    /// The values an option allows: the constraint every game's options share.
    public typealias Constraint = OptionConstraint

    /// The rules option it is, when it is one.
    public var rules: RulesOption? { RulesOption.named(name) }

    /// The option's value in the default configuration.
    public var defaultValue: OptionValue { value(in: Configuration.Settings(Configuration())) }

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
    public static let onehotChannels = EnvironmentOption(
        "onehot_channels", help: "Planes of the onehot encoding.", constraint: .integer(Configuration.onehotChannelsRange, nullable: false),
        defaultNote: "rows*cols+2",
        store: { value, settings in
            guard case .integer(let channels) = value else { return false }
            (settings.onehotChannels, settings.onehotChannelsGiven) = (channels, true)
            return true
        },
        load: { .integer($0.onehotChannels) })
    /// `info`: the info fields to report.
    public static let info = EnvironmentOption(
        "info", valueName: "fields", help: "Comma-separated info fields to report.", constraint: .list(ReportedInfo.allCases.map(\.rawValue)),
        note: " (comma-separated after `--info`)",
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

    /// The option of a rules option: its name, flag, help and allowed values are the rules option's.
    static func rules(_ option: RulesOption) -> EnvironmentOption { option.option.lifted(to: \.rules) }
}
