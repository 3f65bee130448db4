/// The version of Gym2048, in one place: the library, `g2048 --version`, the C ABI's `g2048_library_version`
/// and the Python package (its wheel reads this line, and adds `.devN+g<commit>` when built from a later commit)
/// all report it.
///
///     print(Gym2048Version.current)   // "0.3.0"
public enum Gym2048Version {
    /// The release this source belongs to, as `major.minor.patch`.
    public static let current = "0.3.0"
}
