// The learner's settings (`LearnerSetting`, Game2048Training) as JSON, for `g2048_learner_settings`.
import CGym2048
import Game2048Training
import GymJSON

extension LearnerSetting {
    /// `{"name": …, "kind": "integer", "min": …, "max": …}`, `"number"` likewise, `"choice"` with its `choices`,
    /// or `"text"`.
    var json: JSONValue {
        var members: [(String, JSONValue)] = [("name", .string(name))]
        switch kind {
        case .integer(let range): members += [("kind", "integer"), ("min", .integer(range.lowerBound)), ("max", .integer(range.upperBound))]
        case .number(let range): members += [("kind", "number"), ("min", .double(range.lowerBound)), ("max", .double(range.upperBound))]
        case .choice(let names): members += [("kind", "choice"), ("choices", .array(names.map { .string($0) }))]
        case .text: members.append(("kind", "text"))
        }
        return .object(members)
    }
}

nonisolated(unsafe) let learnerSettingsCString = staticCString(JSONValue.array(LearnerSetting.all.map(\.json)).serialized)

@_cdecl("g2048_learner_settings")
public func g2048LearnerSettings() -> UnsafePointer<CChar> { UnsafePointer(learnerSettingsCString) }
