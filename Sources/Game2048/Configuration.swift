/// Everything an environment is made with, by the option names every door uses: the game's ``Rules``, how many
/// environments, how observations are encoded, which info fields are reported and how, and the autoreset mode.
///
///     var settings = Configuration.Settings(Configuration())
///     EnvironmentOption.named("num_envs")!.assign(.integer(256), to: &settings)
///     let config = try Configuration(settings, changing: Configuration())   // 256 classic 4×4 environments
///
/// `EnvironmentOption.all` declares each option once (name, type, range or cases, default, help, and the field
/// of ``Settings`` that holds it); the protocol's `make` and `spec`, `g2048 serve`'s flags, the C ABI's
/// `g2048_make` and `g2048_options`, and the Python package all read it. Every stored value has been validated.
public struct Configuration: Hashable, Sendable {
    /// The observation encodings by their option names: each is a board encoding (``ObservationEncoding``, which
    /// knows its shape, dtype, bounds and values); `base64` and `base64_batch` are exponents that the protocol
    /// carries as base64 bytes (in memory, through the C ABI, they are exponents).
    public enum Encoding: String, Hashable, Sendable, CaseIterable {
        /// rows×cols exponents (0 = empty).
        case exponents
        /// rows×cols tile values.
        case values
        /// channels×rows×cols planes of 0/1.
        case onehot
        /// The exponents as base64 bytes (the name `base64` predates other byte encodings).
        case base64
        /// The exponents as base64 bytes, a vector's columns batched.
        case base64Batch = "base64_batch"
        /// channels×rows×cols 32-bit floats of 0/1 (the planes of `onehot`, channels first), for a network's input.
        case onehotFloat32 = "onehot_float32"
        /// channels·rows·cols 32-bit floats of 0/1 in one flat vector (the one-hot planes in order).
        case onehotFlat = "onehot_flat"

        /// The board encoding, with `channels` one-hot planes.
        public func board(channels: Int) -> ObservationEncoding {
            switch self {
            case .exponents, .base64, .base64Batch: .exponents
            case .values: .values
            case .onehot: .oneHot(channels: channels)
            case .onehotFloat32: .oneHotFloat32(channels: channels)
            case .onehotFlat: .oneHotFlat(channels: channels)
            }
        }
    }

    /// How a vector environment's info is laid out.
    public enum InfoLayout: String, Hashable, Sendable, CaseIterable {
        /// A list with one info object per environment.
        case rows
        /// One object whose members are lists (Gymnasium's vector info layout).
        case columns
    }

    /// The most environments one configuration holds.
    public static let numEnvsRange = 1...65_536
    /// The one-hot planes an observation may have.
    public static let onehotChannelsRange = 2...64

    /// The game's rules.
    public var rules: Rules = Rules()
    /// Number of environments; more than 1 is vector mode.
    public var numEnvs: Int = 1
    /// Observation encoding.
    public var encoding: Encoding = .exponents
    /// Planes of the one-hot encoding: ``defaultOnehotChannels(for:)`` unless set.
    public var onehotChannels: Int = Configuration.defaultOnehotChannels(for: Rules())
    /// Info fields to report, in ``ReportedInfo/allCases`` order.
    public var info: [ReportedInfo] = ReportedInfo.defaults
    /// Vector info layout.
    public var infoLayout: InfoLayout = .rows
    /// Vector autoreset mode.
    public var autoresetMode: AutoresetMode = .nextStep

    /// The default configuration: one classic 4×4 environment.
    public init() {}

    /// The configured board encoding.
    public var observation: ObservationEncoding { encoding.board(channels: onehotChannels) }

    /// The one-hot planes of a board under `rules` when none are set: one per exponent the board can hold, empty
    /// cells included (`rows·cols + 2`, at most 51).
    public static func defaultOnehotChannels(for rules: Rules) -> Int { Int(rules.largestExponent) + 1 }

    /// Every option's value in one flat record, as ``EnvironmentOption`` reads and writes them; a configuration is
    /// made from it once all changes are in, so that they are validated together.
    public struct Settings: Hashable, Sendable {
        /// The rules options.
        public var rules: RulesSettings
        /// `num_envs`.
        public var numEnvs: Int
        /// `observation`.
        public var encoding: Encoding
        /// `onehot_channels`.
        public var onehotChannels: Int
        /// Whether `onehot_channels` was set: otherwise it follows a new board size.
        public var onehotChannelsGiven = false
        /// `info`.
        public var info: [ReportedInfo]
        /// `info_layout`.
        public var infoLayout: InfoLayout
        /// `autoreset_mode`.
        public var autoresetMode: AutoresetMode

        /// The settings of `config`.
        public init(_ config: Configuration) {
            (rules, numEnvs, encoding) = (RulesSettings(config.rules), config.numEnvs, config.encoding)
            (onehotChannels, info, infoLayout, autoresetMode) = (config.onehotChannels, config.info, config.infoLayout, config.autoresetMode)
        }
    }

    /// The configuration `settings` describe, made as changes to `base`: the one-hot planes follow a new board
    /// size unless they were set.
    ///
    /// - Throws: `RulesError` for rules that do not make a game.
    public init(_ settings: Settings, changing base: Configuration) throws(RulesError) {
        rules = try settings.rules.rules()
        numEnvs = settings.numEnvs
        encoding = settings.encoding
        onehotChannels = settings.onehotChannels
        if !settings.onehotChannelsGiven && (rules.rows != base.rules.rows || rules.cols != base.rules.cols) {
            onehotChannels = Configuration.defaultOnehotChannels(for: rules)
        }
        info = settings.info
        infoLayout = settings.infoLayout
        autoresetMode = settings.autoresetMode
    }
}
