/// The first difference between a record and its replay.
///
///     step 17: left: recorded spawn a 2 on cell 5, replay spawns a 4 on cell 9
package struct ReplayMismatch: Error, Hashable, Sendable, CustomStringConvertible {
    /// The step at fault (0 = the start position).
    package var step: Int
    /// What differs.
    package var reason: String

    /// Creates a mismatch.
    package init(step: Int, _ reason: String) {
        self.step = step
        self.reason = reason
    }

    /// `start: …` or `step N: …`.
    package var description: String { (step == 0 ? "start: " : "step \(step): ") + reason }

    /// A recorded step `number` after the episode ended at step `number - 1`: what every game's replay reports.
    package static func pastTheEnd(step number: Int) -> ReplayMismatch {
        ReplayMismatch(step: number, "the episode ended after step \(number - 1), but the record goes on to step \(number)")
    }
}
