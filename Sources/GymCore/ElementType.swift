/// The type of one value of a result column, the same at every door: Swift writes it, C reads it through a
/// `void *`, Python through a numpy array of the dtype of the same name.
public enum ElementType: String, Sendable, Hashable, CaseIterable {
    /// 0 or 1, one byte (C `uint8_t`, numpy `bool`).
    case bool
    /// C `uint8_t`.
    case uint8
    /// C `int8_t`.
    case int8
    /// C `int64_t`.
    case int64
    /// C `float`.
    case float32
    /// C `double`.
    case float64

    /// The bytes one value takes.
    public var byteCount: Int {
        switch self {
        case .bool, .uint8, .int8: 1
        case .float32: 4
        case .int64, .float64: 8
        }
    }
}
