/// The values a door was given for a learner's settings (``LearnerSetting``): `g2048 train`'s flags, the options of
/// the C ABI's `g2048_learner_make`. Each door checks a value against the setting's declaration in its own words;
/// ``TrainingRequest/init(_:rules:out:)`` reads every setting through it, once for all doors.
public protocol LearnerSettingValues {
    /// How the door refuses a value or a request.
    associatedtype Failure: Error

    /// The integer given for `setting`, in its range; `nil` when none was.
    func integer<Integer: FixedWidthInteger>(_ setting: LearnerSetting, as: Integer.Type) throws(Failure) -> Integer?
    /// The number given for `setting`, in its range; `nil` when none was.
    func number(_ setting: LearnerSetting) throws(Failure) -> Double?
    /// The text given for `setting`; `nil` when none was.
    func text(_ setting: LearnerSetting) throws(Failure) -> String?
    /// The choice given for `setting`, one of `Choice`'s; `nil` when none was.
    func choice<Choice: CaseIterable & RawRepresentable<String> & Sendable>(_ setting: LearnerSetting, of: Choice.Type) throws(Failure) -> Choice?
    /// `error`, a refusal of the request's own (settings that contradict each other or a file), as the door's.
    func refusal(_ error: TrainingError) -> Failure
}

extension LearnerSettingValues {
    /// `body`'s result, its `TrainingError` the door's refusal.
    func refusing<Value>(_ body: () throws(TrainingError) -> Value) throws(Failure) -> Value {
        do { return try body() } catch { throw refusal(error) }
    }
}
